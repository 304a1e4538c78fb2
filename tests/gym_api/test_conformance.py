"""One conformance suite for both modes: every test runs in-process and against a real hub."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

from agentworld.gym_api import AgentWorldEnvError, EpisodeEndedError
from agentworld.hub.client import HubClientError, SyncHubClient
from tests.fixtures.tiny_env import DEFINITION as TINY

TOOL_NAMES = ["list_items", "add_item", "complete_item", "write_then_crash"]


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


def test_reset_returns_the_prompt_and_info_describing_the_episode(make_env):
    env = make_env()
    obs, info = env.reset(seed=0)
    assert obs == info["prompt"] == TINY.tasks[0].prompt
    assert info["task_id"] == "complete-item-3" and info["env_id"] == "tiny"
    assert info["env_version"] == "1.0.0" and info["seed"] == 0 and info["max_steps"] == 5
    assert isinstance(info["episode_id"], str) and len(info["episode_id"]) >= 16
    assert [t["name"] for t in info["tools"]] == TOOL_NAMES
    assert info["tools"][0]["inputSchema"]["required"] == ["list_id"]
    assert obs in env.observation_space
    _, again = env.reset(seed=0)
    assert again["episode_id"] != info["episode_id"]


def test_the_seed_picks_the_task_deterministically(make_env):
    env = make_env()
    assert env.reset(seed=0)[1]["task_id"] == "complete-item-3"
    assert env.reset(seed=1)[1]["task_id"] == "count-home"
    assert env.reset(seed=41)[1]["task_id"] == "count-home"
    # Unseeded resets draw from np_random: the same sequence after the same seed.
    first = [env.reset(seed=123)[1]["seed"]] + [env.reset()[1]["seed"] for _ in range(4)]
    second = [env.reset(seed=123)[1]["seed"]] + [env.reset()[1]["seed"] for _ in range(4)]
    assert first == second and len(set(first)) == 5


def test_the_task_id_option_picks_the_task(make_env):
    env = make_env()
    for seed in (0, 1):
        _, info = env.reset(seed=seed, options={"task_id": "count-home"})
        assert info["task_id"] == "count-home" and info["seed"] == seed
    with pytest.raises(AgentWorldEnvError) as raised:
        env.reset(options={"task_id": "no-such-task"})
    assert raised.value.code == "UNKNOWN_TASK"
    with pytest.raises(ValueError, match="unknown reset options"):
        env.reset(options={"tsak_id": "count-home"})


def test_tool_calls_change_the_episode_state(make_env):
    env = make_env()
    env.reset(seed=0)
    before = env.episode_state()["db_hash"]
    obs, reward, terminated, truncated, info = env.step(call("add_item", list_id="lst_home",
                                                             title="Buy milk"))
    item = json.loads(obs)["item"]
    assert item["title"] == "Buy milk" and (reward, terminated, truncated) == (0.0, False, False)
    assert info == {"step": 1, "tool": "add_item", "ok": True, "error_code": None}
    assert env.episode_state()["db_hash"] != before
    obs, *_ = env.step(call("list_items", list_id="lst_home"))
    assert item["id"] in [row["id"] for row in json.loads(obs)["items"]]
    state = env.episode_state()
    assert state["steps"] == 2 and [s["tool"] for s in state["trajectory"]] == [
        "add_item", "list_items"]


def test_every_action_encoding_is_accepted(make_env):
    env = make_env()
    env.reset(seed=0)
    encodings = [
        call("list_items", list_id="lst_work"),
        json.dumps(call("list_items", list_id="lst_work")),
        {"name": "list_items", "arguments": json.dumps({"list_id": "lst_work"})},
        {"tool_calls": [{"type": "function", "function": {
            "name": "list_items", "arguments": json.dumps({"list_id": "lst_work"})}}]},
    ]
    observations = [env.step(action)[0] for action in encodings]
    assert len(set(observations)) == 1 and len(json.loads(observations[0])["items"]) == 5


@pytest.mark.parametrize("action, code", [
    ("not json", "MALFORMED_ACTION"),
    (42, "MALFORMED_ACTION"),
    ({"arguments": {}}, "MALFORMED_ACTION"),
    ({"name": "list_items", "arguments": "{broken"}, "MALFORMED_ACTION"),
    ({"name": "no_such_tool", "arguments": {}}, "UNKNOWN_TOOL"),
    ({"name": "list_items", "arguments": {"list_id": 7}}, "VALIDATION_ERROR"),
    ({"name": "list_items", "arguments": {"list_id": {1, 2}}}, "MALFORMED_ACTION"),
    ({"name": "complete_item", "arguments": {"item_id": "itm_missing"}}, "NOT_FOUND"),
])
def test_bad_actions_become_observations_not_exceptions(make_env, action, code):
    env = make_env()
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(action)
    assert json.loads(obs)["error"]["code"] == code
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["step"] == 1 and (info.get("malformed") or info["error_code"] == code)


@pytest.mark.parametrize("task", TINY.tasks, ids=lambda t: t.id)
def test_the_reference_solution_earns_the_full_reward(make_env, task):
    env = make_env()
    env.reset(options={"task_id": task.id})
    for name, arguments in task.reference_calls:
        assert env.step(call(name, **arguments))[1:4] == (0.0, False, False)
    obs, reward, terminated, truncated, info = env.step(
        call("submit", answer=task.reference_answer))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["verdict"]["passed"] is True
    assert set(info["verdict"]["components"].values()) == {1.0}
    assert json.loads(obs)["reward"] == 1.0


def test_a_wrong_solution_earns_less(make_env):
    env = make_env()
    env.reset(options={"task_id": "count-home"})
    assert env.step(call("submit", answer="7"))[1] == 0.0
    env.reset(options={"task_id": "complete-item-3"})
    env.step(call("complete_item", item_id="itm_3"))
    env.step(call("complete_item", item_id="itm_4"))
    _, reward, terminated, _, info = env.step(call("submit"))
    # Half the checks hold, but a failure earns nothing under the default (binary) reward.
    assert terminated and reward == 0.0 and info["verdict"]["score"] == 0.5
    assert info["verdict"]["components"] == {"itm_3 done": 1.0, "nothing else": 0.0}


def test_the_episode_truncates_at_max_episode_steps_and_is_scored(make_env):
    env = make_env(max_episode_steps=2)
    _, info = env.reset(options={"task_id": "complete-item-3"})
    assert info["max_steps"] == 2
    assert env.step(call("complete_item", item_id="itm_3"))[2:4] == (False, False)
    obs, reward, terminated, truncated, info = env.step(call("list_items", list_id="lst_home"))
    assert (terminated, truncated, reward) == (False, True, 1.0)
    assert "items" in json.loads(obs) and info["verdict"]["passed"] is True


def test_stepping_an_ended_episode_raises_reset_needed(make_env):
    env = make_env()
    with pytest.raises(EpisodeEndedError):
        env.step(call("list_items", list_id="lst_home"))
    env.reset(seed=1)
    env.step(call("submit", answer="5"))
    with pytest.raises(gym.error.ResetNeeded) as raised:
        env.step(call("list_items", list_id="lst_home"))
    assert raised.value.code == "EPISODE_OVER"
    env.reset(seed=1)
    assert env.step(call("list_items", list_id="lst_home"))[2:4] == (False, False)


def test_an_unknown_environment_fails_the_same_way(mode, tiny_hub_url):
    from agentworld.gym_api import AgentWorldEnv
    from tests.gym_api.conftest import TINY_CATALOG

    kwargs = {"hub_url": tiny_hub_url} if mode == "remote" else {"catalog": TINY_CATALOG}
    with pytest.raises(AgentWorldEnvError) as raised:
        AgentWorldEnv("no-such-env", **kwargs)
    assert raised.value.code == "UNKNOWN_ENVIRONMENT"


def test_render_shows_the_last_exchange(make_env):
    env = make_env(render_mode="ansi")
    env.reset(seed=0)
    assert "Mark 'Item 3'" in env.render()
    env.step(call("list_items", list_id="lst_home"))
    text = env.render()
    assert '"list_id": "lst_home"' in text and "itm_1" in text


def _episode(env, seed: int, actions: list) -> list:
    obs, info = env.reset(seed=seed)
    info.pop("episode_id")
    out = [(obs, info)]
    for action in actions:
        result = env.step(action)
        out.append(result)
        if result[2] or result[3]:
            break
    return out


def test_both_modes_give_identical_episodes(make_both):
    local, remote = make_both()
    scripted = [call("add_item", list_id="lst_work", title="Plan"), "oops",
                call("list_items", list_id=np.str_("lst_work")),
                call("list_items", list_id=np.int64(3)), call("list_items", list_id={1}),
                call("complete_item", item_id="itm_3"), call("write_then_crash", title="x"),
                call("submit")]
    assert _episode(local, 0, scripted) == _episode(remote, 0, scripted)
    for seed in range(4):
        local.action_space.seed(seed)
        actions = [local.action_space.sample() for _ in range(6)]
        assert _episode(local, seed, actions) == _episode(remote, seed, actions)


def test_close_ends_the_hub_session(tiny_hub_url, make_both):
    _, env = make_both()
    _, info = env.reset(seed=0)
    assert env.mcp_url and env.mcp_url.endswith("/mcp")
    client = SyncHubClient(tiny_hub_url)
    assert client.state(info["episode_id"])["steps"] == 0
    env.reset(seed=0)  # a reset ends the previous session too
    with pytest.raises(HubClientError) as raised:
        client.state(info["episode_id"])
    assert raised.value.code == "UNKNOWN_SESSION"
    current = env.episode_state()["episode_id"]
    env.close()
    env.close()
    with pytest.raises(HubClientError):
        client.state(current)
    client.close()


def test_a_lost_hub_session_raises_and_needs_a_reset(tiny_hub_url, make_both):
    _, env = make_both()
    _, info = env.reset(seed=0)
    client = SyncHubClient(tiny_hub_url)
    client.end(info["episode_id"])  # as the idle reaper would
    client.close()
    with pytest.raises(AgentWorldEnvError) as raised:
        env.step(call("list_items", list_id="lst_home"))
    assert raised.value.code == "UNKNOWN_SESSION" and raised.value.status == 404
    with pytest.raises(EpisodeEndedError):
        env.step(call("list_items", list_id="lst_home"))
    env.close()  # ending a session the hub already dropped is not an error
    env.reset(seed=0)
    assert env.step(call("list_items", list_id="lst_home"))[2:4] == (False, False)
