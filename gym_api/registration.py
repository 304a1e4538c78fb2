"""Gymnasium ids for the catalog: ``agentworld/<env id>-v0``, all on one class.

``import agentworld`` calls :func:`register_envs`, so ``gym.make("agentworld/notion-v0")`` works
after it and ``gym.make("agentworld:agentworld/notion-v0")`` works without it (Gymnasium imports
the module named before the colon). Registering reads the catalog's id list only: no environment
module is imported and no template database is built until an env is made.

A client without the environments (imported ones live in one machine's import folder) learns
the ids from a hub instead: :func:`register_hub_envs` asks the hub for its list and registers
every id it serves, with ``hub_url`` in the spec's kwargs, so ``gym.make(id)`` (or
``gym.make(id, hub_url=...)``) runs it there. With ``AGENTWORLD_HUB_URL`` set,
``import agentworld`` does this too, and only logs a warning when that hub cannot be reached.
"""

from __future__ import annotations

import logging
import os

from .errors import AgentWorldEnvError

__all__ = ["ENTRY_POINT", "NAMESPACE", "gym_id", "register_envs", "register_hub_envs"]

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
    hub_url = os.environ.get("AGENTWORLD_HUB_URL")
    if hub_url:
        try:
            remote = register_hub_envs(hub_url, token=os.environ.get("AGENTWORLD_TOKEN"))
        except AgentWorldEnvError as exc:
            # Importing agentworld must not fail because a hub is not up yet (a Ray worker
            # may import it before the hub it will use has started); the local ids stand.
            logging.getLogger(__name__).warning("hub environments not registered: %s", exc)
            remote = []
        ids += [i for i in remote if i not in ids]
    return ids


def register_hub_envs(hub_url: str, *, token: str | None = None) -> list[str]:
    """Register every environment a hub serves; returns their Gymnasium ids.

    Ids already registered (this machine has the environment) keep their spec: pass
    ``hub_url`` to ``gym.make`` to run them remotely. Raises ``AgentWorldEnvError`` when the
    hub cannot be reached or refuses the listing.
    """
    from gymnasium.envs.registration import register, registry

    from agentworld.hub.client import HubClientError, SyncHubClient

    client = SyncHubClient(hub_url, token=token)
    names, offset = [], 0
    try:
        while offset is not None:
            page = client.list_envs(offset=offset, limit=500)
            for row in page["envs"]:
                name = gym_id(row["id"])
                if name not in registry:
                    register(id=name, entry_point=ENTRY_POINT,
                             kwargs={"env_id": row["id"], "hub_url": hub_url, "token": token})
                names.append(name)
            offset = page.get("next_offset")
    except HubClientError as exc:
        raise AgentWorldEnvError(exc.code, exc.message, status=exc.status) from exc
    except OSError as exc:
        raise AgentWorldEnvError("HUB_UNREACHABLE", f"{hub_url}: {exc}") from exc
    finally:
        client.close()
    return names
