"""What compiling a card accumulates: schema, seed steps, tools, rules with breakers, probes.

Entities and feature modules both add to one :class:`EnvBuilder`; ``compile.py`` then freezes it
into an :class:`EnvironmentDefinition`. The breakers and probes are what the pipeline's filters
use to test every rule and every tool against the seeded data.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers.manifest import Rule
from agentworld.servers.tools import Toolset

from .data import Region
from .spec import Archetype, ThemeCard

__all__ = ["Call", "RuleSpec", "Probe", "EnvBuilder", "Seeder"]

Call = tuple[str, dict[str, Any]]
Seeder = Callable[[sqlite3.Connection, random.Random], None]


@dataclass(frozen=True)
class RuleSpec:
    """A business rule and how to break it: ``breaker(db)`` proposes candidate calls drawn from
    the seeded data; the rule holds when one of them is refused with the rule's code on a fresh
    session (a candidate refused for another reason proves nothing and is skipped)."""

    rule: Rule
    breaker: Callable[[sqlite3.Connection], list[Call]]


@dataclass(frozen=True)
class Probe:
    """How the pipeline calls a tool on the seeded data: candidate arguments of which one must
    succeed, and candidate arguments of which one must fail with ``failure_code``. For a
    mutating tool, ``changes`` names the table the success call must change."""

    success: Callable[[sqlite3.Connection], list[dict[str, Any]]]
    failure: Callable[[sqlite3.Connection], list[dict[str, Any]]]
    failure_code: str
    changes: str = ""


@dataclass
class EnvBuilder:
    card: ThemeCard
    archetype: Archetype
    region: Region
    schema: list[str] = field(default_factory=list)
    seeders: list[Seeder] = field(default_factory=list)
    tools: Toolset = field(default_factory=Toolset)
    rules: list[RuleSpec] = field(default_factory=list)
    probes: dict[str, Probe] = field(default_factory=dict)
    sources: set[str] = field(default_factory=set)
    # Called after every successful mutation of an entity row: (ctx, table, row_id, action).
    on_mutation: list[Callable[[Any, str, str, str], None]] = field(default_factory=list)
    # Which feature module declared a tool or a rule (absent: the archetype's entities).
    owners: dict[str, str] = field(default_factory=dict)
    # Tables or columns every write touches as a side effect (see Manifest.bookkeeping).
    bookkeeping: tuple[str, ...] = ("*.updated_at",)

    def add_rule(self, rule: Rule, breaker: Callable[[sqlite3.Connection], list[Call]]) -> None:
        self.rules.append(RuleSpec(rule, breaker))

    def mutated(self, ctx: Any, table: str, row_id: str, action: str) -> None:
        for hook in self.on_mutation:
            hook(ctx, table, row_id, action)
