"""The hub on a real uvicorn (127.0.0.1:0): MCP endpoints, concurrency, and a soak."""

from __future__ import annotations

import asyncio
import ctypes
import gc

import anyio
import pytest
from mcp import Client

from agentworld.hub.app import create_app
from agentworld.hub.client import HubClient, HubClientError, SyncHubClient
from agentworld.hub.episode import Episode, pick_task
from agentworld.hub.settings import HubSettings
from tests.fixtures.exceptions import leaves
from tests.fixtures.live_server import live_server


@pytest.fixture
def hub_url(tiny_catalog):
    with live_server(create_app(tiny_catalog, settings=HubSettings(max_sessions=512))) as url:
        yield url


def test_any_mcp_client_on_any_environment(hub_url):
    async def go():
        async with Client(f"{hub_url}/envs/tiny/mcp") as a, Client(f"{hub_url}/envs/tiny/mcp") as b:
            names = {t.name for t in (await a.list_tools()).tools}
            first = await a.call_tool("complete_item", {"item_id": "itm_7"})
            again = await a.call_tool("complete_item", {"item_id": "itm_7"})
            other = await b.call_tool("complete_item", {"item_id": "itm_7"})
            return names, first, again, other

    names, first, again, other = anyio.run(go)
    assert "complete_item" in names
    assert not first.is_error and again.is_error and not other.is_error


def test_unknown_environment_mcp_is_404(hub_url):
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(hub_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port)
    try:
        conn.request("POST", "/envs/nope/mcp", body=b"{}",
                     headers={"content-type": "application/json"})
        response = conn.getresponse()
        assert response.status == 404 and b"UNKNOWN_ENVIRONMENT" in response.read()
    finally:
        conn.close()


def test_session_mcp_endpoint_and_gym_see_the_same_episode(hub_url):
    client = SyncHubClient(hub_url)
    started = client.reset("tiny", task_id="complete-item-3")
    sid = started["session_id"]

    async def drive():
        async with Client(hub_url + started["mcp_url"]) as mcp:
            listed = {t.name for t in (await mcp.list_tools()).tools}
            result = await mcp.call_tool("complete_item", {"item_id": "itm_3"})
            return listed, result

    listed, result = anyio.run(drive)
    assert "complete_item" in listed and not result.is_error
    state = client.state(sid)
    assert state["steps"] == 1 and state["trajectory"][0]["tool"] == "complete_item"
    done = client.step(sid, {"name": "submit", "arguments": {"answer": "done"}})
    assert done["terminated"] and done["reward"] == 1.0
    client.end(sid)
    client.close()


def test_session_mcp_endpoint_rejects_unknown_tokens(hub_url):
    async def go():
        async with Client(f"{hub_url}/sessions/not-a-token/mcp") as mcp:
            await mcp.list_tools()

    with pytest.raises(BaseException) as caught:
        anyio.run(go)
    # The endpoint answers 404 before any MCP exchange; the client reports it as "Not Found".
    assert any("Not Found" in str(leaf) for leaf in leaves(caught.value))



def _actions(i: int) -> list[dict]:
    """Each session's own writes: a distinct item, then a completion that depends on i."""
    return [{"name": "add_item", "arguments": {"list_id": "lst_home", "title": f"session {i}"}},
            {"name": "complete_item", "arguments": {"item_id": f"itm_{i % 10}"}},
            {"name": "list_items", "arguments": {"list_id": "lst_home"}},
            {"name": "submit", "arguments": {"answer": str(5 - (i % 10) % 2)}}]


def _in_process(env, i: int):
    episode = Episode(env, task=pick_task(env, task_id=None, seed=i), seed=i)
    outcomes = [episode.step(a) for a in _actions(i)]
    return [o.observation for o in outcomes], outcomes[-1].info["verdict"], episode.session.hash()


def test_200_concurrent_sessions_match_in_process_runs(hub_url, tiny_catalog):
    async def one(client: HubClient, i: int):
        started = await client.reset("tiny", seed=i)
        sid = started["session_id"]
        outcomes = [await client.step(sid, a) for a in _actions(i)]
        state = await client.state(sid)
        await client.end(sid)
        observations = [o["observation"] for o in outcomes]
        return observations, outcomes[-1]["info"]["verdict"], state["db_hash"]

    async def go():
        async with HubClient(hub_url) as client:
            return await asyncio.gather(*(one(client, i) for i in range(200)))

    remote = asyncio.run(go())
    env = tiny_catalog.load("tiny")
    for i, got in enumerate(remote):
        assert got == _in_process(env, i), f"session {i} differs from its in-process run"
    # Sessions wrote different things, so their final databases differ.
    assert len({h for _, _, h in remote}) > 10


def test_over_capacity_the_client_sees_503(tiny_catalog):
    app = create_app(tiny_catalog, settings=HubSettings(max_sessions=1))
    with live_server(app) as url:
        client = SyncHubClient(url)
        sid = client.reset("tiny")["session_id"]
        with pytest.raises(HubClientError) as caught:
            client.reset("tiny")
        assert caught.value.status == 503 and caught.value.retry_after == 1.0
        client.end(sid)
        assert client.reset("tiny")["session_id"]
        client.close()


def _rss_kib() -> int:
    # Hand freed heap back to the OS first, so RSS measures what is live, not fragmentation.
    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4


def test_soak_5000_episodes_ends_with_no_sessions_and_flat_memory(tiny_catalog):
    settings = HubSettings(max_sessions=1024, idle_timeout=1.0, reap_interval=0.1)
    with live_server(create_app(tiny_catalog, settings=settings)) as url:
        async def batch(client: HubClient, n: int, reap: bool) -> None:
            gate = asyncio.Semaphore(64)

            async def episode(i: int) -> None:
                async with gate:
                    sid = (await client.reset("tiny", seed=i))["session_id"]
                    try:
                        await client.step(sid, _actions(i)[0])
                        if not reap:
                            await client.end(sid)  # half end themselves, half are reaped
                    except HubClientError as exc:
                        # On a slow machine the reaper may win the race: that session is gone,
                        # which is what this test checks anyway.
                        assert exc.status == 404 and exc.code == "UNKNOWN_SESSION"
            await asyncio.gather(*(episode(i) for i in range(n)))

        async def soak() -> list[int]:
            samples = []
            async with HubClient(url) as client:
                for round_ in range(10):
                    await batch(client, 500, reap=round_ % 2 == 0)
                    while (await client._request("GET", "/healthz"))["sessions"]:
                        await asyncio.sleep(0.05)
                    samples.append(_rss_kib())
            return samples

        samples = asyncio.run(soak())
        probe = SyncHubClient(url)
        health = probe._request("GET", "/healthz")
        probe.close()
    assert health["sessions"] == 0
    # After warm-up, memory stays flat: 4,000 more episodes add less than 16 MiB.
    assert samples[-1] - samples[1] < 16 * 1024, samples
