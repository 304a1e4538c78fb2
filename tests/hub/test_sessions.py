import pytest

from agentworld.hub.errors import SessionCapacityError, UnknownSessionError
from agentworld.hub.sessions import SessionManager
from agentworld.servers import Catalog
from tests.fixtures.tiny_env import DEFINITION


@pytest.fixture
def manager():
    catalog = Catalog(modules={})
    catalog.add(DEFINITION)
    return SessionManager(catalog, max_sessions=3, idle_timeout=10)


def test_ids_and_tokens_are_long_random_and_distinct(manager):
    sessions = [manager.create("tiny", seed=0) for _ in range(3)]
    secrets_ = {s.id for s in sessions} | {s.mcp_token for s in sessions}
    assert len(secrets_) == 6 and all(len(x) >= 32 for x in secrets_)


def test_capacity_is_enforced_and_recovers(manager):
    sessions = [manager.create("tiny") for _ in range(3)]
    with pytest.raises(SessionCapacityError) as caught:
        manager.create("tiny")
    assert (caught.value.active, caught.value.limit) == (3, 3)
    manager.delete(sessions[0].id)
    assert manager.create("tiny")


def test_idle_sessions_are_reaped_and_closed(manager):
    old = manager.create("tiny")
    fresh = manager.create("tiny")
    fresh.last_used = old.last_used + 100
    assert manager.reap_idle(now=old.last_used + 50) == 1
    assert old.episode.session.closed
    with pytest.raises(UnknownSessionError):
        manager.get(old.id)
    assert manager.get(fresh.id) is fresh


def test_unknown_ids_and_tokens(manager):
    with pytest.raises(UnknownSessionError):
        manager.get("nope")
    with pytest.raises(UnknownSessionError):
        manager.by_mcp_token("nope")
    with pytest.raises(UnknownSessionError):
        manager.delete("nope")
