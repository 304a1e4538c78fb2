"""Imported environments through every way in: MCP (in memory), the hub, and Gymnasium."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

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


def test_mcp_structures_a_list_as_result_and_sends_the_list_as_text(catalog):
    async def go():
        async with Client(build_mcp_server(catalog.load("aw-0000001")), mode="legacy") as c:
            return await c.call_tool("list_authors", {}), await c.call_tool("count_books", {})

    authors, count = anyio.run(go)
    assert not authors.is_error
    assert [a["id"] for a in authors.structured_content["result"]][:2] == ["au_1", "au_2"]
    assert json.loads(authors.content[0].text) == authors.structured_content["result"]
    assert count.structured_content == {"result": 6} and count.content[0].text == "6"


def test_hub_sessions_on_imported_envs(catalog):
    with TestClient(create_app(catalog)) as client:
        envs = client.get("/v1/envs").json()
        assert {e["id"] for e in envs["envs"]} == {"aw-0000001", "aw-0000002", "aw-0000004"}
        first = client.post("/v1/sessions", json={"env_id": "aw-0000001",
                                                  "task_id": "question-1"}).json()
        second = client.post("/v1/sessions", json={"env_id": "aw-0000001"}).json()
        step = client.post(f"/v1/sessions/{first['session_id']}/step",
                           json={"action": BORROW}).json()
        assert step["info"]["ok"]
        other = client.post(f"/v1/sessions/{second['session_id']}/step",
                            json={"action": BORROW}).json()
        assert other["info"]["ok"]                           # isolated from the first
        listed = client.post(f"/v1/sessions/{first['session_id']}/step", json={
            "action": {"name": "list_books", "arguments": {"genre": "scifi"}}}).json()
        assert listed["info"]["ok"]
        done = client.post(f"/v1/sessions/{first['session_id']}/step", json={
            "action": {"name": "submit", "arguments": {"answer": "4"}}}).json()
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
        assert observation == "Who is member mem_1?"
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


def test_remote_gym_make_learns_imported_ids_from_the_hub(catalog, tmp_path):
    """A client with no import folder registers the hub's ids and plays an episode there."""
    from tests.fixtures.live_server import live_server

    client = textwrap.dedent("""
        import json, sys
        import gymnasium as gym
        import agentworld
        from agentworld.gym_api import register_hub_envs
        before = "agentworld/aw-0000001-v0" in gym.registry
        ids = register_hub_envs(sys.argv[1])
        env = gym.make("agentworld/aw-0000001-v0")
        obs, info = env.reset(seed=1, options={"task_id": "question-2"})
        _, _, _, _, step = env.step({"name": "member_loans", "arguments": {"member_id": "mem_1"}})
        _, reward, done, _, _ = env.step({"name": "submit", "arguments": {"answer": "Ada"}})
        env.close()
        print(json.dumps({"before": before, "ids": ids, "obs": obs, "ok": step["ok"],
                          "reward": reward, "done": done}))
    """)
    with live_server(create_app(catalog)) as url:
        env = {k: v for k, v in os.environ.items() if k != "AGENTWORLD_IMPORT_DIR"}
        env["AGENTWORLD_CACHE_DIR"] = str(tmp_path / "cache")
        proc = subprocess.run([sys.executable, "-c", client, url], capture_output=True,
                              text=True, timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["before"] is False                     # this client has no import folder
    assert "agentworld/aw-0000004-v0" in out["ids"]
    assert out["obs"] == "Who is member mem_1?" and out["ok"]
    assert out["done"] and out["reward"] == 1.0
