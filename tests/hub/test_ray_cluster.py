"""The hub on a local two-node Ray cluster (``ray.cluster_utils.Cluster``): replicas placed and
restarted by Ray, one entry URL, sticky sessions, lost sessions, summed metrics.

Every remote episode is compared with an in-process replay of the same actions (as in
test_live.py). The fast form runs 32 sessions; ``-m slow`` runs 256 and prints figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

ray = pytest.importorskip("ray", reason="the Ray cluster tests need the 'ray' extra")

from mcp import Client  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

from agentworld.gym_api import AgentWorldEnv  # noqa: E402
from agentworld.hub.client import HubClient, HubClientError, SyncHubClient  # noqa: E402
from agentworld.hub.ray_cluster import RayHub, RayHubConfig, find_hub_url  # noqa: E402
from agentworld.hub.ray_replica import parse_replica_id  # noqa: E402
from agentworld.hub.settings import HubSettings  # noqa: E402
from agentworld.servers import Catalog  # noqa: E402
from agentworld.servers.catalog import configured_catalog  # noqa: E402
from agentworld.trainer.evaluate import evaluate_sync  # noqa: E402
from agentworld.trainer.policies import OraclePolicy  # noqa: E402
from agentworld.trainer.tasks import collect_tasks  # noqa: E402
from tests.fixtures.tiny_env import DEFINITION  # noqa: E402
from tests.hub.test_live import _actions, _in_process  # noqa: E402

REPO = str(Path(__file__).resolve().parents[2])


def tiny_catalog() -> Catalog:
    """Built in each replica's process (the fixture environment, not the whole catalog)."""
    catalog = Catalog(modules={})
    catalog.add(DEFINITION)
    return catalog


@pytest.fixture(scope="module")
def cluster():
    # Ray workers start from the raylets, which inherit this environment: they must import
    # `tests` to build the fixture catalog.
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, saved) if p)
    local = Cluster(initialize_head=True,
                    head_node_args={"num_cpus": 2, "include_dashboard": False})
    try:
        local.add_node(num_cpus=2)
        local.wait_for_nodes()
        ray.init(address=local.address, namespace="agentworld", log_to_driver=False)
        yield local
    finally:
        ray.shutdown()
        local.shutdown()
        if saved is None:
            os.environ.pop("PYTHONPATH", None)
        else:
            os.environ["PYTHONPATH"] = saved


@pytest.fixture(scope="module")
def hub(cluster):
    # One hub for the module (the replica-killing test runs last); its own name, so the CLI and
    # launcher tests can start theirs under the default one.
    config = RayHubConfig(replicas=2, num_cpus=1, poll_interval=0.2, name="test-hub",
                          settings=HubSettings(max_sessions=512))
    ray_hub = RayHub(config, catalog_factory=tiny_catalog)
    try:
        ray_hub.start()
        yield ray_hub
    finally:
        ray_hub.stop()


def _replica(session_id: str) -> int:
    return parse_replica_id(session_id)[0]


async def _play(client: HubClient, i: int, *, after_reset=None, after_step=None):
    """One session: reset, every action, the final state. Returns (replica, outcome), where
    outcome is (observations, verdict, db hash) or the error code that stopped it."""
    started = await client.reset("tiny", seed=i)
    sid = started["session_id"]
    if after_reset is not None:
        await after_reset()
    try:
        outcomes = []
        for action in _actions(i):
            outcomes.append(await client.step(sid, action))
            if after_step is not None:
                after_step()
        state = await client.state(sid)
        await client.end(sid)
    except HubClientError as exc:
        return _replica(sid), (exc.status, exc.code)
    observations = [o["observation"] for o in outcomes]
    return _replica(sid), (observations, outcomes[-1]["info"]["verdict"], state["db_hash"])


def _metric(text: str, name: str, **labels: str) -> float:
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name) and all(f'{k}="{v}"' in line for k, v in labels.items()):
            head = line.split(" ")[0]
            if head == name or head.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
    return total


