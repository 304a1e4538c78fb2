"""The manifest: what an environment is, where it sits in the taxonomy, and the rules it keeps."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Taxonomy", "Rule", "DataSource", "Manifest"]


@dataclass(frozen=True)
class Taxonomy:
    l1: str
    l2: str
    l3: str


@dataclass(frozen=True)
class Rule:
    """A business rule in prose, with the tools that enforce it and the error code they give."""

    id: str
    text: str
    tools: tuple[str, ...]
    code: str


@dataclass(frozen=True)
class DataSource:
    name: str
    licence: str
    description: str


@dataclass(frozen=True)
class Manifest:
    id: str
    version: str
    title: str
    description: str
    taxonomy: Taxonomy
    rules: tuple[Rule, ...]
    data_sources: tuple[DataSource, ...]
    # The environment's "now" when a session starts; the deterministic clock counts from here.
    epoch: str = "2026-03-02T09:00:00Z"
    tags: tuple[str, ...] = field(default=())
    # What changes as a side effect of any write and says nothing about the task's outcome:
    # whole tables ("audit_events") or columns ("issues.updated_at", "*.updated_at"). Verifiers
    # leave these out of their whole-database guard.
    bookkeeping: tuple[str, ...] = field(default=())
    # Where a mined environment comes from: the package, version, sha256 and licence, which of
    # its tools were kept, which were added, and why the others were dropped. None otherwise.
    provenance: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
