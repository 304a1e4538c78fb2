"""Gymnasium's own checks on registered ids, both modes; and vector environments."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agentworld.gym_api import gym_id
from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS
from tests.gym_api.conftest import MODES, TINY_ID, require_reference

REFERENCE_IDS = sorted(REFERENCE_ENVIRONMENTS)


def _make(name: str, mode: str, request, hub_fixture: str, **kwargs):
    if mode == "remote":
        kwargs["hub_url"] = request.getfixturevalue(hub_fixture)
    return gym.make(name, **kwargs)


@pytest.mark.parametrize("mode", MODES)
def test_check_env_passes_for_the_tiny_env(mode, request):
    env = _make(TINY_ID, mode, request, "tiny_hub_url")
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("env_id", REFERENCE_IDS)
def test_check_env_passes_for_reference_envs(env_id, mode, request):
    require_reference(env_id)
    env = _make(gym_id(env_id), mode, request, "catalog_hub_url")
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


def test_registered_envs_carry_no_time_limit():
    env = gym.make(TINY_ID)
    try:
        wrapper = env
        while wrapper is not wrapper.unwrapped:
            assert not isinstance(wrapper, gym.wrappers.TimeLimit)
            wrapper = wrapper.env
    finally:
        env.close()


def _run_vector(envs, steps: int = 8) -> None:
    assert envs.observation_space == gym.spaces.Tuple([envs.single_observation_space] * 4)
    obs, info = envs.reset(seed=0)
    assert isinstance(obs, tuple) and len(obs) == 4 and obs in envs.observation_space
    assert list(info["seed"]) == [0, 1, 2, 3] and info["_task_id"].all()
    envs.action_space.seed(0)
    for _ in range(steps):
        actions = envs.action_space.sample()
        assert actions in envs.action_space
        obs, rewards, terminated, truncated, info = envs.step(actions)
        assert all(isinstance(o, str) for o in obs) and len(obs) == 4
        assert rewards.dtype == np.float64 and terminated.shape == truncated.shape == (4,)


@pytest.mark.parametrize("mode", MODES)
def test_make_vec_sync_batches_text_observations(mode, request):
    kwargs = {"hub_url": request.getfixturevalue("tiny_hub_url")} if mode == "remote" else {}
    envs = gym.make_vec(TINY_ID, num_envs=4, vectorization_mode="sync", **kwargs)
    try:
        _run_vector(envs, steps=12)
    finally:
        envs.close()


@pytest.mark.parametrize("env_id", REFERENCE_IDS)
def test_make_vec_sync_works_for_reference_envs(env_id):
    require_reference(env_id)
    envs = gym.make_vec(gym_id(env_id), num_envs=4, vectorization_mode="sync")
    try:
        _run_vector(envs)
    finally:
        envs.close()
