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
