"""The MCP SDK floor on the shared workload: a low-level ``Server`` with the same two tools,
calls run inline on one in-memory copy of the table, no validation, no isolation (run: python
_bare_mcp_sql.py --port P; endpoint /mcp)."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import _workload  # noqa: E402
import mcp_types as types  # noqa: E402
from baselines.bare_mcp import serve  # noqa: E402
from mcp.server import Server  # noqa: E402

TOOLS = [types.Tool(name="get_item", description="Read one item by id.",
                    input_schema={"type": "object", "properties": {"id": {"type": "integer"}}}),
         types.Tool(name="set_value", description="Set an item's value.",
                    input_schema={"type": "object", "properties": {
                        "id": {"type": "integer"}, "value": {"type": "integer"}}})]


def server() -> Server:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.execute(_workload.SCHEMA)
    _workload.seed(conn)

    async def list_tools(ctx: Any, params):
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams):
        args = params.arguments or {}
        if params.name == "get_item":
            data = _workload.select(conn, args["id"])
        else:
            data = _workload.update(conn, args["id"], args["value"])
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(data))],
                                    structured_content=data)

    return Server("bare-sqlbench", on_list_tools=list_tools, on_call_tool=call_tool)


if __name__ == "__main__":
    serve(server())
