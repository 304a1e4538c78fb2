"""Concurrency sweep on one hub process: 1, 16, 64, 256 and 1,024 live sessions at once.

Each session resets, takes ``steps`` steps and ends, all sessions started together. Over
WebSocket each session has its own connection (as a rollout worker would); over HTTP the
sessions share an aiohttp pool of up to 256 keep-alive connections. The hub runs as a
subprocess (``python -m agentworld hub --max-sessions 2048``); this process is only the client,
so the two never share a GIL. A session succeeds when every one of its requests did.
Run: python bench/concurrency.py [--quick|--full]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp  # noqa: E402
from _common import cpu_seconds, hub_process, pct, step_action, table, write_result  # noqa: E402

SWEEP = (1, 16, 64, 256, 1024)
# Steps only, as the peer's workload: no episode reaches its step limit (which runs the task's
# verifier), and a rollout worker holds the tool list after its first reset.
MAX_STEPS = 10_000
# Set to {} to drive a hub that predates ``include_tools`` (bench/profile_step.py --baseline).
RESET_EXTRA: dict[str, Any] = {"include_tools": False}


async def _ws_session(http: aiohttp.ClientSession, base: str, env_id: str, i: int, steps: int,
                      action: dict, lat: dict[str, list[float]], start: asyncio.Event) -> bool:
    await start.wait()
    try:
        async with http.ws_connect(base.replace("http", "ws") + "/v1/ws",
                                   max_msg_size=2**24) as ws:
            async def send(op: str, message: dict) -> None:
                t = time.perf_counter()
                await ws.send_str(json.dumps(message))
                reply = json.loads((await ws.receive()).data)
                if reply.get("op") == "error":
                    raise RuntimeError(reply["error"])
                lat[op].append(time.perf_counter() - t)

            await send("reset", {"op": "reset", "env_id": env_id, "seed": i,
                                 "max_steps": MAX_STEPS, **RESET_EXTRA})
            for _ in range(steps):
                await send("step", {"op": "step", "action": action})
            await send("close", {"op": "close"})
        return True
    except Exception:  # any failure counts against the success rate
        return False


async def _http_session(http: aiohttp.ClientSession, base: str, env_id: str, i: int, steps: int,
                        action: dict, lat: dict[str, list[float]], start: asyncio.Event) -> bool:
    await start.wait()

    async def call(op: str, method: str, path: str, body: Any = None) -> Any:
        t = time.perf_counter()
        async with http.request(method, base + path, json=body) as response:
            data = await response.read()
            if response.status >= 300:
                raise RuntimeError(f"{response.status} {data[:200]!r}")
        lat[op].append(time.perf_counter() - t)
        return json.loads(data) if data else None

    try:
        sid = (await call("reset", "POST", "/v1/sessions",
                          {"env_id": env_id, "seed": i, "max_steps": MAX_STEPS,
                           **RESET_EXTRA}))["session_id"]
        for _ in range(steps):
            await call("step", "POST", f"/v1/sessions/{sid}/step", {"action": action})
        await call("close", "DELETE", f"/v1/sessions/{sid}")
        return True
    except Exception:
        return False


async def sweep_point(base: str, pid: int, transport: str, env_id: str, n: int,
                      steps: int) -> dict[str, Any]:
    lat: dict[str, list[float]] = {"reset": [], "step": [], "close": []}
    action = step_action(env_id)
    connector = aiohttp.TCPConnector(limit=n if transport == "ws" else min(n, 256))
    timeout = aiohttp.ClientTimeout(total=300)
    one = _ws_session if transport == "ws" else _http_session
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as http:
        start = asyncio.Event()
        tasks = [asyncio.create_task(one(http, base, env_id, i, steps, action, lat, start))
                 for i in range(n)]
        await asyncio.sleep(0)
        cpu0, t0 = cpu_seconds(pid), time.perf_counter()
        start.set()
        results = await asyncio.gather(*tasks)
        wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
    ok = sum(results)
    steps_all = lat["step"]
    return {"transport": transport, "sessions": n, "success_rate": ok / n,
            "step_p50_ms": pct(steps_all, 50) * 1e3, "step_p99_ms": pct(steps_all, 99) * 1e3,
            "reset_p50_ms": pct(lat["reset"], 50) * 1e3,
            "reset_p99_ms": pct(lat["reset"], 99) * 1e3,
            "steps_per_s": len(steps_all) / wall, "wall_s": wall,
            "hub_cpu_ms_per_request": cpu * 1e3 / max(1, sum(len(v) for v in lat.values()))}


def run(quick: bool, env_id: str = "github", transports=("ws", "http")) -> dict[str, Any]:
    steps = 5 if quick else 20
    rows = []
    with hub_process(max_sessions=2048) as (base, proc):
        urllib.request.urlopen(f"{base}/v1/envs/{env_id}").read()  # build the template first
        for transport in transports:
            for n in SWEEP:
                rows.append(asyncio.run(sweep_point(base, proc.pid, transport, env_id, n, steps)))
    table(f"Concurrency sweep on one hub ({env_id}, {steps} steps a session)",
          ["transport", "sessions", "success", "step p50 ms", "step p99 ms", "reset p99 ms",
           "steps/s", "hub CPU ms/req"],
          [[r["transport"], r["sessions"], f"{r['success_rate']:.1%}", r["step_p50_ms"],
            r["step_p99_ms"], r["reset_p99_ms"], r["steps_per_s"], r["hub_cpu_ms_per_request"]]
           for r in rows])
    out = {"env": env_id, "steps_per_session": steps, "points": rows}
    write_result("concurrency", out)
    return out


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--env", default="github")
    args = parser.parse_args()
    run(quick=not args.full, env_id=args.env)
