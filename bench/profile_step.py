"""Where a hub step's server CPU goes: the tool's own work against the hub's overhead.

A hub subprocess serves N concurrent sessions (WebSocket, HTTP or MCP) that step the same cheap
read; ``py-spy`` samples every thread of the hub while they run, counting only samples that
hold the GIL (CPU spent in Python, not waiting). Each sample is put in the first
category whose frames it contains, so the tool's own work (its implementation and its SQLite
calls) is separated from argument and output validation, JSON, thread hops, the protocol stack,
metrics and the event loop. The hub's CPU time per step comes from ``/proc``.

Run: python bench/profile_step.py [--transport ws|http|mcp] [--sessions 64] [--steps 40]
         [--baseline REV]   # the same profile of an earlier revision first, then the ratios
     python bench/profile_step.py --transport mcp --sessions 1 --steps 1500 --baseline REV
         # one client's calls back to back: the case of the MCP latency target
Writes bench/results/profile_<transport>.json and the collapsed stacks next to it.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import RESULTS, cpu_seconds, hub_process, table, write_result  # noqa: E402
from concurrency import sweep_point  # noqa: E402

# (category, substrings of a frame that put a sample in it), checked in this order.
CATEGORIES: list[tuple[str, tuple[str, ...]]] = [
    ("tool work (implementation + SQLite)", ("servers/envs/", "servers/world/archetypes",
                                            "servers/world/features", "servers/imported",
                                            "servers/context.py")),
    ("reset clone (SQLite)", ("servers/database.py", "template_cache")),
    ("task verifier", ("servers/taskgen", "servers/tasks.py", "Episode._verify")),
    ("argument/output validation", ("_first_validation_error", "_scan (", "jsonschema",
                                    "_schema_check", "fastjsonschema", "validate")),
    ("savepoint + session bookkeeping", ("runtime.py",)),
    ("metrics", ("prometheus_client",)),
    ("JSON encode/decode", ("json/", "orjson", "_json", "dumps", "loads")),
    ("MCP SDK", ("mcp/", "mcp_types", "pydantic")),
    ("thread hop", ("to_thread", "concurrent/futures", "threading.py", "queue.py",
                    "run_in_executor", "_worker", "CapacityLimiter", "WorkerThread",
                    "run_sync_in_worker_thread")),
    ("protocol (uvicorn, websockets, starlette)", ("uvicorn", "websockets", "starlette",
                                                   "fastapi", "h11", "httptools")),
    ("event loop", ("asyncio/", "selectors.py", "anyio")),
]


def classify(stack: str) -> str:
    """The tool's work and validation win wherever they sit in the stack; anything else goes to
    the category of its innermost known frame (every stack starts in uvicorn's main loop)."""
    for name, needles in CATEGORIES[:4]:
        if any(n in stack for n in needles):
            return name
    for frame in reversed(stack.split(";")):
        for name, needles in CATEGORIES[4:]:
            if any(n in frame for n in needles):
                return name
    return "other (hub code)"


def read_collapsed(path: Path) -> tuple[collections.Counter, collections.Counter]:
    """Samples per category and per innermost frame, from py-spy's raw (collapsed) output."""
    by_cat: collections.Counter = collections.Counter()
    by_frame: collections.Counter = collections.Counter()
    for line in path.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        by_cat[classify(stack)] += int(count)
        by_frame[stack.split(";")[-1]] += int(count)
    return by_cat, by_frame


async def _mcp_load(base: str, env_id: str, sessions: int, steps: int) -> int:
    from _common import step_action
    from mcp import Client

    action = step_action(env_id)

    async def one() -> int:
        async with Client(f"{base}/envs/{env_id}/mcp") as client:
            for _ in range(steps):
                await client.call_tool(action["name"], action["arguments"])
        return steps

    return sum(await asyncio.gather(*(one() for _ in range(sessions))))


def run(transport: str, sessions: int, steps: int, env_id: str = "github",
        rate: int = 400, tag: str = "", tree: Path | None = None) -> dict[str, Any]:
    spy = shutil.which("py-spy")
    if spy is None:
        raise SystemExit("py-spy is not installed (pip install py-spy)")
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = f"profile_{transport}" + (f"_{tag}" if tag else "")
    raw = RESULTS / f"{name}.txt"
    with hub_process(max_sessions=4096, tree=tree) as (base, proc):
        urllib.request.urlopen(f"{base}/v1/envs/{env_id}").read()
        if transport == "mcp":
            asyncio.run(_mcp_load(base, env_id, 2, 5))  # start the env's MCP manager
        else:
            asyncio.run(sweep_point(base, proc.pid, transport, env_id, 8, 5))  # warm up
        sampler = subprocess.Popen([spy, "record", "-p", str(proc.pid), "-r", str(rate),
                                    "-f", "raw", "-o", str(raw), "--gil"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # py-spy attaches
        cpu0, t0 = cpu_seconds(proc.pid), time.perf_counter()
        if transport == "mcp":
            done = asyncio.run(_mcp_load(base, env_id, sessions, steps))
            point = {"steps": done}
        else:
            point = asyncio.run(sweep_point(base, proc.pid, transport, env_id, sessions, steps))
            done = sessions * (steps + 2)  # steps plus the reset and the close
        wall, cpu = time.perf_counter() - t0, cpu_seconds(proc.pid) - cpu0
        sampler.send_signal(signal.SIGINT)
        sampler.wait(30)
    by_cat, by_frame = read_collapsed(raw)
    total = sum(by_cat.values()) or 1
    cpu_ms = cpu * 1e3 / done
    shares = {name: by_cat[name] / total for name, _ in [*CATEGORIES, ("other (hub code)", ())]}
    tool_share = shares[CATEGORIES[0][0]]
    out = {"transport": transport, "sessions": sessions, "steps": steps, "requests": done,
           "wall_s": wall, "hub_cpu_ms_per_request": cpu_ms,
           "tool_ms_per_request": cpu_ms * tool_share,
           "overhead_ms_per_request": cpu_ms * (1 - tool_share), "shares": shares,
           "top_frames": [[f, c / total] for f, c in by_frame.most_common(15)], "point": point}
    table(f"Hub CPU per request by category ({transport}, {sessions} sessions)",
          ["category", "share", "ms per request"],
          [[k, f"{v:.1%}", v * cpu_ms] for k, v in shares.items()]
          + [["total (hub CPU, /proc)", "100%", cpu_ms]])
    table("Top innermost frames", ["frame", "share"],
          [[f[:90], f"{s:.1%}"] for f, s in out["top_frames"]])
    write_result(name, out)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--transport", choices=["ws", "http", "mcp"], default="ws")
    parser.add_argument("--sessions", type=int, default=64)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--env", default="github")
    parser.add_argument("--tag", default="", help="suffix for the result files (before/after)")
    parser.add_argument("--baseline", metavar="REV",
                        help="first profile this git revision the same way (tag 'baseline')")
    args = parser.parse_args()
    if args.baseline:
        import concurrency
        from _baseline import export_tree

        concurrency.RESET_EXTRA, extra = {}, concurrency.RESET_EXTRA  # an older hub's body
        before = run(args.transport, args.sessions, args.steps, args.env, tag="baseline",
                     tree=export_tree(args.baseline))
        concurrency.RESET_EXTRA = extra
    after = run(args.transport, args.sessions, args.steps, args.env, tag=args.tag)
    if args.baseline:
        table(f"Baseline {args.baseline} against the working tree (same run, ms per request)",
              ["category", "baseline", "now", "now / baseline"],
              [[k, before["shares"][k] * before["hub_cpu_ms_per_request"],
                after["shares"][k] * after["hub_cpu_ms_per_request"],
                (after["shares"][k] * after["hub_cpu_ms_per_request"])
                / max(1e-9, before["shares"][k] * before["hub_cpu_ms_per_request"])]
               for k in after["shares"]]
              + [["total (hub CPU)", before["hub_cpu_ms_per_request"],
                  after["hub_cpu_ms_per_request"],
                  after["hub_cpu_ms_per_request"] / before["hub_cpu_ms_per_request"]],
                 ["our overhead (all but the tool)", before["overhead_ms_per_request"],
                  after["overhead_ms_per_request"],
                  after["overhead_ms_per_request"] / before["overhead_ms_per_request"]]])
