"""The /envs/{id}/mcp fast path for tools/call (hub/mcp_fast.py) against the SDK's own path.

Two hubs on real uvicorn servers (127.0.0.1:0) serve the same environment: one with the fast
path, one with every request through the MCP SDK. The same calls, from the real MCP client or as
raw HTTP, must get the same answers from both, and the fast hub must have answered the plain
calls itself.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from urllib.parse import urlsplit

import anyio
import pytest
from mcp import Client

from agentworld.hub.app import create_app
from agentworld.hub.settings import HubSettings
from agentworld.servers import (
    Catalog,
    DataSource,
    EnvironmentDefinition,
    Manifest,
    Taxonomy,
    Toolset,
)
from agentworld.servers import schema as s
from tests.fixtures.live_server import live_server
from tests.fixtures.tiny_env import DEFINITION as TINY

# -- a tool that waits for the test: is the event loop free while a call runs? ----------------
GATE = threading.Event()
gate_tools = Toolset()


@gate_tools.tool(description="Wait until the test opens the gate.", read_only=True,
                 input=s.obj({}), output=s.obj({"released": s.boolean()}))
def wait_for_gate(ctx):
    return {"released": GATE.wait(10)}


GATED = EnvironmentDefinition(
    manifest=Manifest(
        id="gated", version="1.0.0", title="Gated", description="A tool that waits.", rules=(),
        taxonomy=Taxonomy("Communication & General Utilities", "Productivity", "Test gate"),
        data_sources=(DataSource("generated", "CC0-1.0", "Written by hand for tests."),)),
    schema_sql="CREATE TABLE t (id INTEGER PRIMARY KEY);", seed=lambda conn: None,
    tools=gate_tools, tasks=())


@contextlib.contextmanager
def _hub(fast: bool, **settings):
    catalog = Catalog(modules={})
    catalog.add(TINY)
    catalog.add(GATED)
    app = create_app(catalog, settings=HubSettings(**settings))
    app.state.mcp.fast_calls = fast
    with live_server(app) as url:
        yield url, app.state.mcp


@pytest.fixture(scope="module")
def hubs():
    with _hub(True) as fast, _hub(False) as sdk:
        yield fast, sdk


def _answered(mcp, env_id: str = "tiny") -> int:
    return mcp.fast[env_id].answered if env_id in mcp.fast else 0


# -- through the real MCP client -------------------------------------------------------------
CALLS = [
    ("complete_item", {"item_id": "itm_7"}),  # the first call: through the SDK either way
    ("list_items", {"list_id": "lst_home"}),  # success
    ("complete_item", {"item_id": "itm_7"}),  # a tool error (CONFLICT)
    ("add_item", {"list_id": "lst_work", "title": "új tétel ✓"}),  # a write, non-ASCII
    ("no_such_tool", {"x": 1}),  # unknown tool
    ("complete_item", {"item_id": 5}),  # bad arguments
    ("complete_item", {}),  # a missing argument
    ("add_item", {"list_id": "nope", "title": "x"}),  # not found
    ("write_then_crash", {"title": "t"}),  # the tool raises after writing: rolled back
    ("list_items", {"list_id": "lst_home"}),  # ... so the list is as before
]


def _client_calls(url: str) -> list[dict]:
    async def go():
        async with Client(f"{url}/envs/tiny/mcp") as client:
            out = [(await client.call_tool(name, args)).model_dump() for name, args in CALLS]
            out.append((await client.list_tools()).model_dump())
            return out

    return anyio.run(go)


def test_the_real_client_gets_the_same_results_both_ways(hubs):
    (fast_url, fast), (sdk_url, sdk) = hubs
    before = _answered(fast)
    got, want = _client_calls(fast_url), _client_calls(sdk_url)
    assert got == want
    errors = [r["structured_content"]["error"]["code"] for r in got[:-1] if r["is_error"]]
    assert errors == ["CONFLICT", "UNKNOWN_TOOL", "VALIDATION_ERROR", "VALIDATION_ERROR",
                      "NOT_FOUND", "INTERNAL_ERROR"]
    assert got[3]["structured_content"]["item"]["title"] == "új tétel ✓"
    assert got[1] == got[-2]
    # Every call after the first was answered by the fast path; none on the SDK-only hub.
    assert _answered(fast) - before == len(CALLS) - 1
    assert _answered(sdk) == 0


def test_sessions_stay_isolated_on_the_fast_path(hubs):
    (url, fast), _ = hubs

    async def go():
        async with Client(f"{url}/envs/tiny/mcp") as a, Client(f"{url}/envs/tiny/mcp") as b:
            for client in (a, b):  # first calls: registered by the SDK path
                await client.call_tool("list_items", {"list_id": "lst_home"})
            done = await a.call_tool("complete_item", {"item_id": "itm_1"})
            again = await a.call_tool("complete_item", {"item_id": "itm_1"})
            other = await b.call_tool("complete_item", {"item_id": "itm_1"})
            return done, again, other

    before = _answered(fast)
    done, again, other = anyio.run(go)
    assert not done.is_error and again.is_error and not other.is_error
    assert _answered(fast) - before == 3
    # Both sessions ended: nothing kept. The SDK tears a session down in the server's own task
    # after the client's DELETE is answered, so on a loaded machine that can lag the client.
    deadline = time.monotonic() + 10
    while fast.fast["tiny"]._live and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not fast.fast["tiny"]._live


# -- raw HTTP: the protocol's edges ----------------------------------------------------------
class Raw:
    """One MCP session spoken as plain HTTP, with no standalone GET stream."""

    def __init__(self, url: str, env_id: str = "tiny") -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
        self.path, self.sid, self.next_id = f"/envs/{env_id}/mcp", None, 0

    def post(self, message, *, sid: str | None = "own", headers: dict | None = None):
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        sent = {"content-type": "application/json",
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25", **(headers or {})}
        sid = self.sid if sid == "own" else sid
        if sid is not None:
            sent["mcp-session-id"] = sid
        self.conn.request("POST", self.path, body=body, headers=sent)
        response = self.conn.getresponse()
        raw = response.read()
        if response.getheader("content-type", "").startswith("application/json") and raw:
            return response.status, response.getheader("mcp-session-id"), json.loads(raw)
        return response.status, response.getheader("mcp-session-id"), raw.decode()

    def request(self, method: str, params=None, **kwargs):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.post(message, **kwargs)

    def open(self) -> Raw:
        status, self.sid, _ = self.request("initialize", {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"}}, sid=None)
        assert status == 200 and self.sid
        assert self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})[0] == 202
        return self

    def call(self, name: str, arguments=None, **kwargs):
        return self.request("tools/call", {"name": name, "arguments": arguments}, **kwargs)

    def close(self) -> None:
        self.conn.close()


def _probes(url: str) -> list:
    """The same raw requests on a session that already made its first call."""
    raw = Raw(url).open()
    out = [raw.call("list_items", {"list_id": "lst_home"}),  # the first call
           raw.call("complete_item", {"item_id": "itm_2"}),  # plain: the fast path
           raw.call("complete_item", {"item_id": "itm_2"}),  # a tool error
           raw.call("nope"),  # unknown tool, no arguments
           raw.call("complete_item", {"item_id": None}),  # bad arguments
           raw.call("list_items", {"list_id": "lst_home"}, sid="0123abcd"),  # wrong session
           raw.call("list_items", {"list_id": "lst_home"}, sid=None),  # missing session id
           raw.request("ping"),  # other methods
           raw.request("resources/list"),
           raw.request("tools/call", {"name": 5, "arguments": {}}),  # malformed params
           raw.request("tools/call", {"arguments": {}}),
           raw.request("tools/call", {"name": "list_items", "arguments": ["lst_home"]}),
           raw.request("tools/call", {"name": "list_items", "arguments": {"list_id": "lst_home"},
                                      "_meta": {"progressToken": 7}}),
           raw.post([{"jsonrpc": "2.0", "id": 99, "method": "ping"}]),  # a batch
           raw.post(b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {'),
           raw.call("list_items", {"list_id": "lst_home"},  # the 2026 era: another path
                    headers={"mcp-protocol-version": "2026-07-28"}),
           raw.call("list_items", {"list_id": "lst_home"},  # JSON not acceptable
                    headers={"accept": "text/event-stream"}),
           raw.call("list_items", {"list_id": "lst_home"}, headers={"content-type": "text/plain"}),
           raw.call("list_items", {"list_id": "lst_home"}, headers={"host": "evil.example"})]
    sid = raw.sid
    raw.close()
    # Each answer names its own session (or none); the two hubs' ids differ, so compare that
    # and drop it.
    own = [header in (None, sid) for _, header, _ in out]
    return [(status, body) for status, _, body in out], own


def test_protocol_edges_answer_exactly_as_the_sdk_does(hubs):
    (fast_url, fast), (sdk_url, _) = hubs
    before = _answered(fast)
    (got, got_own), (want, want_own) = _probes(fast_url), _probes(sdk_url)
    assert got_own == want_own, (got_own, want_own)
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g == w, f"probe {i}"
    # Only the four plain calls after the first (success, tool error, unknown tool, bad
    # arguments) were the fast path's; everything else went to the SDK.
    assert _answered(fast) - before == 4
    statuses = [status for status, _ in got]
    assert statuses[5] == 404 and statuses[6] == 400 and statuses[16] == 406
    assert got[1][1]["result"]["isError"] is False and got[2][1]["result"]["isError"] is True
    assert "error" in got[9][1] and "error" in got[10][1]  # protocol faults: JSON-RPC errors


def test_a_session_used_only_on_the_fast_path_keeps_its_idle_timer():
    # No standalone GET stream here: only requests hold the session open.
    with _hub(True, idle_timeout=1.5) as (url, mcp):
        raw = Raw(url).open()
        assert raw.call("list_items", {"list_id": "lst_home"})[0] == 200
        for _ in range(6):  # 3 s of fast-path calls, each well inside the idle timeout
            time.sleep(0.5)
            status, _, body = raw.call("list_items", {"list_id": "lst_home"})
            assert status == 200 and body["result"]["isError"] is False
        assert mcp.fast["tiny"].answered == 6
        time.sleep(3.5)  # idle: the session ends, and the fast path forgets it
        assert raw.call("list_items", {"list_id": "lst_home"})[0] == 404
        assert not mcp.fast["tiny"]._live
        raw.close()


def test_a_waiting_tool_does_not_hold_the_event_loop(hubs):
    (url, fast), _ = hubs
    parts = urlsplit(url)

    def health() -> int:
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
        try:
            conn.request("GET", "/healthz")
            return conn.getresponse().status
        finally:
            conn.close()

    async def go():
        async with Client(f"{url}/envs/gated/mcp") as client:
            GATE.set()
            await client.call_tool("wait_for_gate", {})  # the first call, via the SDK
            GATE.clear()
            async with anyio.create_task_group() as tg:
                results = []

                async def waiting_call():
                    results.append(await client.call_tool("wait_for_gate", {}))

                tg.start_soon(waiting_call)
                await anyio.sleep(0.2)
                status = await anyio.to_thread.run_sync(health)  # the loop answers meanwhile
                pending = not results
                GATE.set()
            return status, pending, results[0]

    before = _answered(fast, "gated")
    status, pending, result = anyio.run(go)
    assert status == 200 and pending
    assert result.structured_content == {"released": True}
    assert _answered(fast, "gated") - before == 1