def test_sessions_spread_over_nodes_and_match_in_process_replays(hub):
    n = 32

    async def go():
        async with HubClient(hub.url) as client:
            return await asyncio.gather(*(_play(client, i) for i in range(n)))

    results = asyncio.run(go())
    env = tiny_catalog().load("tiny")
    for i, (_, got) in enumerate(results):
        assert got == _in_process(env, i), f"session {i} differs from its in-process run"
    by_replica = [r for r, _ in results]
    assert set(by_replica) == {0, 1} and abs(by_replica.count(0) - by_replica.count(1)) <= 2
    health = json.loads(_get_text(hub.url + "/healthz"))
    assert health["status"] == "ok" and health["sessions"] == 0
    assert len({r["node_id"] for r in health["replicas"]}) == 2, "replicas share a node"
    assert find_hub_url("test-hub") == hub.url


def _ws_on_each_replica(url: str, stack: contextlib.ExitStack) -> dict[int, object]:
    """One WebSocket episode on each replica (round-robin spreads consecutive resets)."""
    import websockets.sync.client as ws_client

    sockets: dict[int, object] = {}
    for _ in range(8):
        ws = stack.enter_context(ws_client.connect(url.replace("http://", "ws://") + "/v1/ws"))
        ws.send(json.dumps({"op": "reset", "env_id": "tiny", "seed": 1}))
        sockets.setdefault(_replica(json.loads(ws.recv())["session_id"]), ws)
    return sockets


def _ws_step(ws) -> dict:
    ws.send(json.dumps({"op": "step", "action": {"name": "list_items",
                                                   "arguments": {"list_id": "lst_home"}}}))
    return json.loads(ws.recv())


def _epoch(replica) -> str | None:
    """The replica's incarnation, or None while Ray is restarting it."""
    try:
        return ray.get(replica.info.remote(), timeout=5).epoch
    except (ray.exceptions.ActorUnavailableError, ray.exceptions.GetTimeoutError):
        return None


def _get_text(url: str) -> str:
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as resp:
        return resp.read().decode()


def test_metrics_are_summed_over_the_replicas(hub):
    def scrape() -> tuple[dict[str, float], list[float]]:
        total = _get_text(hub.url + "/metrics")
        per_replica = [_get_text(ray.get(r.info.remote()).url + "/metrics")
                       for r in hub.replicas]
        names = ("agentworld_steps_total", "agentworld_live_sessions",
                 "agentworld_step_latency_seconds_count", "agentworld_replicas_up")
        return ({n: _metric(total, n) for n in names},
                [_metric(t, "agentworld_steps_total") for t in per_replica])

    before, before_each = scrape()
    client = SyncHubClient(hub.url)
    sids = [client.reset("tiny", seed=i)["session_id"] for i in range(6)]
    for sid in sids:
        client.step(sid, {"name": "list_items", "arguments": {"list_id": "lst_home"}})
    after, after_each = scrape()
    assert after["agentworld_steps_total"] - before["agentworld_steps_total"] == 6
    assert [a - b for a, b in zip(after_each, before_each, strict=True)] == [3, 3]
    assert after["agentworld_steps_total"] == sum(after_each)
    assert after["agentworld_live_sessions"] - before["agentworld_live_sessions"] == 6
    assert (after["agentworld_step_latency_seconds_count"]
            - before["agentworld_step_latency_seconds_count"]) == 6
    assert after["agentworld_replicas_up"] == 2
    for sid in sids:
        client.end(sid)
    client.close()


