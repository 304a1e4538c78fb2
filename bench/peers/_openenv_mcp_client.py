"""OpenEnv's own MCP tool client on the shared workload. Runs under the peer's virtual
environment and prints JSON: seconds per connect (open + reset) and per tool call.
Run: <peer python> _openenv_mcp_client.py --url http://127.0.0.1:P --calls N
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# bench/peers/openenv.py, next to this file, would shadow the openenv package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
_spec = importlib.util.spec_from_file_location("_workload", HERE / "_workload.py")
_workload = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_workload)
from openenv.core.mcp_client import MCPToolClient  # noqa: E402


async def measure(url: str, calls: int, connects: int) -> dict:
    opened = []
    for _ in range(connects):
        started = time.perf_counter()
        async with MCPToolClient(base_url=url) as env:
            await env.reset()
            name, args = _workload.action(0)
            await env.call_tool(name, **args)
        opened.append(time.perf_counter() - started)
    times = []
    async with MCPToolClient(base_url=url) as env:
        await env.reset()
        for i in range(calls + 10):
            name, args = _workload.action(i)
            started = time.perf_counter()
            await env.call_tool(name, **args)
            if i >= 10:
                times.append(time.perf_counter() - started)
    return {"connect": opened, "call": times}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--connects", type=int, default=10)
    args = parser.parse_args()
    print(json.dumps(asyncio.run(measure(args.url, args.calls, args.connects))))
