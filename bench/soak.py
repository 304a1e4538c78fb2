"""Soak: many episodes on one hub subprocess, checking for leaks.

Episodes (reset, two steps, end; every fourth left open for the idle reaper) run 64 at a time.
Every ``sample`` episodes: live sessions (``/healthz``), open file descriptors
(``/proc/<hub pid>/fd``) and RSS. At the end, the hub must hold no session, no more descriptors
than after warm-up (plus a small slack for the pool), and the RSS peak of the last three samples
may exceed that of the three after warm-up by less than a bound.
Run: python bench/soak.py [--full | --quick | --episodes N] (--full: 10,000 episodes, the
default; --quick: 1,000)
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from _common import fd_count, hub_process, rss_kib, step_action, table, write_result  # noqa: E402

FD_SLACK = 16
RSS_SLACK_MIB = 32


async def _soak(base: str, pid: int, env_id: str, episodes: int, sample: int) -> list[dict]:
    action = step_action(env_id)
    samples: list[dict] = []
    failures = 0
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=64)) as http:
        async def call(method: str, path: str, body: Any = None) -> Any:
            async with http.request(method, base + path, json=body) as r:
                data = await r.json(content_type=None) if r.status != 204 else None
                if r.status >= 300:
                    raise RuntimeError(f"{r.status} {data}")
                return data

        async def episode(i: int) -> None:
            nonlocal failures
            try:
                sid = (await call("POST", "/v1/sessions", {"env_id": env_id, "seed": i}))[
                    "session_id"]
                for _ in range(2):
                    await call("POST", f"/v1/sessions/{sid}/step", {"action": action})
                if i % 4:
                    await call("DELETE", f"/v1/sessions/{sid}")
            except Exception:
                failures += 1

        gate = asyncio.Semaphore(64)

        async def gated(i: int) -> None:
            async with gate:
                await episode(i)

        for start in range(0, episodes, sample):
            await asyncio.gather(*(gated(i) for i in range(start, min(episodes, start + sample))))
            deadline = time.monotonic() + 30
            while (await call("GET", "/healthz"))["sessions"] and time.monotonic() < deadline:
                await asyncio.sleep(0.1)  # let the reaper end the abandoned quarter
            health = await call("GET", "/healthz")
            samples.append({"episodes": min(episodes, start + sample),
                            "sessions": health["sessions"], "fds": fd_count(pid),
                            "rss_mib": rss_kib(pid) / 1024, "failures": failures})
    return samples


def run(episodes: int = 10_000, env_id: str = "github") -> dict[str, Any]:
    sample = max(100, episodes // 10)
    # A short idle timeout so abandoned sessions are reaped within the run.
    with hub_process(extra=["--idle-timeout", "1"]) as (base, proc):
        samples = asyncio.run(_soak(base, proc.pid, env_id, episodes, sample))
    warm, last = samples[min(1, len(samples) - 1)], samples[-1]
    # RSS moves up and down as the allocator reuses memory; a leak moves the peak. Compare the
    # peak of the three samples after warm-up with the peak of the last three.
    warm_peak = max(s["rss_mib"] for s in samples[1:4] or samples)
    last_peak = max(s["rss_mib"] for s in samples[-3:])
    checks = {"no failed episode": last["failures"] == 0,
              "no live session left": last["sessions"] == 0,
              "no leaked file descriptor": last["fds"] <= warm["fds"] + FD_SLACK,
              "flat memory": last_peak - warm_peak < RSS_SLACK_MIB}
    table(f"Soak: {episodes} episodes on one hub ({env_id})",
          ["episodes", "live sessions", "open fds", "RSS MiB", "failures"],
          [[s["episodes"], s["sessions"], s["fds"], s["rss_mib"], s["failures"]]
           for s in samples])
    table("Soak checks", ["check", "passed"], [[k, v] for k, v in checks.items()])
    out = {"env": env_id, "episodes": episodes, "samples": samples, "checks": checks,
           "passed": all(checks.values())}
    write_result("soak", out)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--episodes", type=int, default=10_000)
    size.add_argument("--full", dest="episodes", action="store_const", const=10_000)
    size.add_argument("--quick", dest="episodes", action="store_const", const=1_000)
    parser.add_argument("--env", default="github")
    args = parser.parse_args()
    run(args.episodes, args.env)
