"""Every benchmark in one run, then the targets against the ratios measured in that run.

    python bench/run_all.py --quick   # under 3 minutes on 2 cores
    python bench/run_all.py --full    # bigger samples, all reference envs, a 10,000-episode soak
    python bench/run_all.py --peers   # also OpenEnv 0.10.0 on a shared workload (bench/peers/)

Tables print as they come; JSON lands in bench/results/ (summary.json holds the targets).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import concurrency  # noqa: E402
import latency  # noqa: E402
import memory  # noqa: E402
import soak  # noqa: E402
from _common import table, write_result  # noqa: E402
from peers import openenv as peer_openenv  # noqa: E402


def targets(lat: dict, conc: dict, env_id: str) -> list[dict]:
    e, f, p = lat["envs"][env_id], lat["floors"], lat["peers"]
    ratio_reset = e["inproc_reset"]["p50_ms"] / e["clone_floor"]["p50_ms"]
    ratio_step = e["http_step"]["p50_ms"] / f["fastapi_http"]["p50_ms"]
    start_inproc = p["start"]["p50_ms"] / e["inproc_reset"]["p50_ms"]
    start_http = p["start"]["p50_ms"] / e["http_reset"]["p50_ms"]
    top = [r for r in conc["points"] if r["sessions"] == 1024]
    worst = min(r["success_rate"] for r in top) if top else 0.0
    return [
        {"target": "in-process reset / bare clone", "goal": "<= 2x", "measured": ratio_reset,
         "met": ratio_reset <= 2},
        {"target": "hub HTTP step / bare FastAPI round trip", "goal": "<= 1.5x",
         "measured": ratio_step, "met": ratio_step <= 1.5},
        {"target": "episode start: subprocess / in-process reset", "goal": ">= 1000x",
         "measured": start_inproc, "met": start_inproc >= 1000},
        {"target": "episode start: subprocess / hub HTTP reset", "goal": "(info)",
         "measured": start_http, "met": None},
        {"target": "1,024 concurrent sessions, success (ws and http)", "goal": "100%",
         "measured": worst, "met": worst == 1.0},
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the default")
    mode.add_argument("--full", action="store_true")
    parser.add_argument("--peers", action="store_true",
                        help="also run the peer hubs on the same workload (installs them once)")
    args = parser.parse_args()
    quick = not args.full
    started = time.perf_counter()
    env_ids = ["github"] if quick else latency.REFERENCE
    lat = latency.run(quick, env_ids)
    conc = concurrency.run(quick, env_id="github")
    mem = memory.run(quick)
    soaked = None if quick else soak.run(10_000)
    peer = peer_openenv.run(quick=quick) if args.peers else None
    rows = targets(lat, conc, "github")
    e, f = lat["envs"]["github"], lat["floors"]
    extra = [
        {"target": "WS step / bare FastAPI WS round trip", "goal": "(info)",
         "measured": e["ws_step"]["p50_ms"] / f["fastapi_ws"]["p50_ms"], "met": None},
        {"target": "hub MCP call / bare MCP SDK HTTP call", "goal": "(info)",
         "measured": e["mcp_step"]["p50_ms"] / f["mcp_http_call"]["p50_ms"], "met": None},
    ]
    if soaked is not None:
        extra.append({"target": "10,000-episode soak: no leaks, flat memory", "goal": "all",
                      "measured": float(soaked["passed"]), "met": soaked["passed"]})
    rows += extra
    if peer is not None:
        rows += [{**r, "target": f"peer: {r['target']}"} for r in peer["targets"]]
    elapsed = time.perf_counter() - started
    table(f"Targets (github, {'quick' if quick else 'full'} mode, {elapsed:.0f} s)",
          ["target", "goal", "measured", "met"],
          [[r["target"], r["goal"],
            f"{r['measured']:.1%}" if "succe" in r["target"] else f"{r['measured']:,.3f}x",
            {True: "yes", False: "NO", None: ""}[r["met"]]] for r in rows])
    write_result("summary", {"mode": "quick" if quick else "full", "elapsed_s": elapsed,
                             "load_avg": os.getloadavg(), "targets": rows,
                             "memory": mem["sessions"]})
    return 0 if all(r["met"] is not False for r in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
