"""Pieces of the Ray hub that need no cluster: the id scheme and the metrics sum."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from agentworld.hub.metrics import HubMetrics
from agentworld.hub.ray_metrics import RouterMetrics, merge_metrics
from agentworld.hub.ray_replica import parse_replica_id, replica_prefix


def test_ids_name_their_replica_and_incarnation():
    prefix = replica_prefix(12, "0a1b2c3d")
    assert parse_replica_id(prefix + "Zm9v-_bar") == (12, "0a1b2c3d")
    for foreign in ("Zm9vYmFy", "r1.0A1B2C3D.x", "r.0a1b2c3d.x", "r1.0a1b2c3.x", "x" + prefix):
        assert parse_replica_id(foreign) is None, foreign


def _hub_metrics(steps: int, live: int) -> str:
    metrics = HubMetrics(lambda: live)
    for _ in range(steps):
        metrics.steps.labels("tiny", "ok").inc()
        metrics.step_latency.observe(0.002)
    metrics.errors.labels("UNKNOWN_SESSION").inc()
    return metrics.render().decode()


def _samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_add_up_across_replicas_and_the_router():
    router = RouterMetrics(lambda: 2)
    router.sessions_lost.labels("1").inc(5)
    router.errors.labels("SESSION_LOST").inc(5)
    merged = _samples(merge_metrics([router.render(), _hub_metrics(3, 4), _hub_metrics(4, 1)]))
    assert merged[("agentworld_steps_total", (("env", "tiny"), ("outcome", "ok")))] == 7
    assert merged[("agentworld_live_sessions", ())] == 5
    assert merged[("agentworld_replicas_up", ())] == 2
    assert merged[("agentworld_sessions_lost_total", (("replica", "1"),))] == 5
    assert merged[("agentworld_errors_total", (("code", "SESSION_LOST"),))] == 5
    assert merged[("agentworld_errors_total", (("code", "UNKNOWN_SESSION"),))] == 2
    assert merged[("agentworld_step_latency_seconds_count", ())] == 7
    bucket = ("agentworld_step_latency_seconds_bucket", (("le", "0.0025"),))
    assert merged[bucket] == 7
    # Creation timestamps are not quantities: they are dropped, not summed.
    assert not any(name.endswith("_created") for name, _ in merged)


def test_merge_rejects_text_that_is_not_prometheus():
    with pytest.raises(ValueError):
        merge_metrics(["agentworld_steps_total{env= 1 2 3"])
