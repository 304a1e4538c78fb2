"""The MCP SDK floor: a trivial low-level ``Server`` with one ``echo`` tool, over streamable HTTP
on uvicorn (run: python bench/baselines/bare_mcp.py --port P; endpoint /mcp) or in memory
(:func:`server`)."""

from __future__ import annotations

import argparse
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server import Server
from starlette.responses import JSONResponse
from starlette.routing import Route

ECHO = types.Tool(name="echo", description="Echo the arguments.",
                  input_schema={"type": "object", "additionalProperties": True})


def server() -> Server:
    async def list_tools(ctx: Any, params):
        return types.ListToolsResult(tools=[ECHO])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams):
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")],
                                    structured_content=dict(params.arguments or {}))

    return Server("bare", on_list_tools=list_tools, on_call_tool=call_tool)


async def _health(request):
    return JSONResponse({"status": "ok"})


def serve(app_server: Server, argv: list[str] | None = None) -> None:
    """Serve ``app_server`` over streamable HTTP at /mcp on ``--port`` (plus /healthz)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    app = app_server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    app.router.routes.append(Route("/healthz", _health))
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    serve(server())
