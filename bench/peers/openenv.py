"""OpenEnv 0.10.0 and our hub on the same workload, in the same run, with the ratios.

The workload (``_workload.py``): a 1,000-row SQLite table; steps alternate a SELECT and an
UPDATE of one row by key; a reset starts from a copy of the template (OpenEnv copies the file,
we clone it in process). OpenEnv is installed into its own virtual environment on first use and
cached (``--venv``, default ``~/.cache/agentworld/peers/openenv-0.10.0``), so its dependencies
never meet ours. Every server runs as a subprocess on a free loopback port; this process is only
the client, the same aiohttp code for both WebSocket protocols.

Measured, each side against the other:

* WebSocket step and reset latency, one client (p50);
* MCP tool call latency: ours through ``/envs/{id}/mcp`` and ``/sessions/{token}/mcp`` with the
  official MCP client, the peer with its own MCP tool client; plus a bare MCP SDK server with the
  same two tools, the floor for ours;
* steps/s and server CPU per step at N = 16, 64 and 256 concurrent sessions (20 steps each),
  the sessions spread over three client processes so that the client is not what saturates;
* the success rate of 1,024 concurrent sessions (5 steps each).

Latencies are measured in rounds, each side in turn, and pooled; each load level runs twice on
each side (ours, peer, ours, peer) and each side keeps its best run. The machine's load average
at the start and the end is printed with the ratios.

Run: python bench/peers/openenv.py [--quick]
Writes bench/results/peer_openenv.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import _workload  # noqa: E402
import aiohttp  # noqa: E402
from _common import (  # noqa: E402
    PYTHON,
    child_env,
    cpu_seconds,
    free_port,
    pct,
    table,
    wait_http,
    write_result,
)

VERSION = "0.10.0"
CLIENT_PROCESSES = 3
DEFAULT_VENV = Path("~/.cache/agentworld/peers").expanduser() / f"openenv-{VERSION}"
ENV_ID = "sqlbench"


# -- the peer's virtual environment --------------------------------------------------------------
def ensure_venv(venv: Path) -> Path:
    """The peer's Python, installing OpenEnv (pinned) into ``venv`` the first time."""
    python = venv / "bin" / "python"
    probe = "import importlib.metadata as m; print(m.version('openenv'))"
    if python.exists():
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True)
        if done.returncode == 0 and done.stdout.strip() == VERSION:
            return python
    print(f"installing openenv=={VERSION} into {venv} (once)", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", f"openenv=={VERSION}", "aiohttp"],
                   check=True)
    return python


