"""The lean step path keeps its guarantees.

* A slow tool never stalls the event loop: not when it is slow from the start, and not after
  the inline guard admitted it and it turned slow (one run over budget sends it back to threads).
* Inline steps keep isolation and atomicity; a busy session goes to a thread instead of waiting.
* A reset can leave the tool list out (``tools_hash``, ``include_tools``).
* NaN and Infinity are refused with a clear error in every body: HTTP, WebSocket and actions.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest
import websockets.sync.client as wsc

from agentworld.hub.app import create_app
from agentworld.hub.episode import Episode
from agentworld.hub.inline import Busy, InlineGuard
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

tools = Toolset()


@tools.tool(description="Wait, then answer.", read_only=True,
            input=s.obj({"seconds": s.number(minimum=0, maximum=5)}),
            output=s.obj({"slept": s.number()}))
def nap(ctx, seconds):
    time.sleep(seconds)
    return {"slept": seconds}


@tools.tool(description="Count a row.", input=s.obj({}), output=s.obj({"n": s.integer()}))
def bump(ctx):
    ctx.db.execute("INSERT INTO marks (at) VALUES ('x')")
    return {"n": ctx.scalar("SELECT count(*) FROM marks")}


SLEEPY = EnvironmentDefinition(
    manifest=Manifest(
        id="sleepy", version="1.0.0", title="Sleepy", description="A slow tool, for tests.",
        taxonomy=Taxonomy("Communication & General Utilities", "Productivity", "Timer"), rules=(),
        data_sources=(DataSource("generated", "CC0-1.0", "Written for tests."),)),
    schema_sql="CREATE TABLE marks (id INTEGER PRIMARY KEY, at TEXT NOT NULL);",
    seed=lambda conn: None, tools=tools, tasks=())


@pytest.fixture
def sleepy_catalog() -> Catalog:
    catalog = Catalog(modules={})
    catalog.add(SLEEPY)
    return catalog


def _post(base: str, path: str, body: dict) -> dict:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def _step(base: str, sid: str, name: str, arguments: dict) -> dict:
    return _post(base, f"/v1/sessions/{sid}/step",
                 {"action": {"name": name, "arguments": arguments}})


def _fast_step_during(base: str, slow_sid: str, seconds: float, fast_sid: str) -> float:
    """Start a slow nap in one session; time a fast step in another while it sleeps."""
    slow = threading.Thread(target=_step, args=(base, slow_sid, "nap", {"seconds": seconds}))
    slow.start()
    time.sleep(seconds / 4)
    started = time.perf_counter()
    _step(base, fast_sid, "nap", {"seconds": 0})
    took = time.perf_counter() - started
    slow.join()
    return took


def test_a_slow_tool_never_blocks_the_event_loop(sleepy_catalog):
    # A sleeping tool uses no CPU: the guard's wall-time limit (20 ms) is what catches it.
    app = create_app(sleepy_catalog, settings=HubSettings(inline_budget_s=0.001))
    with live_server(app) as base:
        a = _post(base, "/v1/sessions", {"env_id": "sleepy", "max_steps": 100})["session_id"]
        b = _post(base, "/v1/sessions", {"env_id": "sleepy", "max_steps": 100})["session_id"]
        # Slow from the start: never admitted, so b's step goes through while a sleeps.
        assert _fast_step_during(base, a, 0.8, b) < 0.5
        guard = app.state.hub.guard
        # Prove nap cheap, so it runs inline (its slow run above doubled the proof needed)...
        runs = 0
        while not guard.admits(("sleepy", "nap")) and runs < 100:
            _step(base, a, "nap", {"seconds": 0})
            runs += 1
        assert 2 * guard.warmup <= runs < 100
        inline_before = guard.inline_runs
        _step(base, a, "nap", {"seconds": 0})
        assert guard.inline_runs == inline_before + 1
        # ...then it turns slow: that one run holds the loop, and the guard demotes the tool,
        _step(base, a, "nap", {"seconds": 0.4})
        assert not guard.admits(("sleepy", "nap")) and guard.demotions == 1
        # so the next slow run is in a thread and the loop keeps serving.
        assert _fast_step_during(base, a, 0.8, b) < 0.5


def test_inline_steps_keep_isolation_and_atomicity(sleepy_catalog):
    app = create_app(sleepy_catalog, settings=HubSettings(inline_budget_s=0.05))
    with live_server(app) as base:
        a = _post(base, "/v1/sessions", {"env_id": "sleepy", "max_steps": 100})["session_id"]
        b = _post(base, "/v1/sessions", {"env_id": "sleepy", "max_steps": 100})["session_id"]
        counts = [json.loads(_step(base, a, "bump", {})["observation"])["n"] for _ in range(12)]
        assert counts == list(range(1, 13))  # inline or not, every write lands once, in order
        assert app.state.hub.guard.admits(("sleepy", "bump"))
        assert json.loads(_step(base, b, "bump", {})["observation"]) == {"n": 1}
        bad = _step(base, a, "bump", {"surprise": 1})  # refused before any write
        assert bad["info"]["error_code"] == "VALIDATION_ERROR"
        assert json.loads(_step(base, a, "bump", {})["observation"]) == {"n": 13}


def test_a_busy_episode_is_not_waited_for_on_the_loop(sleepy_catalog):
    env = sleepy_catalog.load("sleepy")
    episode = Episode(env, task=None, max_steps=10)
    with episode._lock:  # another thread mid-step
        with pytest.raises(Busy):
            episode.step({"name": "bump", "arguments": {}}, False)
    with episode.session._lock:  # the session busy (a hash, an MCP call)
        with pytest.raises(Busy):
            episode.step({"name": "bump", "arguments": {}}, False)
    assert episode.steps == 0 and episode.trajectory == []  # nothing ran, nothing counted
    episode.steps = 9
    with pytest.raises(Busy):  # the step that ends the episode verifies: never inline
        episode.step({"name": "bump", "arguments": {}}, False)
    with pytest.raises(Busy):
        episode.step({"name": "submit", "arguments": {"answer": "x"}}, False)
    assert episode.step({"name": "bump", "arguments": {}}).truncated
    episode.close()


def test_the_guard_admits_proven_cheap_kinds_and_backs_off():
    guard = InlineGuard(budget_s=0.001, warmup=4)
    assert guard.wall_limit_s == 0.02
    for _ in range(3):
        guard.observe("k", 0.0001)
    assert not guard.admits("k")
    guard.observe("k", 0.0001)
    assert guard.admits("k")
    guard.observe("k", 0.01)  # one CPU outlier (a GC pause, say) is forgiven
    assert guard.admits("k")
    guard.observe("k", 0.01)  # a second one close by: demoted, and must prove twice as long
    assert not guard.admits("k") and guard.demotions == 1
    for _ in range(7):
        guard.observe("k", 0.0001)
    assert not guard.admits("k")
    guard.observe("k", 0.0001)
    assert guard.admits("k")
    guard.exclude("remote")
    for _ in range(100):
        guard.observe("remote", 0.0)
    assert not guard.admits("remote")
    sleeper = InlineGuard(budget_s=0.001, warmup=1)
    sleeper.observe("nap", 0.0, 0.5)  # no CPU, but it held its caller for half a second
    assert not sleeper.admits("nap")
    sleeper.observe("busy", 0.002, 0.002)  # over the CPU budget
    assert not sleeper.admits("busy")
    off = InlineGuard(budget_s=0)
    for _ in range(100):
        off.observe("k", 0.0)
    assert not off.admits("k")


def test_unknown_names_do_not_grow_the_guard(client):
    guard = client.app.state.hub.guard
    sid = client.post("/v1/sessions", json={"env_id": "tiny", "max_steps": 50}).json()[
        "session_id"]
    for i in range(20):
        assert client.post("/v1/sessions", json={"env_id": f"nope-{i}"}).status_code == 404
        step = client.post(f"/v1/sessions/{sid}/step", json={"action": {"name": f"x{i}"}})
        assert step.json()["info"]["error_code"] == "UNKNOWN_TOOL"
    assert len(guard._records) <= 3  # tiny's reset, the one unknown-tool key


def test_reset_can_leave_the_tool_list_out(client):
    full = client.post("/v1/sessions", json={"env_id": "tiny"}).json()["info"]
    assert full["tools"] and len(full["tools_hash"]) == 32
    same = client.post("/v1/sessions", json={"env_id": "tiny", "tools_hash": full["tools_hash"]})
    assert "tools" not in same.json()["info"]
    assert same.json()["info"]["tools_hash"] == full["tools_hash"]
    stale = client.post("/v1/sessions", json={"env_id": "tiny", "tools_hash": "0" * 32}).json()
    assert stale["info"]["tools"] == full["tools"]  # a hash that no longer matches: sent again
    off = client.post("/v1/sessions", json={"env_id": "tiny", "include_tools": False}).json()
    assert "tools" not in off["info"]
    assert client.get("/v1/envs/tiny").json()["tools_hash"] == full["tools_hash"]
    with client.websocket_connect("/v1/ws") as ws:
        ws.send_text(json.dumps({"op": "reset", "env_id": "tiny", "include_tools": False}))
        reply = ws.receive_json()
        assert reply["op"] == "reset" and "tools" not in reply["info"]


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused_clearly(client, literal):
    sid = client.post("/v1/sessions", json={"env_id": "tiny"}).json()["session_id"]
    action = '{"name": "list_items", "arguments": {"list_id": LIT}}'.replace("LIT", literal)
    body = '{"action": ACTION}'.replace("ACTION", action)
    reply = client.post(f"/v1/sessions/{sid}/step", content=body,
                        headers={"content-type": "application/json"})
    assert reply.status_code == 422
    message = reply.json()["error"]["message"]
    assert "not valid JSON" in message and ("finite" in message or "too large" in message)
    reset_body = '{"env_id": "tiny", "seed": LIT}'.replace("LIT", literal)
    reset = client.post("/v1/sessions", content=reset_body,
                        headers={"content-type": "application/json"})
    assert reset.status_code == 422 and "not valid JSON" in reset.json()["error"]["message"]
    # An action given as a JSON string is the agent's text: a malformed action, not a fault.
    step = client.post(f"/v1/sessions/{sid}/step", json={"action": action}).json()
    assert step["info"]["malformed"] and "not valid JSON" in step["observation"]
    with client.websocket_connect("/v1/ws") as ws:
        ws.send_text('{"op": "reset", "env_id": "tiny", "seed": LIT}'.replace("LIT", literal))
        error = ws.receive_json()["error"]
        assert error["code"] == "BAD_JSON" and "not valid JSON" in error["message"]


def test_websocket_steps_over_a_real_socket(sleepy_catalog):
    app = create_app(sleepy_catalog)
    with live_server(app) as base, wsc.connect(base.replace("http", "ws") + "/v1/ws") as ws:
        ws.send(json.dumps({"op": "reset", "env_id": "sleepy", "max_steps": 50}))
        assert json.loads(ws.recv())["op"] == "reset"
        for n in range(1, 21):
            ws.send(json.dumps({"op": "step", "action": {"name": "bump", "arguments": {}}}))
            assert json.loads(json.loads(ws.recv())["observation"]) == {"n": n}
        assert app.state.hub.guard.inline_runs > 0


@pytest.mark.parametrize("path", ["/envs/tiny/mcp", "session"])
def test_mcp_bodies_with_non_finite_numbers_get_a_parse_error(tiny_catalog, path):
    import anyio
    from mcp import Client

    with live_server(create_app(tiny_catalog)) as base:
        if path == "session":
            path = _post(base, "/v1/sessions", {"env_id": "tiny"})["mcp_url"]
        body = (b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
                b'{"name": "list_items", "arguments": {"list_id": NaN}}}')
        request = urllib.request.Request(base + path, data=body, method="POST", headers={
            "content-type": "application/json", "accept": "application/json, text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
        assert caught.value.code == 400
        error = json.loads(caught.value.read())["error"]
        assert error["code"] == -32700 and "NaN" in error["message"]

        async def still_serves() -> bool:
            async with Client(base + path) as client:
                result = await client.call_tool("list_items", {"list_id": "lst_home"})
                return not result.is_error

        assert anyio.run(still_serves)


def test_malloc_arenas_can_be_capped_where_glibc_runs():
    import platform

    from agentworld.hub.memory import limit_malloc_arenas

    capped = limit_malloc_arenas(8)  # this test process keeps glibc's usual cap for 8 threads
    assert capped is (platform.system() == "Linux" and platform.libc_ver()[0] == "glibc")
