"""The MCP server over the SDK's in-memory transport, on the tiny fixture environment."""

import anyio
import pytest
from mcp import Client

from agentworld.servers.mcp_server import build_mcp_server


def run(coro_fn, *args):
    return anyio.run(coro_fn, *args)


def test_tools_are_listed_with_schemas_and_annotations(tiny_env):
    async def go():
        async with Client(build_mcp_server(tiny_env), mode="legacy") as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(go)}
    assert set(tools) == set(tiny_env.tools.names())
    listed = tools["list_items"]
    assert listed.input_schema == tiny_env.tool("list_items").input_schema
    assert listed.output_schema == tiny_env.tool("list_items").output_schema
    assert listed.annotations.read_only_hint is True
    assert tools["add_item"].annotations.read_only_hint is False


def test_call_returns_structured_content_and_text(tiny_env):
    async def go():
        async with Client(build_mcp_server(tiny_env), mode="legacy") as client:
            return await client.call_tool("add_item", {"list_id": "lst_home", "title": "x"})

    result = run(go)
    assert not result.is_error
    assert result.structured_content["item"]["title"] == "x"
    assert '"title": "x"' in result.content[0].text


@pytest.mark.parametrize("name, arguments, code", [
    ("add_item", {"list_id": 1}, "VALIDATION_ERROR"),
    ("complete_item", {"item_id": "itm_missing"}, "NOT_FOUND"),
    ("no_such_tool", {}, "UNKNOWN_TOOL"),
])
def test_tool_failures_are_error_results_with_codes(tiny_env, name, arguments, code):
    async def go():
        async with Client(build_mcp_server(tiny_env), mode="legacy") as client:
            bad = await client.call_tool(name, arguments)
            good = await client.call_tool("list_items", {"list_id": "lst_work"})
            return bad, good

    bad, good = run(go)
    assert bad.is_error and bad.structured_content["error"]["code"] == code
    assert not good.is_error


def test_each_connection_has_its_own_database(tiny_env):
    server = build_mcp_server(tiny_env)

    async def go():
        async with Client(server, mode="legacy") as a, Client(server, mode="legacy") as b:
            await a.call_tool("complete_item", {"item_id": "itm_5"})
            again_a = await a.call_tool("complete_item", {"item_id": "itm_5"})
            first_b = await b.call_tool("complete_item", {"item_id": "itm_5"})
            return again_a, first_b

    again_a, first_b = run(go)
    assert again_a.is_error and again_a.structured_content["error"]["code"] == "CONFLICT"
    assert not first_b.is_error
