"""A task's effect on the database, read from its reference solution, as exact checks.

The reference solution is run twice from the template: once as the episode would run it, once
with a shifted clock and a reseeded RNG. A value that differs between the two runs depends on
timing or chance, not on what the agent did, and is left out of the checks. What remains:

* each changed row that existed: its new values (``row_values``);
* each created row: its content (``row_added``), where any reference to another created row is
  written as ``{"$created": table, "values": ...}`` so a generated id never appears in a check;
* each removed row (``row_removed``);
* one whole-database guard (``unchanged_elsewhere``) declaring exactly which rows and columns may
  change, how many rows each table gains and which it loses; bookkeeping is left out.
"""

from __future__ import annotations

import random
import re
from typing import Any

from agentworld.servers import Environment, Session

from .checks import Check, snapshot

__all__ = ["run_calls", "effect_checks", "bookkeeping_of", "ReferenceFailed"]

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
# Never part of a content match: they identify a row or say when it was written.
_IDENTITY = frozenset({"id", "created_at", "updated_at"})


class ReferenceFailed(ValueError):
    """A reference call was refused on replay."""


def run_calls(env: Environment, calls, *, seed: int, shift: int = 0) -> Session:
    """Replay ``calls``; ``shift`` moves the clock and reseeds the session's RNG (but keeps its
    ids) to expose values that depend on timing or chance rather than on the calls. Raises
    ReferenceFailed when a call is refused."""
    session = Session(env, seed=seed)
    if shift:
        session.ctx.rng = random.Random(f"shifted:{seed}:{shift}")
    for _ in range(shift):
        session.ctx.clock.advance()
    for name, args in calls:
        result = session.call(name, args)
        if not result.ok:
            session.close()
            raise ReferenceFailed(f"{name} failed on replay: {result.error}")
    return session


def bookkeeping_of(env: Environment) -> tuple[list[str], list[str]]:
    """(tables, columns) the environment declares as bookkeeping."""
    declared = getattr(env.manifest, "bookkeeping", ()) or ()
    tables = [d for d in declared if "." not in d]
    columns = [d for d in declared if "." in d]
    return tables, columns


def _stable(a: Any, b: Any) -> bool:
    return a == b and not (isinstance(a, str) and _TIMESTAMP.match(a))


