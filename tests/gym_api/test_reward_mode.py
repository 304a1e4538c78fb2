"""The reward scale: binary by default, partial credit as an option, a failure below a pass."""

import pytest

from agentworld.gym_api.env import AgentWorldEnv


def _lookup_then_wrong_answer(env: AgentWorldEnv):
    obs, info = env.reset(seed=0, options={"task_id": "airline/ref-001"})
    call = next(c for c in env.unwrapped._backend.episode.task.reference_calls)
    env.step({"name": call[0], "arguments": call[1]})
    return env.step({"name": "submit", "arguments": {"answer": "It is 999."}})


@pytest.mark.parametrize("mode", ["binary", "partial"])
def test_a_failure_scores_at_most_half_and_below_a_pass(mode):
    env = AgentWorldEnv("airline", reward_mode=mode)
    try:
        _, reward, terminated, _, info = _lookup_then_wrong_answer(env)
        assert terminated and not info["verdict"]["passed"]
        assert 0 < info["verdict"]["score"] < 1
        expected = 0.0 if mode == "binary" else 0.5 * info["verdict"]["score"]
        assert reward == pytest.approx(expected) and reward <= 0.5
    finally:
        env.close()


def test_an_unknown_reward_mode_is_refused():
    with pytest.raises(ValueError, match="reward_mode"):
        AgentWorldEnv("airline", reward_mode="generous")
