"""Registration, checked in fresh interpreters: nothing registered before, cheap, idempotent."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS, default_catalog
from tests.gym_api.conftest import require_reference


def run_python(code: str) -> dict:
    """Run ``code`` in a fresh interpreter with warnings as errors; it prints one JSON line."""
    proc = subprocess.run([sys.executable, "-W", "error", "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_import_agentworld_registers_every_catalog_id_cheaply_and_idempotently():
    out = run_python("""
        import importlib, json, sys
        import gymnasium as gym
        before = sorted(k for k in gym.registry if k.startswith("agentworld/"))
        import agentworld
        ids = sorted(k for k in gym.registry if k.startswith("agentworld/"))
        spec = gym.spec(ids[0])
        heavy = sorted(m for m in sys.modules
                       if m.startswith(("agentworld.servers.envs.", "agentworld.hub")))
        importlib.reload(agentworld)
        import agentworld.gym_api.registration as registration
        again = registration.register_envs()
        print(json.dumps({"before": before, "ids": ids, "heavy": heavy,
                          "same_spec": gym.spec(ids[0]) is spec, "again": sorted(again),
                          "entry_point": spec.entry_point, "kwargs": spec.kwargs,
                          "max_episode_steps": spec.max_episode_steps}))
    """)
    expected = sorted(f"agentworld/{env_id}-v0" for env_id in default_catalog().ids())
    assert len(expected) >= 1978  # the hand-built environments and the whole world
    assert {f"agentworld/{env_id}-v0" for env_id in REFERENCE_ENVIRONMENTS} <= set(expected)
    assert out["before"] == [] and out["ids"] == expected and out["again"] == expected
    assert out["heavy"] == [] and out["same_spec"] is True
    assert out["entry_point"] == "agentworld.gym_api.env:AgentWorldEnv"
    assert out["kwargs"] == {"env_id": out["ids"][0].split("/")[1][:-3]}
    assert out["max_episode_steps"] is None


@pytest.mark.parametrize("env_id", sorted(REFERENCE_ENVIRONMENTS))
def test_gym_make_with_module_prefix_needs_no_prior_import(env_id):
    require_reference(env_id)
    out = run_python(f"""
        import json
        import gymnasium as gym
        env = gym.make("agentworld:agentworld/{env_id}-v0")
        obs, info = env.reset(seed=0)
        step = env.step(env.action_space.sample())
        wrappers = []
        layer = env
        while layer is not layer.unwrapped:
            wrappers.append(type(layer).__name__)
            layer = layer.env
        env.close()
        print(json.dumps({{"env_id": info["env_id"], "obs": isinstance(obs, str),
                          "tools": len(info["tools"]), "step": isinstance(step[0], str),
                          "wrappers": wrappers}}))
    """)
    assert out["env_id"] == env_id and out["obs"] and out["step"] and out["tools"] > 0
    assert "TimeLimit" not in out["wrappers"]
