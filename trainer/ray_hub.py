"""The OpenRLHF path with the hub's replicas on the trainer's own Ray cluster.

``python -m agentworld.trainer.ray_hub --replicas N [--replica-cpus C] [--port P] --
<train_ppo_ray flags>`` does what :mod:`agentworld.trainer.openrlhf_launch` does (Ray started
with the ``AGENTWORLD_*`` variables in every worker, then OpenRLHF's CLI unchanged), and before
OpenRLHF runs it places N hub replicas and their entry router on the same cluster
(:class:`agentworld.hub.ray_cluster.RayHub`). The router listens on this node at a port chosen
before Ray starts, so the entry URL can go into the workers' environment; the rollout workers,
wherever Ray puts them, reach every replica through it. The hub stops when training ends.

:func:`with_ray_hub` turns a command built by :func:`openrlhf_backend.build_command` into this
launcher's command; ``agentworld train --backend openrlhf --hub-replicas N`` uses it.
"""

from __future__ import annotations

import argparse
import os
import runpy
import socket
import sys
from collections.abc import Sequence

__all__ = ["with_ray_hub", "main"]

_LAUNCHER = "agentworld.trainer.openrlhf_launch"
_THIS = "agentworld.trainer.ray_hub"


def with_ray_hub(cmd: Sequence[str], *, replicas: int, replica_cpus: float = 1.0,
                 max_sessions: int = 1024) -> list[str]:
    """``cmd`` (``python -m agentworld.trainer.openrlhf_launch <flags>``) with the hub placed
    on the cluster. Raises ValueError for another command or a bad replica count."""
    cmd = list(cmd)
    if replicas < 1:
        raise ValueError(f"replicas must be at least 1, got {replicas}")
    try:
        at = cmd.index(_LAUNCHER)
    except ValueError:
        raise ValueError(f"not an OpenRLHF launcher command: {cmd[:3]}") from None
    return [*cmd[:at], _THIS, "--replicas", str(replicas), "--replica-cpus", str(replica_cpus),
            "--max-sessions", str(max_sessions), "--", *cmd[at + 1:]]


def _free_port(host: str) -> int:
    # The router binds it a moment later; the URL has to exist before Ray starts the workers.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog=f"python -m {_THIS}", description=__doc__.split("\n")[0])
    parser.add_argument("--replicas", type=int, default=2)
    parser.add_argument("--replica-cpus", type=float, default=1.0)
    parser.add_argument("--max-sessions", type=int, default=1024, help="per replica")
    parser.add_argument("--port", type=int, default=0, help="the entry router's (0: free)")
    parser.add_argument("--module", default="openrlhf.cli.train_ppo_ray",
                        help="the training entrypoint run once the hub is up")
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="-- then the trainer's flags")
    args = parser.parse_args(argv)
    args.rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    import ray

    from agentworld.hub.ray_cluster import RayHub, RayHubConfig
    from agentworld.hub.settings import HubSettings
    from agentworld.servers.catalog import configured_catalog

    from .errors import LaunchError
    from .openrlhf_launch import check_hub, worker_env

    host = ray.util.get_node_ip_address()
    url = f"http://{host}:{args.port or _free_port(host)}"
    token = os.environ.get("AGENTWORLD_TOKEN") or None
    try:
        config = RayHubConfig(replicas=args.replicas, num_cpus=args.replica_cpus,
                              router_host=host, router_port=int(url.rsplit(":", 1)[1]),
                              settings=HubSettings(max_sessions=args.max_sessions, token=token))
        env = worker_env({**os.environ, "AGENTWORLD_HUB_URL": url})
    except (ValueError, LaunchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    ray.init(runtime_env={"env_vars": env})
    hub = RayHub(config, catalog_factory=configured_catalog)
    try:
        hub.start()
        check_hub(url)
        print(f"agentworld hub: {args.replicas} replicas on this Ray cluster at {url}",
              file=sys.stderr, flush=True)
        sys.argv = [args.module, *args.rest]
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
    finally:
        hub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
