"""The peers' design, written for comparison: one FastAPI + MCP server process per episode,
over its own copy of one environment's SQLite file (as OpenEnv serves AWM's environments).

As a server (the child): ``python bench/baselines/subprocess_per_episode.py --env ID --db FILE
--port P`` copies FILE to a private temp file, opens it, and serves ``POST /reset``,
``POST /step`` and MCP at ``/mcp`` until killed. The tools are agentworld's own (the same
runtime and validation), so the difference measured is the process-per-episode design.

As a library (the parent): :func:`run_episode` spawns a child, waits for its first response,
resets, steps once, and kills it, timing each phase.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent.parent))

from _common import PYTHON, ROOT, child_env, free_port, wait_http  # noqa: E402


class _FileTemplate:
    """Stands in for the in-memory template: every clone is the episode's own file."""

    def __init__(self, path: str) -> None:
        self.path = path

    def clone(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA foreign_keys = ON")
        return conn


def _serve(env_id: str, db_file: str, port: int) -> None:
    import uvicorn
    from fastapi import FastAPI

    from agentworld.servers import Session, default_catalog
    from agentworld.servers.mcp_server import build_mcp_server

    work = tempfile.mkdtemp(prefix="episode-")
    private = shutil.copy(db_file, os.path.join(work, "episode.db"))
    env = default_catalog().load(env_id)
    env._template = _FileTemplate(private)  # the per-episode file, not an in-memory clone
    mcp_app = build_mcp_server(env, one_client=True).streamable_http_app(
        streamable_http_path="/mcp", host="127.0.0.1")
    app = FastAPI(lifespan=mcp_app.router.lifespan_context)
    state: dict[str, Any] = {}

    @app.get("/healthz")
    async def healthz():
        return {"status": "ok"}

    @app.post("/reset")
    async def reset():
        state["session"] = Session(env)
        return {"observation": env.manifest.title, "tools": env.tool_list()}

    @app.post("/step")
    async def step(action: dict):
        result = state["session"].call(action["name"], action.get("arguments"))
        return {"observation": json.dumps(result.payload()), "ok": result.ok}

    app.mount("/", mcp_app)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def write_template_file(env_id: str, path: str) -> str:
    """The environment's template database as a SQLite file (what each episode copies)."""
    from agentworld.servers import default_catalog

    image = default_catalog().load(env_id).warm().template.image
    conn = sqlite3.connect(":memory:")
    conn.deserialize(image)
    disk = sqlite3.connect(path)
    conn.backup(disk)
    disk.close()
    conn.close()
    return path


def _post(url: str, body: Any) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def run_episode(env_id: str, db_file: str, action: dict[str, Any]) -> dict[str, float]:
    """One episode the peers' way. Returns seconds for start (spawn to first reset answer),
    step, and the whole episode including the kill, plus the child's CPU seconds and peak RSS."""
    port = free_port()
    t0 = time.perf_counter()
    proc = subprocess.Popen([PYTHON, str(HERE), "--env", env_id, "--db", db_file,
                             "--port", str(port)], cwd=ROOT, env=child_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(base + "/healthz", proc=proc)
        _post(base + "/reset", {})
        t_start = time.perf_counter() - t0
        t1 = time.perf_counter()
        reply = _post(base + "/step", action)
        t_step = time.perf_counter() - t1
        if not reply["ok"]:
            raise RuntimeError(f"baseline step failed: {reply}")
    finally:
        proc.kill()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = status
    return {"start_s": t_start, "step_s": t_step, "episode_s": time.perf_counter() - t0,
            "cpu_s": usage.ru_utime + usage.ru_stime, "peak_rss_mib": usage.ru_maxrss / 1024}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", required=True)
    parser.add_argument("--db", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    _serve(args.env, args.db, args.port)
