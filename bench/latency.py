"""Reset and step latency in every mode, against the physical floors measured in the same run.

Modes: in process (``Episode`` and the Gymnasium env), the hub over HTTP keep-alive
(``http.client``), over WebSocket (``/v1/ws``), and MCP streamable HTTP (``/envs/{id}/mcp`` with
the official ``mcp`` Client). Floors: a bare SQLite clone (``Connection.deserialize`` of the
template image), a bare FastAPI round trip and a bare MCP SDK round trip, each with the same
client as the mode it bounds. Peers: one FastAPI+MCP server process per episode.

Servers run as subprocesses; this process is only the client.
Run: python bench/latency.py [--quick|--full] [--env github]
"""

from __future__ import annotations

import argparse
import http.client
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio  # noqa: E402
from _common import (  # noqa: E402
    hub_process,
    server_process,
    step_action,
    summary_ms,
    table,
    timed,
    write_result,
)

REFERENCE = ["airline", "github", "notion"]


class Http:
    """One keep-alive connection, JSON in and out."""

    def __init__(self, base: str) -> None:
        parts = urlsplit(base)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port)

    def call(self, method: str, path: str, body: Any = None) -> Any:
        payload = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"} if payload is not None else {}
        self.conn.request(method, path, body=payload, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
        return json.loads(data) if data else None

    def close(self) -> None:
        self.conn.close()


# -- floors ------------------------------------------------------------------------------------
def floor_clone(env_id: str, n: int) -> list[float]:
    from agentworld.servers import default_catalog

    image = default_catalog().load(env_id).warm().template.image

    def clone() -> None:
        conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
        conn.deserialize(image)
        conn.close()

    return timed(clone, n, warmup=20)


def floor_fastapi(n: int) -> dict[str, list[float]]:
    import websockets.sync.client as wsc

    body = {"action": {"name": "get_flight", "arguments": {"flight_id": "MW101-2026-03-05"}}}
    with server_process([str(Path(__file__).parent / "baselines" / "bare_fastapi.py")]) as (
            base, _):
        client = Http(base)
        http_rt = timed(lambda: client.call("POST", "/echo", body), n, warmup=50)
        client.close()
        with wsc.connect(base.replace("http", "ws") + "/ws") as ws:
            text = json.dumps({"op": "step", **body})

            def rt() -> None:
                ws.send(text)
                ws.recv()

            ws_rt = timed(rt, n, warmup=50)
    return {"http": http_rt, "ws": ws_rt}


async def _mcp_loop(url: str, tool: str, arguments: dict, n: int) -> dict[str, list[float]]:
    from mcp import Client

    connects, calls = [], []
    for _ in range(3):
        t = time.perf_counter()
        async with Client(url) as client:
            await client.call_tool(tool, arguments)
            connects.append(time.perf_counter() - t)
    async with Client(url) as client:
        for i in range(n + 10):
            t = time.perf_counter()
            result = await client.call_tool(tool, arguments)
            if i >= 10:
                calls.append(time.perf_counter() - t)
            if result.is_error:
                raise RuntimeError(f"MCP call failed: {result}")
    return {"connect": connects, "call": calls}


def floor_mcp(n: int) -> dict[str, list[float]]:
    from baselines.bare_mcp import server

    with server_process([str(Path(__file__).parent / "baselines" / "bare_mcp.py")]) as (base, _):
        remote = anyio.run(_mcp_loop, base + "/mcp", "echo", {"x": 1}, n)

    async def in_memory() -> list[float]:
        from mcp import Client

        async with Client(server()) as client:
            out = []
            for _ in range(n):
                t = time.perf_counter()
                await client.call_tool("echo", {"x": 1})
                out.append(time.perf_counter() - t)
            return out

    return {"http_call": remote["call"], "http_connect": remote["connect"],
            "memory_call": anyio.run(in_memory)}


# -- agentworld modes --------------------------------------------------------------------------
def in_process(env_id: str, n: int) -> dict[str, list[float]]:
    from agentworld.gym_api.env import AgentWorldEnv
    from agentworld.hub.episode import Episode, pick_task
    from agentworld.servers import default_catalog

    env = default_catalog().load(env_id).warm()
    action = step_action(env_id)
    counter = iter(range(10**9))

    def reset() -> None:
        seed = next(counter)
        Episode(env, task=pick_task(env, task_id=None, seed=seed), seed=seed).close()

    episode = Episode(env, task=None, max_steps=10**6)
    resets = timed(reset, n, warmup=20)
    steps = timed(lambda: episode.step(action), n, warmup=20)
    episode.close()
    genv = AgentWorldEnv(env_id, max_episode_steps=10**6)
    gym_resets = timed(lambda: genv.reset(seed=next(counter)), n, warmup=10)
    genv.reset(seed=0)
    gym_steps = timed(lambda: genv.step(action), n, warmup=10)
    genv.close()
    return {"reset": resets, "step": steps, "gym_reset": gym_resets, "gym_step": gym_steps}


def hub_http(base: str, env_id: str, n: int) -> dict[str, list[float]]:
    client = Http(base)
    action = {"action": step_action(env_id)}
    resets, ends = [], []
    for seed in range(n + 10):
        t = time.perf_counter()
        sid = client.call("POST", "/v1/sessions", {"env_id": env_id, "seed": seed})["session_id"]
        t1 = time.perf_counter()
        client.call("DELETE", f"/v1/sessions/{sid}")
        if seed >= 10:
            resets.append(t1 - t)
            ends.append(time.perf_counter() - t1)
    sid = client.call("POST", "/v1/sessions",
                      {"env_id": env_id, "max_steps": 10_000})["session_id"]
    steps = timed(lambda: client.call("POST", f"/v1/sessions/{sid}/step", action), n, warmup=20)
    client.call("DELETE", f"/v1/sessions/{sid}")
    client.close()
    return {"reset": resets, "step": steps, "end": ends}


def hub_ws(base: str, env_id: str, n: int) -> dict[str, list[float]]:
    import websockets.sync.client as wsc

    action = step_action(env_id)
    with wsc.connect(base.replace("http", "ws") + "/v1/ws", max_size=2**24) as ws:
        def send(message: dict) -> dict:
            ws.send(json.dumps(message))
            reply = json.loads(ws.recv())
            if reply["op"] == "error":
                raise RuntimeError(reply)
            return reply

        counter = iter(range(10**9))
        resets = timed(lambda: send({"op": "reset", "env_id": env_id, "seed": next(counter)}),
                       n, warmup=10)
        send({"op": "reset", "env_id": env_id, "max_steps": 10_000})
        steps = timed(lambda: send({"op": "step", "action": action}), n, warmup=20)
    return {"reset": resets, "step": steps}


def hub_mcp(base: str, env_id: str, n: int) -> dict[str, list[float]]:
    action = step_action(env_id)
    return anyio.run(_mcp_loop, f"{base}/envs/{env_id}/mcp", action["name"],
                     action["arguments"], n)


def peers(env_id: str, episodes: int) -> list[dict[str, float]]:
    from baselines.subprocess_per_episode import run_episode, write_template_file

    with tempfile.TemporaryDirectory() as tmp:
        db = write_template_file(env_id, str(Path(tmp) / "template.db"))
        return [run_episode(env_id, db, step_action(env_id)) for _ in range(episodes)]


def run(quick: bool, envs: list[str]) -> dict[str, Any]:
    n = 300 if quick else 2000
    n_mcp = 100 if quick else 500
    out: dict[str, Any] = {"n": n, "floors": {}, "envs": {}}
    floors_http = floor_fastapi(n)
    floors_mcp = floor_mcp(n_mcp)
    out["floors"] = {"fastapi_http": summary_ms(floors_http["http"]),
                     "fastapi_ws": summary_ms(floors_http["ws"]),
                     "mcp_http_call": summary_ms(floors_mcp["http_call"]),
                     "mcp_http_connect": summary_ms(floors_mcp["http_connect"]),
                     "mcp_memory_call": summary_ms(floors_mcp["memory_call"])}
    with hub_process() as (base, _):
        for env_id in envs:
            local = in_process(env_id, n)
            remote = hub_http(base, env_id, n)
            ws = hub_ws(base, env_id, n)
            mcp = hub_mcp(base, env_id, n_mcp)
            out["envs"][env_id] = {
                "clone_floor": summary_ms(floor_clone(env_id, n)),
                **{f"inproc_{k}": summary_ms(v) for k, v in local.items()},
                **{f"http_{k}": summary_ms(v) for k, v in remote.items()},
                **{f"ws_{k}": summary_ms(v) for k, v in ws.items()},
                "mcp_connect": summary_ms(mcp["connect"]), "mcp_step": summary_ms(mcp["call"])}
    peer_env = envs[0]
    runs = peers(peer_env, 3 if quick else 10)
    out["peers"] = {"env": peer_env,
                    "start": summary_ms([r["start_s"] for r in runs]),
                    "step": summary_ms([r["step_s"] for r in runs]),
                    "episode": summary_ms([r["episode_s"] for r in runs]),
                    "cpu_s": sum(r["cpu_s"] for r in runs) / len(runs),
                    "peak_rss_mib": max(r["peak_rss_mib"] for r in runs)}
    report(out)
    write_result("latency", out)
    return out


def report(out: dict[str, Any]) -> None:
    f = out["floors"]
    rows = [[name, v["p50_ms"], v["p99_ms"], 1e3 / v["mean_ms"]] for name, v in f.items()]
    table("Floors (same run)", ["floor", "p50 ms", "p99 ms", "ops/s (1 client)"], rows)
    rows = []
    for env_id, r in out["envs"].items():
        for key in ("clone_floor", "inproc_reset", "inproc_step", "inproc_gym_reset",
                    "inproc_gym_step", "http_reset", "http_step", "http_end", "ws_reset",
                    "ws_step", "mcp_connect", "mcp_step"):
            v = r[key]
            rows.append([env_id, key, v["p50_ms"], v["p99_ms"], 1e3 / v["mean_ms"]])
    table("Reset and step latency by mode", ["env", "mode", "p50 ms", "p99 ms",
                                             "ops/s (1 client)"], rows)
    p = out["peers"]
    table(f"Peers' design: one FastAPI+MCP process per episode ({p['env']})",
          ["phase", "p50 ms", "p99 ms"],
          [[k, p[k]["p50_ms"], p[k]["p99_ms"]] for k in ("start", "step", "episode")]
          + [["cpu s / episode", p["cpu_s"], ""], ["peak RSS MiB", p["peak_rss_mib"], ""]])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--env", action="append", help="environment id (repeatable)")
    args = parser.parse_args()
    run(quick=not args.full, envs=args.env or (["github"] if not args.full else REFERENCE))
