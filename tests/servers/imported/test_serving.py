"""Imported environments through every way in: MCP (in memory), the hub, and Gymnasium."""

from __future__ import annotations

import anyio
from fastapi.testclient import TestClient
from mcp import Client

from agentworld.gym_api import AgentWorldEnv
from agentworld.hub.app import create_app
from agentworld.servers.mcp_server import build_mcp_server

BORROW = {"name": "borrow_book", "arguments": {"member_id": "mem_1", "book_id": "bk_1"}}


def test_mcp_connections_are_isolated_and_misbehaviour_is_an_error_result(catalog):
    library = catalog.load("aw-0000001")
    server = build_mcp_server(library)

    async def go():
        async with Client(server, mode="legacy") as a, Client(server, mode="legacy") as b:
            tools = {t.name for t in (await a.list_tools()).tools}
            borrowed = await a.call_tool(BORROW["name"], BORROW["arguments"])
            again_a = await a.call_tool(BORROW["name"], BORROW["arguments"])
            again_b = await b.call_tool(BORROW["name"], BORROW["arguments"])
            return tools, borrowed, again_a, again_b

    tools, borrowed, again_a, again_b = anyio.run(go)
    assert "submit_tool" in tools and "submit" not in tools
    assert not borrowed.is_error and borrowed.structured_content["loan"]["book_id"] == "bk_1"
    assert again_a.is_error
    assert again_a.structured_content["error"]["code"] == "PRECONDITION_FAILED"
    assert not again_b.is_error                               # b has its own folder

    async def misbehave():
        async with Client(build_mcp_server(catalog.load("aw-0000002")), mode="legacy") as c:
            looped = await c.call_tool("spin_forever", {})
            after = await c.call_tool("get_widget", {"widget_id": "w_1"})
            return looped, after

    looped, after = anyio.run(misbehave)
    assert looped.is_error and looped.structured_content["error"]["code"] == "LIMIT_EXCEEDED"
    assert not after.is_error


def test_hub_sessions_on_imported_envs(catalog):
    with TestClient(create_app(catalog)) as client:
        envs = client.get("/v1/envs").json()
        assert {e["id"] for e in envs["envs"]} == {"aw-0000001", "aw-0000002"}
        first = client.post("/v1/sessions", json={"env_id": "aw-0000001",
                                                  "task_id": "question-1"}).json()
        second = client.post("/v1/sessions", json={"env_id": "aw-0000001"}).json()
        step = client.post(f"/v1/sessions/{first['session_id']}/step",
                           json={"action": BORROW}).json()
        assert step["info"]["ok"]
        other = client.post(f"/v1/sessions/{second['session_id']}/step",
                            json={"action": BORROW}).json()
        assert other["info"]["ok"]                           # isolated from the first
        done = client.post(f"/v1/sessions/{first['session_id']}/step", json={
            "action": {"name": "submit", "arguments": {"answer": "2"}}}).json()
        assert done["terminated"] and done["reward"] == 1.0
        assert client.get(f"/v1/sessions/{first['session_id']}").json()["db_hash"]
        widgets = client.post("/v1/sessions", json={"env_id": "aw-0000002"}).json()
        secret = client.post(f"/v1/sessions/{widgets['session_id']}/step", json={
            "action": {"name": "read_secrets", "arguments": {}}}).json()
        assert secret["info"]["error_code"] == "FORBIDDEN"
        assert client.get("/healthz").json()["status"] == "ok"
        for session in (first, second, widgets):
            client.delete(f"/v1/sessions/{session['session_id']}")


def test_gym_env_on_an_imported_env(catalog):
    env = AgentWorldEnv("aw-0000001", catalog=catalog)
    try:
        observation, info = env.reset(seed=4, options={"task_id": "question-2"})
        assert observation == "Who is the only member?"
        assert "borrow_book" in {t["name"] for t in info["tools"]}
        _, reward, terminated, _, step_info = env.step(BORROW)
        assert step_info["ok"] and not terminated
        first_hash = env.episode_state()["db_hash"]
        _, reward, terminated, _, _ = env.step({"name": "submit", "arguments": {"answer": "Ada"}})
        assert terminated and reward == 1.0
        env.reset(seed=4, options={"task_id": "question-2"})
        env.step(BORROW)
        assert env.episode_state()["db_hash"] == first_hash       # the same replay
    finally:
        env.close()