def test_websocket_mcp_and_gym_through_the_entry_url(hub):
    import websockets.sync.client as ws_client

    ws_url = hub.url.replace("http://", "ws://") + "/v1/ws"
    with ws_client.connect(ws_url) as ws:
        ws.send(json.dumps({"op": "reset", "env_id": "tiny", "task_id": "complete-item-3"}))
        started = json.loads(ws.recv())
        ws.send(json.dumps({"op": "step", "action": {
            "name": "complete_item", "arguments": {"item_id": "itm_3"}}}))
        stepped = json.loads(ws.recv())
    assert started["op"] == "reset" and stepped["op"] == "step" and stepped["info"]["ok"]

    sync = SyncHubClient(hub.url)
    session = sync.reset("tiny", task_id="complete-item-3")

    async def mcp():
        async with Client(hub.url + session["mcp_url"]) as per_session, \
                Client(hub.url + "/envs/tiny/mcp") as any_client:
            on_session = await per_session.call_tool("complete_item", {"item_id": "itm_3"})
            # A stateful MCP session sticks to one replica: its second call sees the first.
            first = await any_client.call_tool("complete_item", {"item_id": "itm_5"})
            again = await any_client.call_tool("complete_item", {"item_id": "itm_5"})
            return on_session, first, again

    on_session, first, again = anyio.run(mcp)
    assert not on_session.is_error and not first.is_error and again.is_error
    assert sync.state(session["session_id"])["steps"] == 1
    sync.end(session["session_id"])
    sync.close()

    env = AgentWorldEnv("tiny", hub_url=hub.url)
    try:
        _, info = env.reset(seed=3, options={"task_id": "complete-item-3"})
        env.step({"name": "complete_item", "arguments": {"item_id": "itm_3"}})
        *_, terminated, _, info = env.step({"name": "submit", "arguments": {"answer": "done"}})
    finally:
        env.close()
    assert terminated and info["verdict"]["passed"]


def test_unknown_and_forged_session_ids_are_404(hub):
    client = SyncHubClient(hub.url)
    for sid in ("nope", "r9.0123abcd.x", "r0.0123abcd.x"):
        with pytest.raises(HubClientError) as caught:
            client.step(sid, {"name": "submit", "arguments": {}})
        assert caught.value.status == 404 and caught.value.code == "UNKNOWN_SESSION"
    client.close()


