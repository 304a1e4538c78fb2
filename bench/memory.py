"""Memory per live session and per loaded environment, and world build time and peak memory.

* Per loaded environment: a fresh process imports agentworld, then loads and warms each
  environment of a sample in turn (template built, validators compiled); RSS growth per
  environment. The sample is the reference environments plus a seeded draw from the rest of the
  catalog (12 in quick mode, 60 in full): the catalog holds about 2,000, and loading them all
  takes longer than the whole quick run may.
* Per live session: a hub subprocess; its RSS before and after holding N sessions open.
* World build: the same fresh process; wall time and peak RSS (``ru_maxrss``) for the sample,
  and the time extrapolated to the whole catalog.
Run: python bench/memory.py [--quick|--full]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from _common import PYTHON, ROOT, child_env, hub_process, rss_kib, table, write_result  # noqa: E402

_PROBE = r"""
import ctypes, gc, json, resource, sys, time
def rss():
    gc.collect(); ctypes.CDLL("libc.so.6").malloc_trim(0)
    return int(open("/proc/self/statm").read().split()[1]) * 4
import agentworld.hub.app  # the hub's imports, so they are not charged to the first env
from agentworld.servers import default_catalog
catalog = default_catalog()
out = {"base_rss_kib": rss(), "envs": {}, "catalog_size": len(catalog.ids())}
t_all = time.perf_counter()
for env_id in json.loads(sys.argv[1]):
    before, t = rss(), time.perf_counter()
    env = catalog.load(env_id).warm()
    out["envs"][env_id] = {"build_s": time.perf_counter() - t, "rss_kib": rss() - before,
                           "template_bytes": env.template.size_bytes, "tools": len(env.tools)}
out["build_all_s"] = time.perf_counter() - t_all
out["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps(out))
"""


REFERENCE = ("airline", "github", "notion")


def sample_ids(size: int, seed: int = 17) -> list[str]:
    """The reference environments and ``size`` more drawn with a fixed seed."""
    from agentworld.servers import default_catalog

    rest = sorted(set(default_catalog().ids()) - set(REFERENCE))
    return [*REFERENCE, *random.Random(seed).sample(rest, min(size, len(rest)))]


def per_environment(env_ids: list[str]) -> dict[str, Any]:
    done = subprocess.run([PYTHON, "-c", _PROBE, json.dumps(env_ids)], cwd=ROOT,
                          env=child_env(), check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


async def _hold(base: str, env_id: str, n: int) -> list[str]:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http:
        async def one(i: int) -> str:
            async with http.post(f"{base}/v1/sessions", json={"env_id": env_id, "seed": i}) as r:
                return (await r.json())["session_id"]
        return await asyncio.gather(*(one(i) for i in range(n)))


async def _end(base: str, sids: list[str]) -> None:
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http:
        async def one(sid: str) -> None:
            async with http.delete(f"{base}/v1/sessions/{sid}") as r:
                await r.read()
        await asyncio.gather(*(one(s) for s in sids))


def per_session(env_ids: list[str], n: int) -> dict[str, Any]:
    out = {}
    with hub_process() as (base, proc):
        for env_id in env_ids:
            asyncio.run(_end(base, asyncio.run(_hold(base, env_id, 20))))  # warm up
            before = rss_kib(proc.pid)
            sids = asyncio.run(_hold(base, env_id, n))
            held = rss_kib(proc.pid)
            asyncio.run(_end(base, sids))
            out[env_id] = {"sessions": n, "kib_per_session": (held - before) / n,
                           "rss_after_end_kib": rss_kib(proc.pid) - before}
    return out


def run(quick: bool) -> dict[str, Any]:
    envs = per_environment(sample_ids(12 if quick else 60))
    # Sessions on the reference environments (world environments share their engines).
    sessions = per_session(list(REFERENCE), 200 if quick else 1000)
    rows = [[env_id, e["template_bytes"] / 1024, e["build_s"] * 1e3, e["rss_kib"] / 1024,
             sessions[env_id]["kib_per_session"] if env_id in sessions else "-"]
            for env_id, e in envs["envs"].items()]
    table("Memory and world build (a sample of the catalog)",
          ["env", "template KiB", "build ms", "loaded env MiB", "KiB per live session"], rows)
    sampled = len(envs["envs"])
    table("World build (the sample, fresh process)",
          ["environments", "build s", "whole catalog s (extrapolated)", "peak RSS MiB",
           "RSS after imports MiB"],
          [[sampled, envs["build_all_s"], envs["build_all_s"] / sampled * envs["catalog_size"],
            envs["peak_rss_kib"] / 1024, envs["base_rss_kib"] / 1024]])
    out = {"environments": envs, "sessions": sessions}
    write_result("memory", out)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full", action="store_true")
    args = parser.parse_args()
    run(quick=not args.full)
