"""Gymnasium ids for the catalog: ``agentworld/<env id>-v0``, all on one class.

``import agentworld`` calls :func:`register_envs`, so ``gym.make("agentworld/notion-v0")`` works
after it and ``gym.make("agentworld:agentworld/notion-v0")`` works without it (Gymnasium imports
the module named before the colon). Registering reads the catalog's id list only: no environment
module is imported and no template database is built until an env is made.
"""

from __future__ import annotations

__all__ = ["ENTRY_POINT", "NAMESPACE", "gym_id", "register_envs"]

ENTRY_POINT = "agentworld.gym_api.env:AgentWorldEnv"
NAMESPACE = "agentworld"


def gym_id(env_id: str) -> str:
    """The Gymnasium id of a catalog environment, e.g. ``agentworld/notion-v0``."""
    return f"{NAMESPACE}/{env_id}-v0"


def register_envs() -> list[str]:
    """Register every id of the default catalog with Gymnasium; returns the Gymnasium ids.

    Idempotent: ids already registered (a second import, ``importlib.reload``) are left as they
    are, so no "overriding environment" warning is raised. No ``max_episode_steps`` is
    registered: the episode truncates itself at its task's limit, and a ``TimeLimit`` wrapper on
    top would cut episodes short of their verifier.
    """
    from gymnasium.envs.registration import register, registry

    from agentworld.servers.catalog import default_catalog

    ids = []
    for env_id in default_catalog().ids():
        name = gym_id(env_id)
        if name not in registry:
            register(id=name, entry_point=ENTRY_POINT, kwargs={"env_id": env_id})
        ids.append(name)
    return ids