def test_cli_hub_on_ray_serves_the_catalog_and_stops_cleanly(cluster):
    cli = [sys.executable, "-c", "from agentworld.cli import main; raise SystemExit(main())"]
    with subprocess.Popen([*cli, "hub", "--ray", cluster.address, "--replicas", "2",
                           "--replica-cpus", "0.5", "--port", "0", "--max-sessions", "1",
                           "--token", "s3cret"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True) as proc:
        try:
            line = proc.stdout.readline()
            assert "entry URL" in line, line
            url = line.split("entry URL ")[1].split()[0]
            anonymous = SyncHubClient(url)
            with pytest.raises(HubClientError) as refused:
                anonymous.list_envs(limit=1)
            anonymous.close()
            assert refused.value.status == 401
            client = SyncHubClient(url, token="s3cret")
            assert client.list_envs(limit=1)["total"] > 1000  # the whole configured catalog
            # One session per replica: the third reset finds both full and gets their 503.
            sids = [client.reset("notion")["session_id"] for _ in range(2)]
            assert {_replica(sid) for sid in sids} == {0, 1}
            with pytest.raises(HubClientError) as full:
                client.reset("notion")
            assert full.value.status == 503 and full.value.code == "AT_CAPACITY"
            assert full.value.retry_after is not None
            for sid in sids:
                client.end(sid)
            client.close()
            # The trainer's rollout code takes the entry URL as it is: the oracle solves every
            # task, two at a time (one session per replica).
            tasks = collect_tasks(configured_catalog(), ["notion"], limit_per_env=4)
            report = evaluate_sync(OraclePolicy(), tasks, url, token="s3cret", concurrency=2)
            assert report.overall()["success"] == 1.0, report.to_dict()["episodes"]
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                rc = proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()  # never leave it (and its actors) behind
                raise
    assert rc == 0
    _wait_gone("agentworld-hub")  # its actors went with it: the name is free again


def _wait_gone(name: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            ray.get_actor(name, namespace="agentworld")
        except ValueError:
            return
        assert time.monotonic() < deadline, f"actor {name} outlived its hub"
        time.sleep(0.2)


def _broken_catalog() -> Catalog:
    raise RuntimeError("no catalog here")


def test_a_replica_that_cannot_start_fails_the_start_and_leaves_nothing(cluster):
    hub = RayHub(RayHubConfig(replicas=2, num_cpus=0.5, name="broken-hub"),
                 catalog_factory=_broken_catalog)
    with pytest.raises(ray.exceptions.RayActorError, match="no catalog here"), hub:
        pass
    assert hub.replicas == [] and hub.router is None
    for name in ("broken-hub-replica-0", "broken-hub-replica-1", "broken-hub"):
        _wait_gone(name)


def test_trainer_launcher_places_the_hub_on_the_same_cluster(cluster):
    """The OpenRLHF path's launcher (trainer/ray_hub.py) with a probe in OpenRLHF's place:
    tasks on the cluster's workers find the entry URL in their environment and play on it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTWORLD_")}
    env["RAY_ADDRESS"] = cluster.address
    done = subprocess.run(
        [sys.executable, "-m", "agentworld.trainer.ray_hub", "--replicas", "2",
         "--replica-cpus", "0.5", "--module", "tests.fixtures.ray_probe", "--",
         "--rollout.n_samples_per_prompt", "8"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    probe = json.loads(done.stdout.strip().splitlines()[-1])
    assert probe["argv"] == ["--rollout.n_samples_per_prompt", "8"]
    urls = {e["url"] for e in probe["episodes"]}
    assert len(urls) == 1  # every worker, on either node, found the same entry URL
    # Every episode was served by one of the launcher's replicas (how the router spreads
    # sessions over replicas is checked by the tests above, on a hub whose replicas are up).
    served = {_replica(e["session_id"]) for e in probe["episodes"]}
    assert served and served <= {0, 1}


def test_killing_a_replica_loses_only_its_sessions(hub):
    n = 32
    victim = ray.get(hub.replicas[0].info.remote())
    stack = contextlib.ExitStack()
    sockets = _ws_on_each_replica(hub.url, stack)
    gate = asyncio.Event()
    reset_done = 0

    async def after_reset():
        # Every session is reset (spread over both replicas) before the kill; then they run on.
        nonlocal reset_done
        reset_done += 1
        if reset_done == n:
            os.kill(victim.pid, signal.SIGKILL)
            gate.set()
        await gate.wait()

    async def go():
        async with HubClient(hub.url) as client:
            return await asyncio.gather(*(_play(client, i, after_reset=after_reset)
                                          for i in range(n)))

    results = asyncio.run(go())
    env = tiny_catalog().load("tiny")
    lost = [i for i, (r, _) in enumerate(results) if r == 0]
    assert lost and len(lost) < n
    for i, (replica, got) in enumerate(results):
        if replica == 0:
            assert got == (410, "SESSION_LOST"), f"session {i} on the killed replica: {got}"
        else:
            assert got == _in_process(env, i), f"session {i} on a live replica was disturbed"

    # The WebSocket episode on the killed replica is lost; the connection stays usable.
    lost_ws, live_ws = _ws_step(sockets[0]), _ws_step(sockets[1])
    assert lost_ws["op"] == "error" and lost_ws["error"]["code"] == "SESSION_LOST"
    assert live_ws["op"] == "step" and live_ws["info"]["ok"]
    sockets[0].send(json.dumps({"op": "reset", "env_id": "tiny", "seed": 2}))
    assert json.loads(sockets[0].recv())["op"] == "reset" and _ws_step(sockets[0])["op"] == "step"
    stack.close()

    client = SyncHubClient(hub.url)
    deadline = time.monotonic() + 60
    while client._request("GET", "/healthz")["status"] != "ok":
        assert time.monotonic() < deadline, "Ray did not replace the killed replica"
        time.sleep(0.2)
    replaced = ray.get(hub.replicas[0].info.remote())
    assert replaced.epoch != victim.epoch and replaced.restarted
    # The replacement takes new sessions; the entry URL never changed.
    ids = {_replica(client.reset("tiny", seed=i)["session_id"]) for i in range(4)}
    assert ids == {0, 1}
    text = _get_text(hub.url + "/metrics")
    assert _metric(text, "agentworld_sessions_lost_total") == len(lost) + 1  # + the WebSocket
    assert _metric(text, "agentworld_replica_restarts_total") == 1
    assert _metric(text, "agentworld_errors_total", code="SESSION_LOST") == len(lost) + 1
    client.close()


def test_a_restarted_router_still_routes_every_session(hub):
    """Runs after the replica-killing test: the router's state is only in the ids, so a router
    Ray restarts (here on a new free port, found by name) serves the sessions opened before."""
    client = SyncHubClient(hub.url)
    sids = [client.reset("tiny", seed=i)["session_id"] for i in range(4)]
    client.close()
    os.kill(ray.get(hub.router.pid.remote()), signal.SIGKILL)
    deadline = time.monotonic() + 60
    while True:
        try:
            url = find_hub_url("test-hub", timeout=5)
            if url != hub.url:
                break
        except (ray.exceptions.ActorUnavailableError, ray.exceptions.GetTimeoutError):
            pass
        assert time.monotonic() < deadline, "Ray did not restart the router"
        time.sleep(0.2)
    client = SyncHubClient(url)
    for sid in sids:
        assert client.step(sid, {"name": "list_items", "arguments": {"list_id": "lst_home"}})
        client.end(sid)
    client.close()


@pytest.mark.slow
def test_full_form_256_sessions_and_a_replica_killed_mid_run(cluster):
    """256 concurrent sessions on 4 replicas over 2 nodes, twice: once undisturbed, once with
    replica 1 killed when half the steps are done. Prints the figures."""
    n, steps_each = 256, len(_actions(0))
    config = RayHubConfig(replicas=4, num_cpus=0.5, poll_interval=0.2,
                          settings=HubSettings(max_sessions=512))
    env = tiny_catalog().load("tiny")
    replays = [_in_process(env, i) for i in range(n)]
    with RayHub(config, catalog_factory=tiny_catalog) as hub:
        async def run(after_step=None):
            async with HubClient(hub.url) as client:
                started = time.perf_counter()
                results = await asyncio.gather(*(_play(client, i, after_step=after_step)
                                                 for i in range(n)))
                return results, time.perf_counter() - started

        results, elapsed = asyncio.run(run())
        assert [got for _, got in results] == replays
        spread = {r: [x for x, _ in results].count(r) for r in range(4)}
        assert all(spread.values()), spread

        victim = ray.get(hub.replicas[1].info.remote())
        done, killed_at = 0, []

        def after_step():
            nonlocal done
            done += 1
            if done == n * steps_each // 2:
                killed_at.append(time.monotonic())
                os.kill(victim.pid, signal.SIGKILL)

        killed, killed_elapsed = asyncio.run(run(after_step))
        on_victim = [i for i, (r, _) in enumerate(killed) if r == 1]
        lost = [i for i in on_victim if killed[i][1] == (410, "SESSION_LOST")]
        finished = [i for i in on_victim if killed[i][1] == replays[i]]
        assert len(lost) + len(finished) == len(on_victim) and lost
        for i, (replica, got) in enumerate(killed):
            if replica != 1:
                assert got == replays[i], f"session {i} on a live replica was disturbed"
        while _epoch(hub.replicas[1]) in (None, victim.epoch):
            time.sleep(0.1)
        replaced_after = time.monotonic() - killed_at[0]
        text = _get_text(hub.url + "/metrics")
        assert _metric(text, "agentworld_sessions_lost_total") == len(lost)
        figures = {"sessions": n, "replicas": 4, "nodes": 2, "steps": n * steps_each,
                   "seconds": round(elapsed, 2),
                   "steps_per_s": round(n * steps_each / elapsed, 1),
                   "requests_per_s": round(n * (steps_each + 3) / elapsed, 1),
                   "spread": spread, "killed_run_seconds": round(killed_elapsed, 2),
                   "on_killed_replica": len(on_victim), "lost": len(lost),
                   "finished_before_kill": len(finished),
                   "others_undisturbed": n - len(on_victim),
                   "replaced_after_s": round(replaced_after, 2),
                   "metrics_sessions_lost": _metric(text, "agentworld_sessions_lost_total"),
                   "metrics_steps_total": _metric(text, "agentworld_steps_total")}
        print("\nray cluster full form:", json.dumps(figures))
