"""Start OpenRLHF 0.11 with the hub's address in every Ray worker.

``python -m agentworld.trainer.openrlhf_launch <train_ppo_ray flags>``

OpenRLHF's agent file runs inside vLLM actors, which Ray may place on any node; they see the
environment of Ray's workers, not the driver's. OpenRLHF calls ``ray.init`` only when Ray is not
initialised yet, so this launcher initialises it first with a runtime environment that carries
OpenRLHF's own defaults plus the ``AGENTWORLD_*`` variables, then runs OpenRLHF's CLI unchanged.
It fails at once, before any GPU work, when ``AGENTWORLD_HUB_URL`` is missing or the hub does not
answer.
"""

from __future__ import annotations

import os
import runpy
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence

from .errors import LaunchError

__all__ = ["worker_env", "check_hub", "main"]

_PREFIX = "AGENTWORLD_"
# What OpenRLHF's own ray.init puts in the runtime environment (cli/train_ppo_ray.py).
_OPENRLHF_DEFAULTS = {"TOKENIZERS_PARALLELISM": "true", "NCCL_DEBUG": "WARN",
                      "RAY_ENABLE_ZERO_COPY_TORCH_TENSORS": "1"}


def worker_env(environ: Mapping[str, str]) -> dict[str, str]:
    """The ``env_vars`` of Ray's runtime environment: OpenRLHF's defaults (overridden by the
    caller's values, as OpenRLHF does) and every ``AGENTWORLD_*`` variable.

    Raises:
        LaunchError: ``AGENTWORLD_HUB_URL`` is not set.
    """
    if not environ.get("AGENTWORLD_HUB_URL"):
        raise LaunchError("AGENTWORLD_HUB_URL is not set: the rollout workers would have no hub "
                          "(start one with `agentworld serve --max-sessions 1024`)")
    env = {k: environ.get(k, v) for k, v in _OPENRLHF_DEFAULTS.items()}
    env.update({k: v for k, v in environ.items() if k.startswith(_PREFIX)})
    return env


def check_hub(url: str, *, timeout: float = 10.0) -> None:
    """Raise :class:`LaunchError` unless the hub at ``url`` answers ``/healthz``."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/healthz", timeout=timeout) as resp:
            if resp.status != 200:
                raise LaunchError(f"the hub at {url} answered /healthz with {resp.status}")
    except (urllib.error.URLError, OSError) as exc:
        raise LaunchError(f"the hub at {url} does not answer: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        env = worker_env(os.environ)
        check_hub(env["AGENTWORLD_HUB_URL"])
    except LaunchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    import ray

    ray.init(runtime_env={"env_vars": env})
    sys.argv = ["openrlhf.cli.train_ppo_ray", *args]
    runpy.run_module("openrlhf.cli.train_ppo_ray", run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
