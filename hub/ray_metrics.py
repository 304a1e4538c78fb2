"""Metrics of a hub on a Ray cluster: the router's own counters, and the sum over replicas.

Every replica exposes the ordinary hub metrics; the entry router fetches them and adds up the
samples that share a name and labels (counters, histogram buckets, and the live-sessions gauge
all add up across replicas). The router's own families (sessions lost, replica restarts,
replicas up, its own error answers) are merged in the same way, so one scrape of the entry URL
describes the whole cluster.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.parser import text_string_to_metric_families

__all__ = ["RouterMetrics", "merge_metrics"]


class RouterMetrics:
    """The router's registry: what only the router can see."""

    def __init__(self, replicas_up) -> None:
        self.registry = CollectorRegistry()
        self.sessions_lost = Counter(
            "agentworld_sessions_lost_total",
            "Sessions answered SESSION_LOST because the replica holding them failed.",
            ["replica"], registry=self.registry)
        self.replica_restarts = Counter(
            "agentworld_replica_restarts_total", "Replica incarnations replaced by Ray.",
            ["replica"], registry=self.registry)
        self.errors = Counter("agentworld_errors_total", "Requests answered with an error.",
                              ["code"], registry=self.registry)
        up = Gauge("agentworld_replicas_up", "Replicas answering now.", registry=self.registry)
        up.set_function(replicas_up)

    def render(self) -> str:
        return generate_latest(self.registry).decode()


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _sample_line(name: str, labels: tuple[tuple[str, str], ...], value: float) -> str:
    inner = ",".join(f'{k}="{_escape(v)}"' for k, v in labels)
    number = repr(float(value)) if value != int(value) else f"{float(value):.1f}"
    return f"{name}{{{inner}}} {number}" if inner else f"{name} {number}"


def merge_metrics(texts: list[str]) -> str:
    """Sum Prometheus text expositions sample by sample (same name and labels).

    ``_created`` samples (timestamps, not quantities) are dropped. Raises ValueError on text
    that is not the Prometheus exposition format.
    """
    families: dict[str, tuple[str, str, dict]] = {}
    for text in texts:
        for family in text_string_to_metric_families(text):
            _, _, sums = families.setdefault(family.name, (family.type, family.documentation,
                                                           {}))
            for sample in family.samples:
                if sample.name.endswith("_created"):
                    continue
                key = (sample.name, tuple(sorted(sample.labels.items())))
                sums[key] = sums.get(key, 0.0) + sample.value
    lines = []
    for name, (kind, doc, sums) in sorted(families.items()):
        exposed = f"{name}_total" if kind == "counter" else name
        lines += [f"# HELP {exposed} {doc}", f"# TYPE {exposed} {kind}"]
        # First-seen order keeps histogram buckets ascending, as the format expects.
        lines += [_sample_line(sample, labels, value)
                  for (sample, labels), value in sums.items()]
    return "\n".join(lines) + "\n"
