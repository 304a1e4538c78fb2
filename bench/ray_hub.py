"""The hub on a local two-node Ray cluster: what the entry router costs, and what replicas buy.

Three setups in one run, on the same cluster and workload (N concurrent HTTP sessions on a
reference environment, each a reset, ``steps`` reads and an end):

* ``direct``: one replica, the client talking to it without the router (the baseline: one hub);
* ``router x1``: the same single replica behind the entry router (the router's cost);
* ``router xR``: R replicas behind the router (spread over both nodes).

On one machine every node shares the same cores, so ``router xR`` shows the overhead of more
processes rather than a multi-machine speed-up. Prints a table, writes bench/results/ray_hub.json.
Run: python bench/ray_hub.py [--sessions 256] [--steps 10] [--replicas 4]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import pct, step_action, table, write_result  # noqa: E402

ENV = "notion"


async def _session(client, i: int, steps: int, action: dict, lat: list[float]) -> bool:
    from agentworld.hub.client import HubClientError

    try:
        sid = (await client.reset(ENV, seed=i, max_steps=steps + 1))["session_id"]
        for _ in range(steps):
            t = time.perf_counter()
            await client.step(sid, action)
            lat.append(time.perf_counter() - t)
        await client.end(sid)
        return True
    except HubClientError:
        return False


async def _load(url: str, sessions: int, steps: int) -> dict:
    from agentworld.hub.client import HubClient

    action, lat = step_action(ENV), []
    async with HubClient(url) as client:
        started = time.perf_counter()
        ok = await asyncio.gather(*(_session(client, i, steps, action, lat)
                                    for i in range(sessions)))
        elapsed = time.perf_counter() - started
    return {"sessions": sessions, "ok": sum(ok), "seconds": round(elapsed, 3),
            "steps_per_s": round(len(lat) / elapsed, 1),
            "step_p50_ms": round(pct(lat, 50) * 1e3, 2),
            "step_p99_ms": round(pct(lat, 99) * 1e3, 2)}


def _best(url: str, sessions: int, steps: int, repeats: int) -> dict:
    runs = [asyncio.run(_load(url, sessions, steps)) for _ in range(repeats)]
    return max(runs, key=lambda r: r["steps_per_s"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sessions", type=int, default=256)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--replicas", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)

    import ray
    from ray.cluster_utils import Cluster

    from agentworld.hub.ray_cluster import RayHub, RayHubConfig
    from agentworld.hub.settings import HubSettings

    cluster = Cluster(initialize_head=True,
                      head_node_args={"num_cpus": 2, "include_dashboard": False})
    rows = []
    try:
        cluster.add_node(num_cpus=2)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        settings = HubSettings(max_sessions=2 * args.sessions)
        for replicas in (1, args.replicas):
            config = RayHubConfig(replicas=replicas, num_cpus=4 / max(replicas, 2),
                                  settings=settings)
            with RayHub(config) as hub:
                if replicas == 1:
                    direct = ray.get(hub.replicas[0].info.remote()).url
                    rows.append({"setup": "direct", **_best(direct, args.sessions, args.steps,
                                                            args.repeats)})
                rows.append({"setup": f"router x{replicas}",
                             **_best(hub.url, args.sessions, args.steps, args.repeats)})
    finally:
        ray.shutdown()
        cluster.shutdown()
    base = rows[0]["steps_per_s"]
    for row in rows:
        row["vs_direct"] = round(row["steps_per_s"] / base, 2)
    headers = ["setup", "sessions", "ok", "seconds", "steps_per_s", "step_p50_ms",
               "step_p99_ms", "vs_direct"]
    table(f"hub on Ray: {ENV}, {args.steps} steps a session", headers,
          [[row[h] for h in headers] for row in rows])
    write_result("ray_hub", {"env": ENV, "steps": args.steps, "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
