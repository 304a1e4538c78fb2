"""Prometheus metrics of one hub: sessions, steps, latency and errors.

Each app gets its own registry, so several hubs in one process (tests) never share counters.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

__all__ = ["HubMetrics"]


class HubMetrics:
    def __init__(self, live_sessions) -> None:
        self.registry = CollectorRegistry()
        self.sessions_created = Counter("agentworld_sessions_created_total",
                                        "Episodes reset.", ["env"], registry=self.registry)
        self.sessions_reaped = Counter("agentworld_sessions_reaped_total",
                                       "Sessions ended by the idle reaper.", registry=self.registry)
        self.steps = Counter("agentworld_steps_total", "Steps and tool calls served.",
                             ["env", "outcome"], registry=self.registry)
        self.errors = Counter("agentworld_errors_total", "Requests answered with an error.",
                              ["code"], registry=self.registry)
        self.step_latency = Histogram(
            "agentworld_step_latency_seconds", "Time to serve one step, in the hub.",
            buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                     0.25, 1.0), registry=self.registry)
        self.reset_latency = Histogram(
            "agentworld_reset_latency_seconds", "Time to reset an episode, in the hub.",
            buckets=(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1.0),
            registry=self.registry)
        self._step_children: dict[tuple[str, bool], Any] = {}
        live = Gauge("agentworld_live_sessions", "Sessions alive now.", registry=self.registry)
        live.set_function(live_sessions)

    def count_step(self, env_id: str, ok: bool) -> None:
        """Count one step. The labelled child is looked up once per (env, outcome): the
        lookup takes a lock and builds a tuple, a measurable share of a cheap step."""
        key = (env_id, ok)
        child = self._step_children.get(key)
        if child is None:
            child = self._step_children[key] = self.steps.labels(
                env_id, "ok" if ok else "tool_error")
        child.inc()

    def render(self) -> bytes:
        return generate_latest(self.registry)
