"""Seeded rows for one entity that already respect its constraints.

Rows are drawn in order; a row that would break a capacity, quota or overlap rule is given a
non-live state instead (a booking that could not fit becomes a cancelled one), which is also how
such rows look in a real system's history. The first referred row is filled to its limit on
purpose, so the capacity and quota rules have something to refuse.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from typing import Any

from .entity_schema import EPOCH, SeedValues, id_prefix
from .spec import Capacity, DateOrder, Entity, MaxPerParent, NoOverlap, RefInState

__all__ = ["seed_entity"]


def _non_live(entity: Entity, live: tuple[str, ...]) -> str | None:
    states = entity.lifecycle.states if entity.lifecycle else ()
    return next((s for s in states if s not in live), None)


def _status(entity: Entity, i: int, rng: random.Random) -> str | None:
    if not entity.lifecycle:
        return None
    states = entity.lifecycle.states
    if i < len(states):
        return states[i]  # every state appears at least once
    weights = entity.lifecycle.seed_weights or tuple(1 for _ in states)
    return rng.choices(states, weights=weights)[0]


def _stamp_dates(entity: Entity, row: dict[str, Any], created: dt.date, rng) -> None:
    for t in entity.lifecycle.transitions if entity.lifecycle else ():
        if t.stamp:
            if row.get("status") == t.target and row.get(t.stamp) is None:
                span = max((EPOCH - created).days, 1)
                row[t.stamp] = (created + dt.timedelta(days=rng.randint(0, span))).isoformat()
            elif row.get("status") != t.target:
                row[t.stamp] = None


class _Ledger:
    """What the rows drawn so far occupy: windows per resource, use per parent."""

    def __init__(self) -> None:
        self.windows: dict[Any, list[tuple[str, str]]] = {}
        self.used: dict[tuple[str, Any], float] = {}

    def fits(self, entity: Entity, row: dict[str, Any], parents: dict[str, list]) -> bool:
        for c in entity.constraints:
            if row.get("status") not in getattr(c, "live_states", (row.get("status"),)):
                continue
            if isinstance(c, NoOverlap):
                taken = self.windows.get((c.resource, row[c.resource]), [])
                if any(row[c.start] < end and row[c.end] > start for start, end in taken):
                    return False
            elif isinstance(c, Capacity):
                cap = parents[(c.ref, c.capacity_field)].get(row[c.ref], 0)
                want = row[c.amount] if c.amount else 1
                if self.used.get((c.ref, row[c.ref]), 0) + want > cap:
                    return False
            elif isinstance(c, MaxPerParent):
                if self.used.get((f"max:{c.ref}", row[c.ref]), 0) + 1 > c.limit:
                    return False
        return True

    def take(self, entity: Entity, row: dict[str, Any]) -> None:
        for c in entity.constraints:
            if row.get("status") not in getattr(c, "live_states", ()):
                continue
            if isinstance(c, NoOverlap):
                self.windows.setdefault((c.resource, row[c.resource]), []).append(
                    (row[c.start], row[c.end]))
            elif isinstance(c, Capacity):
                key = (c.ref, row[c.ref])
                self.used[key] = self.used.get(key, 0) + (row[c.amount] if c.amount else 1)
            elif isinstance(c, MaxPerParent):
                key = (f"max:{c.ref}", row[c.ref])
                self.used[key] = self.used.get(key, 0) + 1


def _draw(entity: Entity, i: int, values: SeedValues, ids: dict[str, list[str]],
          fill_first: dict[str, str]) -> dict[str, Any]:
    rng = values.rng
    row: dict[str, Any] = {"id": f"{id_prefix(entity)}_{i + 1:06d}"}
    status = _status(entity, i, rng)
    for f in entity.fields:
        if f.kind == "ref":
            pool = ids[f.ref]
            filled = fill_first.get(f.name)
            # Each filled reference gets its own third of the rows, so two quotas on one
            # entity never compete for the same rows.
            turn = list(fill_first).index(f.name) if filled else 0
            row[f.name] = filled if filled and i % 3 == turn % 3 else rng.choice(pool)
        else:
            row[f.name] = values.value(entity, f, i)
        if not f.required and f.kind != "ref" and rng.random() < 0.15:
            row[f.name] = None
    for c in entity.constraints:
        if isinstance(c, DateOrder | NoOverlap) and row.get(c.start) is not None:
            start = dt.date.fromisoformat(row[c.start])
            row[c.end] = (start + dt.timedelta(days=rng.randint(1, 7))).isoformat()
    if status is not None:
        row["status"] = status
    return row


def _first_allowed(conn: sqlite3.Connection, entity: Entity, ref: str,
                   ids: dict[str, list[str]], tables: dict[str, str]) -> str:
    """The referred row to fill to its limit: the first one a new row may still attach to
    (its state allowed by any RefInState on the same reference), so the quota rule is what
    refuses the next one."""
    pool = ids[entity.field(ref).ref]
    states = next((c.states for c in entity.constraints
                   if isinstance(c, RefInState) and c.ref == ref), None)
    if states:
        table = tables[entity.field(ref).ref]
        marks = ", ".join("?" for _ in states)
        row = conn.execute(f"SELECT id FROM {table} WHERE status IN ({marks}) ORDER BY id LIMIT 1",
                           states).fetchone()
        if row:
            return row[0]
    return pool[0]


def seed_entity(conn: sqlite3.Connection, entity: Entity, values: SeedValues,
                ids: dict[str, list[str]], tables: dict[str, str]) -> None:
    rng = values.rng
    fill_first = {ref: _first_allowed(conn, entity, ref, ids, tables)
                  for ref in {c.ref for c in entity.constraints if isinstance(c, MaxPerParent)
                              or (isinstance(c, Capacity) and not c.amount)}}
    parents = {}
    for c in entity.constraints:
        if isinstance(c, Capacity):
            table = tables[entity.field(c.ref).ref]
            parents[(c.ref, c.capacity_field)] = dict(conn.execute(
                f"SELECT id, {c.capacity_field} FROM {table}").fetchall())
    ledger, out = _Ledger(), []
    live = next((c.live_states for c in entity.constraints if hasattr(c, "live_states")), ())
    for i in range(entity.count):
        row = _draw(entity, i, values, ids, fill_first)
        if not ledger.fits(entity, row, parents):
            fallback = _non_live(entity, live)
            if fallback is None:
                continue
            row["status"] = fallback
        ledger.take(entity, row)
        created = EPOCH - dt.timedelta(days=rng.randint(3, 400))
        _stamp_dates(entity, row, created, rng)
        updated = min(created + dt.timedelta(days=rng.randint(0, 20)), EPOCH)
        minute = rng.randint(0, 599)
        row["created_at"] = f"{created.isoformat()}T{8 + minute // 60:02d}:{minute % 60:02d}:00Z"
        row["updated_at"] = f"{updated.isoformat()}T{8 + minute // 60:02d}:{minute % 60:02d}:00Z"
        out.append(row)
    if out:
        cols = list(out[0])
        marks = ", ".join("?" for _ in cols)
        conn.executemany(f"INSERT INTO {entity.plural} ({', '.join(cols)}) VALUES ({marks})",
                         [tuple(r[c] for c in cols) for r in out])
    ids[entity.name] = [r["id"] for r in out]