# -- servers -------------------------------------------------------------------------------------
class Server:
    """A server subprocess on a free port, up once ``health`` answers."""

    def __init__(self, argv: list[str], health: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen([*argv, "--port", str(self.port)], cwd=HERE,
                                     env=env or child_env(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        try:
            wait_http(self.base + health, timeout=180, proc=self.proc)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# -- the two WebSocket protocols -----------------------------------------------------------------
@dataclass(frozen=True)
class Protocol:
    name: str
    path: str
    reset: Callable[[int], dict]
    step: Callable[[str, dict], dict]
    is_error: Callable[[dict], bool]


OURS = Protocol(
    "agentworld", "/v1/ws",
    reset=lambda i: {"op": "reset", "env_id": ENV_ID, "seed": i, "max_steps": 10_000,
                     "include_tools": False},
    step=lambda name, args: {"op": "step", "action": {"name": name, "arguments": args}},
    is_error=lambda reply: reply.get("op") == "error" or not reply.get("info", {}).get("ok", 1))
PEER = Protocol(
    "openenv", "/ws",
    reset=lambda i: {"type": "reset", "data": {"seed": i}},
    step=lambda name, args: {"type": "step", "data": {"op": name, **args}},
    is_error=lambda reply: reply.get("type") == "error")
PROTOCOLS = {p.name: p for p in (OURS, PEER)}


async def _session(http: aiohttp.ClientSession, base: str, proto: Protocol, i: int, steps: int,
                   lat: dict[str, list[float]]) -> bool:
    try:
        async with http.ws_connect(base.replace("http", "ws") + proto.path,
                                   max_msg_size=2**24) as ws:
            async def send(kind: str, message: dict) -> None:
                started = time.perf_counter()
                await ws.send_str(json.dumps(message))
                reply = json.loads((await ws.receive()).data)
                if proto.is_error(reply):
                    raise RuntimeError(reply)
                lat[kind].append(time.perf_counter() - started)

            await send("reset", proto.reset(i))
            for k in range(steps):
                await send("step", proto.step(*_workload.action(i + k)))
        return True
    except Exception:  # any failure counts against the success rate
        return False


async def _sweep_part(base: str, proto_name: str, first: int, count: int, steps: int,
                      start_at: float) -> dict[str, Any]:
    proto = PROTOCOLS[proto_name]
    lat: dict[str, list[float]] = {"reset": [], "step": []}
    connector = aiohttp.TCPConnector(limit=count)
    async with aiohttp.ClientSession(connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=600)) as http:
        await asyncio.sleep(max(0.0, start_at - time.time()))
        results = await asyncio.gather(*(_session(http, base, proto, i, steps, lat)
                                         for i in range(first, first + count)))
    return {"ok": sum(results), "lat": lat, "end": time.time()}


def _sweep_worker(args: tuple) -> dict[str, Any]:
    return asyncio.run(_sweep_part(*args))


def sweep(server: Server, proto: Protocol, n: int, steps: int,
          clients: int = CLIENT_PROCESSES) -> dict[str, Any]:
    """``n`` sessions at once, spread over ``clients`` client processes: one Python client
    saturates before either server does, and then measures itself."""
    clients = max(1, min(clients, n // 8))
    shares = [n // clients + (k < n % clients) for k in range(clients)]
    firsts = [sum(shares[:k]) for k in range(clients)]
    start_at = time.time() + 1.5  # every worker connects at once
    cpu0 = cpu_seconds(server.proc.pid)
    with multiprocessing.get_context("fork").Pool(clients) as pool:
        parts = pool.map(_sweep_worker, [(server.base, proto.name, first, share, steps, start_at)
                                         for first, share in zip(firsts, shares, strict=True)])
    cpu = cpu_seconds(server.proc.pid) - cpu0
    wall = max(part["end"] for part in parts) - start_at
    steps_all = [t for part in parts for t in part["lat"]["step"]]
    resets = sum(len(part["lat"]["reset"]) for part in parts)
    return {"sessions": n, "clients": clients,
            "success_rate": sum(part["ok"] for part in parts) / n,
            "steps_per_s": len(steps_all) / wall, "step_p50_ms": pct(steps_all, 50) * 1e3,
            "step_p99_ms": pct(steps_all, 99) * 1e3,
            "cpu_ms_per_request": cpu * 1e3 / max(1, len(steps_all) + resets)}


async def latency(server: Server, proto: Protocol, n: int) -> dict[str, list[float]]:
    lat: dict[str, list[float]] = {"reset": [], "step": []}
    async with aiohttp.ClientSession() as http:
        for i in range(n // 10):  # resets: short sessions
            lat_one: dict[str, list[float]] = {"reset": [], "step": []}
            await _session(http, server.base, proto, i, 0, lat_one)
            lat["reset"] += lat_one["reset"]
        ok = await _session(http, server.base, proto, 0, n + 20, lat)
    if not ok:
        raise RuntimeError(f"{proto.name}: the latency session failed")
    return {"step": lat["step"][20:], "reset": lat["reset"]}


# -- MCP -----------------------------------------------------------------------------------------
async def _mcp(url: str, calls: int, connects: int = 3) -> dict[str, list[float]]:
    from mcp import Client

    opened, times = [], []
    for _ in range(connects):
        started = time.perf_counter()
        async with Client(url) as client:
            await client.call_tool(*_workload.action(0))
        opened.append(time.perf_counter() - started)
    async with Client(url) as client:
        for i in range(calls + 10):
            started = time.perf_counter()
            result = await client.call_tool(*_workload.action(i))
            if result.is_error:
                raise RuntimeError(f"MCP call failed: {result}")
            if i >= 10:
                times.append(time.perf_counter() - started)
    return {"call": times, "connect": opened}


async def _session_mcp_url(base: str) -> str:
    async with aiohttp.ClientSession() as http, http.post(
            base + "/v1/sessions", json={"env_id": ENV_ID, "max_steps": 10_000,
                                         "include_tools": False}) as response:
        return base + (await response.json())["mcp_url"]


def peer_mcp(peer_python: Path, base: str, calls: int, connects: int = 3) -> dict:
    done = subprocess.run([str(peer_python), str(HERE / "_openenv_mcp_client.py"), "--url", base,
                           "--calls", str(calls), "--connects", str(connects)],
                          capture_output=True, text=True, check=True, timeout=600)
    return json.loads(done.stdout.strip().splitlines()[-1])


# -- the run -------------------------------------------------------------------------------------
def _peer_server(python: Path, kind: str, template: str) -> Server:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return Server([str(python), str(HERE / "_openenv_server.py"), "--kind", kind,
                   "--template", template], "/health", env=env)


def _pool(parts: list[dict[str, list[float]]]) -> dict[str, float]:
    """p50 in ms of each kind of sample, pooled over the rounds."""
    return {f"{kind}_p50_ms": pct([t for part in parts for t in part[kind]], 50) * 1e3
            for kind in parts[0]}


def _interleaved(servers: dict[str, Server], peer_python: Path, quick: bool) -> dict[str, Any]:
    """Latencies in rounds, each side in turn, so that a change in the machine's load between
    two measurements falls on both sides alike; samples pooled over the rounds."""
    rounds = 3 if quick else 5
    steps = (300 if quick else 1000) // rounds
    calls = (100 if quick else 300) // rounds
    ours, bare, plain, mcp = (servers[k] for k in ("ours", "bare", "peer", "peer_mcp"))
    session_url = asyncio.run(_session_mcp_url(ours.base))
    parts: dict[str, list] = {k: [] for k in ("ours", "peer", "mcp_env", "mcp_session", "bare",
                                               "peer_mcp")}
    for _ in range(rounds):
        parts["ours"].append(asyncio.run(latency(ours, OURS, steps)))
        parts["peer"].append(asyncio.run(latency(plain, PEER, steps)))
        parts["mcp_env"].append(asyncio.run(_mcp(f"{ours.base}/envs/{ENV_ID}/mcp", calls)))
        parts["bare"].append(asyncio.run(_mcp(f"{bare.base}/mcp", calls)))
        parts["mcp_session"].append(asyncio.run(_mcp(session_url, calls, connects=0)))
        parts["peer_mcp"].append(peer_mcp(peer_python, mcp.base, calls))
    return {k: _pool(v) for k, v in parts.items()}


def _sweeps(ours: Server, peer: Server, repeats: int = 2) -> tuple[list, list]:
    """Each load level on both sides back to back, ``repeats`` times (ours, peer, ours, peer);
    each side keeps its best run: on a shared machine a run can only lose to other load."""
    mine, theirs = [], []
    for n, steps in ((16, 20), (64, 20), (256, 20), (1024, 5)):
        runs: dict[str, list] = {"ours": [], "peer": []}
        for _ in range(repeats):
            runs["ours"].append(sweep(ours, OURS, n, steps))
            runs["peer"].append(sweep(peer, PEER, n, steps))
        for side, out in (("ours", mine), ("peer", theirs)):
            best = max(runs[side], key=lambda r: (r["success_rate"], r["steps_per_s"]))
            out.append({**best, "runs": [r["steps_per_s"] for r in runs[side]],
                        "worst_success_rate": min(r["success_rate"] for r in runs[side])})
    return mine, theirs


def run(quick: bool = True, venv: Path = DEFAULT_VENV) -> dict[str, Any]:
    peer_python = ensure_venv(venv)
    out: dict[str, Any] = {"peer_name": f"OpenEnv {VERSION}", "load_avg_start": os.getloadavg()}
    servers: dict[str, Server] = {}
    with tempfile.TemporaryDirectory() as tmp:
        template = _workload.write_template(str(Path(tmp) / "template.db"))
        try:
            servers["ours"] = Server([PYTHON, str(HERE / "_agentworld_hub.py")], "/healthz")
            servers["bare"] = Server([PYTHON, str(HERE / "_bare_mcp_sql.py")], "/healthz")
            servers["peer"] = _peer_server(peer_python, "plain", template)
            servers["peer_mcp"] = _peer_server(peer_python, "mcp", template)
            lat = _interleaved(servers, peer_python, quick)
            mine, theirs = _sweeps(servers["ours"], servers["peer"])
        finally:
            for server in servers.values():
                server.close()
    out["ours"] = {**lat["ours"], "mcp_env": lat["mcp_env"], "mcp_session": lat["mcp_session"],
                   "sweep": mine}
    out["peer"] = {**lat["peer"], "mcp": lat["peer_mcp"], "sweep": theirs}
    out["bare_mcp"] = lat["bare"]
    out["load_avg_end"] = os.getloadavg()
    out["targets"] = targets(out)
    report(out)
    write_result("peer_openenv", out)
    return out


def _at(side: dict, n: int) -> dict:
    return next(p for p in side["sweep"] if p["sessions"] == n)


def targets(out: dict[str, Any]) -> list[dict[str, Any]]:
    o, p, b = out["ours"], out["peer"], out["bare_mcp"]
    rows = [
        ("WS step p50, ours / OpenEnv", o["step_p50_ms"] / p["step_p50_ms"], "<= 0.5", 0.5),
        ("reset p50, ours / OpenEnv", o["reset_p50_ms"] / p["reset_p50_ms"], "<= 1", 1.0),
        ("MCP call p50, ours (/envs) / OpenEnv MCP tool client",
         o["mcp_env"]["call_p50_ms"] / p["mcp"]["call_p50_ms"], "<= 0.333", 1 / 3),
        ("MCP call p50, /envs/{id}/mcp / bare MCP SDK",
         o["mcp_env"]["call_p50_ms"] / b["call_p50_ms"], "<= 1.2", 1.2),
        ("MCP call p50, /sessions/{token}/mcp / bare MCP SDK",
         o["mcp_session"]["call_p50_ms"] / b["call_p50_ms"], "<= 1.2", 1.2),
        ("MCP connect p50, /envs/{id}/mcp / bare MCP SDK",
         o["mcp_env"]["connect_p50_ms"] / b["connect_p50_ms"], "<= 1.5", 1.5),
    ]
    out_rows = [{"target": t, "measured": v, "goal": g, "met": v <= limit}
                for t, v, g, limit in rows]
    for n in (16, 64, 256):
        ratio = _at(o, n)["steps_per_s"] / _at(p, n)["steps_per_s"]
        goal = n == 256
        out_rows.append({"target": f"steps/s at {n} sessions, ours / OpenEnv", "measured": ratio,
                         "goal": ">= 2" if goal else "(info)", "met": ratio >= 2 if goal else None})
    cpu = _at(o, 256)["cpu_ms_per_request"] / _at(p, 256)["cpu_ms_per_request"]
    out_rows.append({"target": "server CPU per request at 256, ours / OpenEnv", "measured": cpu,
                     "goal": "<= 1", "met": cpu <= 1})
    for name, side in (("ours", o), ("OpenEnv", p)):
        rate = _at(side, 1024)["worst_success_rate"]
        out_rows.append({"target": f"1,024 concurrent sessions succeed ({name})",
                         "measured": rate, "goal": "100%" if name == "ours" else "(info)",
                         "met": rate == 1.0 if name == "ours" else None})
    return out_rows


def report(out: dict[str, Any]) -> None:
    o, p, b = out["ours"], out["peer"], out["bare_mcp"]
    rows = [["WS step p50 ms", o["step_p50_ms"], p["step_p50_ms"]],
            ["WS reset p50 ms", o["reset_p50_ms"], p["reset_p50_ms"]],
            ["MCP call p50 ms (/envs; peer: its MCP tool client)", o["mcp_env"]["call_p50_ms"],
             p["mcp"]["call_p50_ms"]],
            ["MCP call p50 ms (/sessions/{token})", o["mcp_session"]["call_p50_ms"], "-"],
            ["MCP connect p50 ms", o["mcp_env"]["connect_p50_ms"], p["mcp"]["connect_p50_ms"]],
            ["bare MCP SDK: call / connect p50 ms", b["call_p50_ms"], b["connect_p50_ms"]]]
    for n in (16, 64, 256, 1024):
        a, c = _at(o, n), _at(p, n)
        rows.append([f"N={n}: steps/s", a["steps_per_s"], c["steps_per_s"]])
        rows.append([f"N={n}: success (worst run)", f"{a['worst_success_rate']:.1%}",
                     f"{c['worst_success_rate']:.1%}"])
        rows.append([f"N={n}: server CPU ms/request", a["cpu_ms_per_request"],
                     c["cpu_ms_per_request"]])
    table(f"agentworld vs {out['peer_name']} (same workload, same run)",
          ["measure", "agentworld", "OpenEnv"], rows)
    table("Ratios (load average at start {:.1f}, end {:.1f})".format(
              out["load_avg_start"][0], out["load_avg_end"][0]),
          ["target", "goal", "measured", "met"],
          [[r["target"], r["goal"], f"{r['measured']:.1%}" if "succeed" in r["target"]
            else f"{r['measured']:.3f}", {True: "yes", False: "NO", None: ""}[r["met"]]]
           for r in out["targets"]])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples")
    parser.add_argument("--venv", type=Path, default=DEFAULT_VENV,
                        help="where the peer's virtual environment is cached")
    args = parser.parse_args()
    run(quick=args.quick, venv=args.venv)