def _tables(db) -> list[str]:
    return [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name")]


class _Diff:
    """The reference run's changes, table by table, with created rows indexed by id."""

    def __init__(self, initial, final_a, final_b, skip_tables: set[str]) -> None:
        self.tables: dict[str, tuple] = {}
        self.created: dict[Any, tuple[str, dict[str, Any], dict[str, Any] | None]] = {}
        for table in _tables(initial):
            if table in skip_tables:
                continue
            keys, before = snapshot(initial, table)
            _, after_a = snapshot(final_a, table)
            _, after_b = snapshot(final_b, table)
            self.tables[table] = (keys, before, after_a, after_b)
            if len(keys) == 1:
                # Rows created by both runs pair up in insertion order (their ids may differ:
                # some are drawn from the reseeded RNG).
                new_b = [r for k, r in after_b.items() if k not in before]
                new_a = [r for k, r in after_a.items() if k not in before]
                for i, row in enumerate(new_a):
                    twin = new_b[i] if i < len(new_b) else None
                    self.created[row[keys[0]]] = (table, row, twin)

    def content(self, row_a: dict, row_b: dict | None, keys: list[str], depth: int = 0
                ) -> dict[str, Any]:
        """The stable content of a created row; references to created rows become refs."""
        out = {}
        for column, value in row_a.items():
            if column in _IDENTITY or (len(keys) == 1 and column in keys) or value is None:
                continue
            if isinstance(value, str) and value in self.created:
                if depth < 1:
                    out[column] = self.ref(value, depth + 1)
                continue
            if row_b is not None and not _stable(value, row_b.get(column)):
                continue
            if isinstance(value, str) and _TIMESTAMP.match(value):
                continue
            out[column] = value
        return out


    def ref(self, value: str, depth: int = 1) -> dict[str, Any]:
        """``{"$created": table, "values": ...}`` for the id of a row the run created."""
        table, row_a, row_b = self.created[value]
        return {"$created": table,
                "values": self.content(row_a, row_b, self.tables[table][0], depth)}


def effect_checks(env: Environment, calls, *, seed: int) -> list[Check]:
    """The exact checks of what ``calls`` change, plus the whole-database guard. Raises
    ReferenceFailed when a call is refused."""
    skip_tables, skip_columns = bookkeeping_of(env)
    a = run_calls(env, calls, seed=seed)
    try:
        b = run_calls(env, calls, seed=seed, shift=3)
    except ReferenceFailed:
        a.close()
        raise
    initial = env.template.clone()
    try:
        diff = _Diff(initial, a.db, b.db, set(skip_tables))
        checks: list[Check] = []
        guard: dict[str, Any] = {"kind": "unchanged_elsewhere", "changed": {}, "added": {},
                                 "removed": {}, "ignore_tables": skip_tables,
                                 "ignore_columns": skip_columns, "points": 1, "guard": True,
                                 "name": "nothing else changed"}
        for table, state in diff.tables.items():
            checks += _table_checks(diff, table, state, guard)
    finally:
        initial.close()
        a.close()
        b.close()
    return checks + [guard]


def _table_checks(diff: _Diff, table: str, state: tuple, guard: dict) -> list[Check]:
    keys, before, after_a, after_b = state
    checks: list[Check] = []
    for key, row in after_a.items():
        old = before.get(key)
        if old is None:
            continue
        moved = sorted(c for c, v in row.items() if old.get(c) != v
                       or after_b.get(key, {}).get(c) != old.get(c))
        if not moved:
            continue
        guard["changed"].setdefault(table, {})[key] = moved
        expect = {}
        for column in moved:
            value = row[column]
            if column in _IDENTITY or column in keys:
                continue
            if isinstance(value, str) and value in diff.created:
                expect[column] = diff.ref(value)
            elif _stable(value, after_b.get(key, {}).get(column)):
                expect[column] = value
        if expect and keys:
            match = dict(zip(keys, [row[k] for k in keys], strict=True))
            checks.append({"kind": "row_values", "table": table, "match": match,
                           "expect": expect, "points": 2,
                           "name": f"{table} {'/'.join(map(str, match.values()))}: "
                                   + ", ".join(f"{c}={_short(v)}" for c, v in expect.items())})
    new_a = [r for k, r in after_a.items() if k not in before]
    new_b = [r for k, r in after_b.items() if k not in before]
    if new_a:
        guard["added"][table] = len(new_a)
    wanted: dict[str, tuple[dict, int]] = {}
    bare = 0
    for row_a, row_b in zip(new_a, new_b, strict=False):
        values = diff.content(row_a, row_b, keys)
        if values:
            label = repr(sorted(values.items(), key=lambda kv: kv[0]))
            wanted[label] = (values, wanted.get(label, (values, 0))[1] + 1)
        else:
            bare += 1
    for values, times in wanted.values():
        checks.append({"kind": "row_added", "table": table, "values": values, "points": 2,
                       "at_least": times, "name": f"new row in {table}"})
    if bare:
        # A row created with nothing stable in it (an api key made with no arguments) is
        # still an effect: the table must gain as many rows as the reference made.
        checks.append({"kind": "row_added", "table": table, "values": {}, "points": 2,
                       "at_least": len(new_a), "name": f"{len(new_a)} new row(s) in {table}"})
    gone = [k for k in before if k not in after_a]
    if gone:
        guard["removed"][table] = gone
        if keys:
            for key in gone:
                match = dict(zip(keys, [before[key][k] for k in keys], strict=True))
                checks.append({"kind": "row_removed", "table": table, "match": match,
                               "points": 2, "name": f"{table} {'/'.join(map(str, match.values()))}"
                                                    " removed"})
    return checks


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return f"new {value.get('$created', '')}"
    text = str(value)
    return text if len(text) <= 40 else text[:37] + "..."
