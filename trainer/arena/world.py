"""The arena's view of the world: sampling evaluation environments evenly across the taxonomy,
serving the arena's own tasks, and richer-database variants of weak environments.

Tasks are served as part of an environment's definition (``catalog.add``), so the in-process
episodes, a hub started on the same catalog and the trainer all see exactly the same tasks.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agentworld.servers import Catalog, Environment
from agentworld.servers.taskgen.record import TaskRecord
from agentworld.servers.world.compile import CompiledEnvironment, compile_card
from agentworld.servers.world.registry import compiled as world_compiled
from agentworld.servers.world.registry import pack_cards
from agentworld.servers.world.spec import Archetype

__all__ = ["ArenaWorld", "Variant", "stratified_sample", "richer_archetype", "MAX_ROWS"]

MAX_ROWS = 400            # per entity in a richer database: big enough to page, small to build


def stratified_sample(rng: random.Random, *, per_category: int,
                      categories: Sequence[str] = ()) -> list[str]:
    """``per_category`` synthesized environments from each top-level category (all 20 unless
    ``categories`` names some), in taxonomy order.

    Only domain-pack environments are drawn (the world may serve none of them, but the catalog
    still builds them): the arena answers a weak environment with a richer database
    (``richer_archetype``), which needs the environment's archetype, and the mined ones have
    none yet."""
    by_l1: dict[str, list[str]] = defaultdict(list)
    for env_id, card in pack_cards().items():
        if not categories or card.l1 in categories:
            by_l1[card.l1].append(env_id)
    picked: list[str] = []
    for l1 in sorted(by_l1):
        ids = sorted(by_l1[l1])
        picked += sorted(rng.sample(ids, min(per_category, len(ids))))
    return picked


def richer_archetype(archetype: Archetype, factor: float) -> Archetype:
    """More rows per entity (up to :data:`MAX_ROWS`) and rows spread evenly over every lifecycle
    state, so rare states (the edge cases) are common. Constraints are untouched: the seeder
    still respects every capacity, quota and overlap rule."""
    entities = []
    for e in archetype.entities:
        life = dataclasses.replace(e.lifecycle, seed_weights=()) if e.lifecycle else None
        entities.append(dataclasses.replace(e, count=min(MAX_ROWS, round(e.count * factor)),
                                            lifecycle=life))
    return dataclasses.replace(archetype, entities=tuple(entities))


@dataclass(frozen=True)
class Variant:
    """A weak environment served with a richer database under a derived id."""

    base_id: str
    env_id: str
    level: int
    factor: float
    reason: str
    rows_before: dict[str, int]
    rows_after: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _rows(env: Environment, tables: Sequence[str]) -> dict[str, int]:
    db: sqlite3.Connection = env.template.clone()
    try:
        return {t: db.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        db.close()


class ArenaWorld:
    """A catalog of the world plus the arena's tasks and variants."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        self.catalog = catalog or Catalog(world=True)
        self._compiled: dict[str, CompiledEnvironment] = {}
        self._base: dict[str, str] = {}          # variant id -> base id
        self.tasks: dict[str, dict[str, TaskRecord]] = defaultdict(dict)

    # -- environments ------------------------------------------------------------------------------
    def compiled(self, env_id: str) -> CompiledEnvironment:
        if env_id not in self._compiled:
            self._compiled[env_id] = world_compiled(env_id)
        return self._compiled[env_id]

    def base_of(self, env_id: str) -> str:
        return self._base.get(env_id, env_id)

    def card(self, env_id: str):
        return self.compiled(env_id).card

    def load(self, env_id: str) -> Environment:
        return self.catalog.load(env_id)

    def make_variant(self, base_id: str, *, level: int, factor: float, reason: str) -> Variant:
        """Compile ``base_id`` with :func:`richer_archetype` (``factor ** level``) and a derived
        seed, and serve it as ``<base_id>--rich<level>``. Deterministic."""
        base = self.compiled(base_id)
        env_id = f"{base_id}--rich{level}"
        digest = hashlib.blake2b(env_id.encode(), digest_size=4).digest()
        card = dataclasses.replace(base.card, id=env_id, seed=int.from_bytes(digest, "big") % 2**31,
                                   title=f"{base.card.title} (richer data, level {level})")
        richer = compile_card(card, richer_archetype(base.archetype, factor ** level))
        self._compiled[env_id] = richer
        self._base[env_id] = base_id
        self.catalog.add(richer.definition)
        tables = [e.plural for e in base.archetype.entities]
        before, after = _rows(self.load(base_id), tables), _rows(self.load(env_id), tables)
        return Variant(base_id, env_id, level, factor ** level, reason, before, after)

    # -- tasks -------------------------------------------------------------------------------------
    def publish(self, records: Sequence[TaskRecord]) -> None:
        """Serve ``records`` (added to what each environment already serves)."""
        touched = set()
        for record in records:
            self.tasks[record.env_id][record.id] = record
            touched.add(record.env_id)
        for env_id in sorted(touched):
            definition = self.compiled(env_id).definition
            served = tuple(r.to_task() for r in self.tasks[env_id].values())
            self.catalog.add(dataclasses.replace(definition, tasks=served))

    def taxonomy(self, env_id: str) -> tuple[str, str]:
        card = self.card(env_id)
        return card.l1, card.l2
