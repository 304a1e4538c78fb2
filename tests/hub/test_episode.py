import json

import pytest

from agentworld.hub.episode import Episode, pick_task
from agentworld.hub.errors import EpisodeOverError, UnknownTaskError


def make(env, task_id="complete-item-3", **kw):
    return Episode(env, task=pick_task(env, task_id=task_id, seed=None), **kw)


def test_reference_solution_scores_one(tiny_env):
    for task in tiny_env.tasks:
        episode = Episode(tiny_env, task=task)
        for name, arguments in task.reference_calls:
            assert episode.step({"name": name, "arguments": arguments}).info["ok"]
        outcome = episode.step({"name": "submit", "arguments": {"answer": task.reference_answer}})
        assert outcome.terminated and not outcome.truncated
        assert outcome.reward == 1.0 and outcome.info["verdict"]["passed"]


def test_untouched_state_does_not_pass(tiny_env):
    outcome = make(tiny_env).step({"name": "submit", "arguments": {"answer": "done"}})
    assert outcome.reward == 0.0 and not outcome.info["verdict"]["passed"]


def test_wrong_answer_gets_partial_or_no_credit(tiny_env):
    episode = make(tiny_env, task_id="count-home")
    assert episode.step({"name": "submit", "arguments": {"answer": "99"}}).reward == 0.0


def test_malformed_action_is_an_observation(tiny_env):
    outcome = make(tiny_env).step("{nope")
    assert not outcome.terminated and outcome.info["malformed"]
    assert json.loads(outcome.observation)["error"]["code"] == "MALFORMED_ACTION"


def test_truncation_at_max_steps_still_verifies(tiny_env):
    episode = make(tiny_env, max_steps=2)
    first = episode.step({"name": "complete_item", "arguments": {"item_id": "itm_3"}})
    assert not (first.terminated or first.truncated)
    second = episode.step({"name": "list_items", "arguments": {"list_id": "lst_home"}})
    assert second.truncated and not second.terminated
    assert second.reward == 1.0  # the state already satisfies the task
    with pytest.raises(EpisodeOverError):
        episode.step({"name": "list_items", "arguments": {"list_id": "lst_home"}})


def test_seed_picks_tasks_deterministically(tiny_env):
    picks = [pick_task(tiny_env, task_id=None, seed=s).id for s in range(4)]
    assert picks == [pick_task(tiny_env, task_id=None, seed=s).id for s in range(4)]
    assert set(picks) == {t.id for t in tiny_env.tasks}


def test_unknown_task_is_refused(tiny_env):
    with pytest.raises(UnknownTaskError):
        pick_task(tiny_env, task_id="nope", seed=None)


def test_calls_from_outside_the_loop_are_recorded(tiny_env):
    episode = make(tiny_env)
    assert episode.call("complete_item", {"item_id": "itm_3"}).ok
    assert episode.state()["trajectory"][0]["tool"] == "complete_item"
    assert episode.step({"name": "submit"}).reward == 1.0
