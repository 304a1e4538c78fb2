"""The official MCP client against the real transports: a stdio subprocess and a live uvicorn.

Every tool of every reference environment is listed and called, over both transports.
"""

from __future__ import annotations

import importlib
import sys

import anyio
import pytest
from mcp import Client, StdioServerParameters

from agentworld.servers import default_catalog
from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS
from agentworld.servers.serve import http_app
from tests.fixtures.exceptions import leaves
from tests.fixtures.live_server import live_server

ENV_IDS = sorted(REFERENCE_ENVIRONMENTS)


def example_calls(env_id: str):
    return importlib.import_module(REFERENCE_ENVIRONMENTS[env_id]).EXAMPLE_CALLS


async def _exercise(client: Client, env_id: str) -> None:
    env = default_catalog().load(env_id)
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert set(listed) == set(env.tools.names())
    for name, tool in listed.items():
        spec = env.tool(name)
        assert tool.input_schema == spec.input_schema and tool.output_schema == spec.output_schema
        assert tool.annotations.read_only_hint == spec.annotations.read_only
    called = set()
    for name, arguments in example_calls(env_id):
        # The client validates structured content against the listed output schema.
        result = await client.call_tool(name, arguments)
        assert not result.is_error, (name, result.structured_content)
        called.add(name)
    assert called == set(listed)
    bad = await client.call_tool(next(iter(listed)), {"unexpected": "x" * 1_000_000})
    assert bad.is_error and bad.structured_content["error"]["code"] == "VALIDATION_ERROR"


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_stdio_subprocess_lists_and_calls_every_tool(env_id):
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "agentworld", "serve", env_id])

    async def go():
        async with Client(params) as client:
            await _exercise(client, env_id)

    anyio.run(go)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_streamable_http_lists_and_calls_every_tool(env_id):
    env = default_catalog().load(env_id)
    with live_server(http_app(env)) as base:
        async def go():
            async with Client(f"{base}/mcp") as client:
                assert client.protocol_version != "2026-07-28"  # fell back to a stateful session
                await _exercise(client, env_id)

        anyio.run(go)


def test_stdio_session_keeps_state_across_calls_in_auto_mode():
    tiny = "tests.fixtures.tiny_env:DEFINITION"
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "agentworld", "serve", tiny])

    async def go():
        async with Client(params) as client:
            first = await client.call_tool("complete_item", {"item_id": "itm_4"})
            again = await client.call_tool("complete_item", {"item_id": "itm_4"})
            return first, again

    first, again = anyio.run(go)
    assert not first.is_error
    assert again.is_error and again.structured_content["error"]["code"] == "CONFLICT"


def test_http_sessions_are_isolated_and_start_at_template_state(tiny_env):
    with live_server(http_app(tiny_env)) as base:
        async def go():
            async with Client(f"{base}/mcp") as a, Client(f"{base}/mcp") as b:
                first_a = await a.call_tool("complete_item", {"item_id": "itm_4"})
                again_a = await a.call_tool("complete_item", {"item_id": "itm_4"})
                first_b = await b.call_tool("complete_item", {"item_id": "itm_4"})
                return first_a, again_a, first_b

        first_a, again_a, first_b = anyio.run(go)
    assert not first_a.is_error and again_a.is_error and not first_b.is_error


def test_sessionless_http_requests_are_refused_clearly(tiny_env):
    with live_server(http_app(tiny_env)) as base:
        async def go():
            async with Client(f"{base}/mcp", mode="2026-07-28") as client:
                return await client.call_tool("list_items", {"list_id": "lst_home"})

        with pytest.raises(BaseException) as caught:
            anyio.run(go)
    assert any("stateful" in str(e) for e in leaves(caught.value))

