"""Fixtures for the Gymnasium layer: the tiny environment in-process and on a real hub.

``make_env`` is parametrized over the two modes, so one test function checks both.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Iterator

import gymnasium as gym
import pytest

from agentworld.gym_api import AgentWorldEnv
from agentworld.servers import Catalog
from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS
from tests.fixtures.live_server import live_server
from tests.fixtures.tiny_env import DEFINITION as TINY

MODES = ["inprocess", "remote"]
TINY_ID = "agentworld-test/tiny-v0"

TINY_CATALOG = Catalog(modules={})
TINY_CATALOG.add(TINY)


def _make_tiny(**kwargs) -> AgentWorldEnv:
    # A plain function, not functools.partial: Gymnasium deep-copies specs (make_vec), and a
    # Catalog holds a lock that cannot be copied; a function is copied by reference.
    if "hub_url" not in kwargs:
        kwargs["catalog"] = TINY_CATALOG
    return AgentWorldEnv(**kwargs)


if TINY_ID not in gym.registry:
    gym.register(id=TINY_ID, entry_point=_make_tiny, kwargs={"env_id": "tiny"})


def reference_available(env_id: str) -> bool:
    """Whether a reference environment's package is importable."""
    spec = importlib.util.find_spec(REFERENCE_ENVIRONMENTS[env_id])
    return spec is not None and spec.origin is not None


def require_reference(env_id: str) -> None:
    assert reference_available(env_id), f"reference environment {env_id!r} is missing"


def _hub(catalog: Catalog | None) -> Iterator[str]:
    from agentworld.hub.app import create_app
    from agentworld.hub.settings import HubSettings

    with live_server(create_app(catalog, settings=HubSettings(max_sessions=256))) as url:
        yield url


@pytest.fixture(scope="session")
def tiny_hub_url() -> Iterator[str]:
    """A real hub on 127.0.0.1:0 serving the tiny catalog."""
    yield from _hub(TINY_CATALOG)


@pytest.fixture(scope="session")
def catalog_hub_url() -> Iterator[str]:
    """A real hub on 127.0.0.1:0 serving the default catalog (the reference environments)."""
    yield from _hub(None)


@pytest.fixture(params=MODES)
def mode(request) -> str:
    return request.param


@pytest.fixture
def make_env(request, mode) -> Iterator[Callable[..., AgentWorldEnv]]:
    """A factory of tiny envs in the current mode; every env it made is closed afterwards."""
    made: list[AgentWorldEnv] = []

    def factory(**kwargs) -> AgentWorldEnv:
        if mode == "remote":
            kwargs["hub_url"] = request.getfixturevalue("tiny_hub_url")
        env = _make_tiny(env_id="tiny", **kwargs)
        made.append(env)
        return env

    yield factory
    for env in made:
        env.close()


@pytest.fixture
def make_both(request) -> Iterator[Callable[..., tuple[AgentWorldEnv, AgentWorldEnv]]]:
    """A factory of (in-process, remote) tiny env pairs with the same arguments."""
    made: list[AgentWorldEnv] = []

    def factory(**kwargs) -> tuple[AgentWorldEnv, AgentWorldEnv]:
        local = _make_tiny(env_id="tiny", **kwargs)
        remote = _make_tiny(env_id="tiny", hub_url=request.getfixturevalue("tiny_hub_url"),
                            **kwargs)
        made.extend((local, remote))
        return local, remote

    yield factory
    for env in made:
        env.close()
