"""Gymnasium environments for agentworld: one class for every environment, in-process or on a hub.

``import agentworld`` registers every catalog environment as ``agentworld/<id>-v0``. The public
names below load on first use, so that registration (which runs on every ``import agentworld``)
imports only :mod:`.registration`.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["AgentWorldEnv", "AgentWorldEnvError", "EpisodeEndedError", "TextSpace",
           "ToolCallSpace", "gym_id", "register_envs", "register_hub_envs"]

_HOMES = {"AgentWorldEnv": ".env", "AgentWorldEnvError": ".errors",
          "EpisodeEndedError": ".errors", "TextSpace": ".spaces", "ToolCallSpace": ".spaces",
          "gym_id": ".registration", "register_envs": ".registration",
          "register_hub_envs": ".registration"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOMES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
