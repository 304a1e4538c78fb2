"""What a programmatic task shape is given and what it returns.

A shape is a small program over an environment's declaration (its archetype: entities, fields,
lifecycles, references). It queries the template database for a situation worth asking about and
returns a :class:`Draft`: the request as a person would write it, the reference solution, and the
expected answer if the request asks for one. It writes no state checks: the generation pipeline
derives them from the reference solution's effect on the database (``effects.py``), adds the
whole-database guard, and audits the task (``audit.py``), so a shape cannot forget a guard.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers.world.compile import CompiledEnvironment
from agentworld.servers.world.data import region
from agentworld.servers.world.spec import Entity, Field, Transition

from ..reference._common import pages

__all__ = ["Draft", "ShapeContext", "Shape", "PAGE", "words"]

PAGE = 100


def words(name: str) -> str:
    return name.replace("_", " ")


@dataclass
class Draft:
    """One programmatic task before it is checked.

    ``answer`` is an answer spec (see ``answers.py``): ``{"type": "number" | "money" | "date" |
    "text" | "id" | "list", "value": ..., "domain": {"table", "column"}?, "currency": ...?}``.
    ``options`` are calls whose stated options the task insists on (``{"tool", "arguments"}``):
    the verifier checks that a successful call of that tool carried exactly those values.
    """

    shape: str
    prompt: str
    calls: list[list[Any]]
    answer: dict[str, Any] | None = None
    options: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ShapeContext:
    compiled: CompiledEnvironment
    db: sqlite3.Connection          # a private copy of the template: read it, never write it
    rng: random.Random
    long: bool = False              # long horizon: 15+ calls, 3+ distinct tools, 2+ entity types

    @property
    def entities(self) -> tuple[Entity, ...]:
        return self.compiled.archetype.entities

    @property
    def currency(self) -> str:
        return region(self.compiled.card.region).currency

    @property
    def title(self) -> str:
        return self.compiled.card.title

    def entity(self, name: str) -> Entity:
        return self.compiled.archetype.entity(name)

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        cursor = self.db.execute(sql, params)
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]

    def label(self, entity: Entity, row_id: str) -> str:
        return self.db.execute(f"SELECT {entity.label} FROM {entity.plural} WHERE id = ?",
                               (row_id,)).fetchone()[0]

    def unique_label(self, entity: Entity, row_id: str) -> bool:
        """Whether the row's label names it alone (so a prompt may name it by label)."""
        value = self.label(entity, row_id)
        n = self.db.execute(f"SELECT COUNT(*) FROM {entity.plural} WHERE {entity.label} = ?",
                            (value,)).fetchone()[0]
        return n == 1

    def name_of(self, entity: Entity, row_id: str) -> str:
        """How a person names a row: its label, quoted, plus the id when the label is shared."""
        text = f'"{self.label(entity, row_id)}"'
        return text if self.unique_label(entity, row_id) else f"{text} ({row_id})"

    @staticmethod
    def refs(entity: Entity) -> list[Field]:
        return [f for f in entity.fields if f.kind == "ref"]

    @staticmethod
    def transitions(entity: Entity) -> tuple[Transition, ...]:
        return entity.lifecycle.transitions if entity.lifecycle else ()

    def tool_exists(self, name: str) -> bool:
        return name in self.compiled.definition.tools.names()

    @staticmethod
    def page_calls(tool: str, filters: dict[str, Any], total: int) -> list[list[Any]]:
        """The calls that read every page of a listing of ``total`` rows."""
        return pages(tool, filters, total, PAGE)


Shape = Callable[[ShapeContext], Draft | None]
