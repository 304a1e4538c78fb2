"""OpenEnv serving the shared SQLite workload. Runs under the peer's own virtual environment.

``--kind plain``: an ``Environment`` whose action is the workload's SELECT or UPDATE, for the
WebSocket step loop. ``--kind mcp``: an ``MCPEnvironment`` with the same two operations as
FastMCP tools, for OpenEnv's MCP tool client. Either way a reset copies the template file into
the session's own file, as OpenEnv's SQLite environments do.
Run: <peer python> _openenv_server.py --kind plain|mcp --template T --port P
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sqlite3
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
# bench/peers/openenv.py, next to this file, would shadow the openenv package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
_spec = importlib.util.spec_from_file_location("_workload", HERE / "_workload.py")
_workload = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_workload)
import uvicorn  # noqa: E402
from openenv.core.env_server import (  # noqa: E402
    Action,
    CallToolAction,
    CallToolObservation,
    Environment,
    Observation,
    State,
    create_fastapi_app,
)
from openenv.core.env_server.mcp_environment import MCPEnvironment  # noqa: E402

TEMPLATE = os.environ.get("SQLBENCH_TEMPLATE", "")
WORK = tempfile.mkdtemp(prefix="openenv-sqlbench-")


class SqlAction(Action):
    op: str
    id: int
    value: int = 0


class SqlObservation(Observation):
    result: dict[str, Any] | None = None


class _Episode:
    """One session's copy of the template file and its connection."""

    def __init__(self) -> None:
        self.conn: sqlite3.Connection | None = None
        self.path = ""
        self.state = State(episode_id="", step_count=0)

    def reset(self, episode_id: str | None) -> None:
        self.close()
        self.path = os.path.join(WORK, f"{uuid.uuid4().hex}.db")
        shutil.copyfile(TEMPLATE, self.path)
        self.conn = sqlite3.connect(self.path, check_same_thread=False)
        self.state = State(episode_id=episode_id or uuid.uuid4().hex, step_count=0)

    def run(self, op: str, key: int, value: int = 0) -> dict[str, Any]:
        self.state.step_count += 1
        if op == "get_item":
            return _workload.select(self.conn, key)
        out = _workload.update(self.conn, key, value)
        self.conn.commit()
        return out

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None
            os.unlink(self.path)


class SqlEnv(Environment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        super().__init__()
        self.episode = _Episode()

    def reset(self, seed=None, episode_id=None, **kwargs) -> SqlObservation:
        self.episode.reset(episode_id)
        return SqlObservation(done=False, reward=0.0)

    def step(self, action: SqlAction, timeout_s=None, **kwargs) -> SqlObservation:
        result = self.episode.run(action.op, action.id, action.value)
        return SqlObservation(result=result, done=False, reward=0.0)

    @property
    def state(self) -> State:
        return self.episode.state

    def close(self) -> None:
        self.episode.close()


class SqlMcpEnv(MCPEnvironment):
    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self) -> None:
        from fastmcp import FastMCP

        mcp = FastMCP("sqlbench")
        episode = _Episode()

        @mcp.tool
        def get_item(id: int) -> dict:
            """Read one item by id."""
            return episode.run("get_item", id)

        @mcp.tool
        def set_value(id: int, value: int) -> dict:
            """Set an item's value."""
            return episode.run("set_value", id, value)

        super().__init__(mcp)
        self.episode = episode

    def reset(self, seed=None, episode_id=None, **kwargs) -> Observation:
        self.episode.reset(episode_id)
        return Observation(done=False, reward=0.0)

    def _step_impl(self, action, timeout_s=None, **kwargs) -> Observation:
        return Observation(done=False, reward=0.0, metadata={"error": "only MCP tool calls"})

    @property
    def state(self) -> State:
        return self.episode.state

    def close(self) -> None:
        self.episode.close()
        super().close()


def main() -> None:
    global TEMPLATE
    parser = argparse.ArgumentParser()
    parser.add_argument("--kind", choices=["plain", "mcp"], required=True)
    parser.add_argument("--template", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--max-envs", type=int, default=4096)
    args = parser.parse_args()
    TEMPLATE = args.template
    if args.kind == "plain":
        app = create_fastapi_app(SqlEnv, SqlAction, SqlObservation,
                                 max_concurrent_envs=args.max_envs)
    else:
        app = create_fastapi_app(SqlMcpEnv, CallToolAction, CallToolObservation,
                                 max_concurrent_envs=args.max_envs)
    try:
        uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning",
                    ws_per_message_deflate=False)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
