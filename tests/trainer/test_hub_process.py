"""The run's hub in its own process: started, answering over HTTP, stopped."""

from __future__ import annotations

import json
import urllib.request

import pytest

from agentworld.trainer.errors import LaunchError
from agentworld.trainer.hub_process import spawn_hub

TINY = "tests.fixtures.tiny_env:DEFINITION"


def test_spawned_hub_serves_the_run_catalog_and_stops():
    from agentworld.hub.client import SyncHubClient

    with spawn_hub([TINY]) as url:
        with urllib.request.urlopen(f"{url}/healthz") as resp:
            assert json.loads(resp.read())["status"] == "ok"
        hub = SyncHubClient(url)
        started = hub.reset("tiny", task_id="count-home")
        assert started["info"]["relevant_tools"][0] == "list_items"
        hub.end(started["session_id"])
        hub.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(f"{url}/healthz", timeout=2)


def test_a_bad_definition_is_a_clear_error():
    with pytest.raises(LaunchError, match="did not start"):
        with spawn_hub(["tests.fixtures.tiny_env:NOT_THERE"], timeout=60):
            pass


def test_a_fresh_machine_without_a_task_cache_still_has_catalog_tasks(tmp_path):
    # The task cache is made on first use: before, a missing folder meant no generated tasks,
    # and the learning benchmark stopped on "no tasks in notion" on a fresh machine.
    from agentworld.trainer.hub_process import build_catalog
    from agentworld.trainer.tasks import collect_tasks

    task_dir = tmp_path / "not-yet" / "tasks"
    catalog, ids = build_catalog(["airline", TINY], task_dir=task_dir)
    assert ids == ["airline", "tiny"]
    assert collect_tasks(catalog, ["airline"])
    assert any(task_dir.iterdir())
