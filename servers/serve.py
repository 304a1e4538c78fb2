"""Run one environment's MCP server over stdio or streamable HTTP."""

from __future__ import annotations

import anyio
import uvicorn
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette

from .environment import Environment
from .mcp_server import build_mcp_server

__all__ = ["serve_stdio", "http_app", "serve_http"]


async def _run_stdio(env: Environment, seed: int) -> None:
    server = build_mcp_server(env, seed=seed, one_client=True)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


def serve_stdio(env: Environment, *, seed: int = 0) -> None:
    """Serve ``env`` on this process's stdin/stdout until the client disconnects."""
    env.warm()  # build the template before the first request, so the first call is fast
    anyio.run(_run_stdio, env, seed)


def http_app(env: Environment, *, seed: int = 0, host: str = "127.0.0.1") -> Starlette:
    """A Starlette app serving ``env`` over streamable HTTP at ``/mcp``."""
    server = build_mcp_server(env, seed=seed)
    return server.streamable_http_app(streamable_http_path="/mcp", host=host)


def serve_http(env: Environment, *, host: str = "127.0.0.1", port: int = 8000,
               seed: int = 0) -> None:
    env.warm()
    uvicorn.run(http_app(env, seed=seed, host=host), host=host, port=port, log_level="info")
