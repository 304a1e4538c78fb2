"""Arguments drawn from the seeded data: calls that should succeed, and calls that break a rule.

The pipeline's filters use them to test every generated tool and every generated rule, the same
way for every environment. Each function proposes a few candidates; the filter tries them in
order on fresh sessions.
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from typing import Any

from . import codes
from .codes import FORMAT_HELP
from .constraints import placeholders
from .data import pool
from .entity_schema import EPOCH, id_prefix
from .spec import (
    Capacity,
    DateOrder,
    Distinct,
    Entity,
    Field,
    MaxPerParent,
    NoOverlap,
    Policy,
    RefInState,
    SameGroup,
)

__all__ = ["create_candidates", "plain_value", "missing_id", "rows", "stamps", "align", "column_of"]

CANDIDATES = 5


def missing_id(entity: Entity) -> str:
    return f"{id_prefix(entity)}_0000000000"


def rows(db: sqlite3.Connection, table: str, where: str = "1 = 1", params: tuple = (),
         limit: int = CANDIDATES) -> list[dict[str, Any]]:
    return [dict(r) for r in db.execute(
        f"SELECT * FROM {table} WHERE {where} ORDER BY id LIMIT ?", (*params, limit))]


def stamps(entity: Entity) -> set[str]:
    return {t.stamp for t in entity.lifecycle.transitions if t.stamp} if entity.lifecycle else set()


def plain_value(f: Field, k: int) -> Any:
    """A valid value for a field that no constraint involves."""
    if f.format == "semver":
        return f"{20 + k}.{k}.0"  # above any seeded major version, so never taken
    if f.format in FORMAT_HELP and f.kind != "code":
        return f.example or FORMAT_HELP[f.format][1]
    if f.kind in ("int", "money"):
        low = int(f.min if f.min is not None else 0)
        high = int(f.max) if f.max is not None else low + 100
        return min(high, low + 1 + k)
    if f.kind == "float":
        return float(f.min if f.min is not None else 1.0)
    if f.kind == "bool":
        return k % 2 == 0
    if f.kind == "date":
        return (EPOCH + dt.timedelta(days=10 + k)).isoformat()
    if f.kind == "enum":
        return f.values[k % len(f.values)]
    if f.kind == "email":
        return f"new.contact{k}@example.org"
    if f.kind == "name":
        return ["Jordan Lee", "Sam Rivera", "Alex Morgan", "Taylor Brooks", "Casey Kim"][k % 5]
    if f.vocab:
        return f.vocab[k % len(f.vocab)]
    if f.kind == "pool":
        values = [v for v in pool(f.source) if v]
        return values[(k * 7) % len(values)]  # a real value: a city, a company, a test
    return f"New {f.name.replace('_', ' ')} {k + 1}"


def _ref_candidates(db, entity: Entity, f: Field, tables: dict[str, str]) -> list[str]:
    """Ids of referred rows that every constraint on this reference allows."""
    table = tables[f.ref]
    where, params = ["1 = 1"], []
    for c in entity.constraints:
        if isinstance(c, RefInState) and c.ref == f.name:
            where.append(f"status IN ({placeholders(c.states)})")
            params += list(c.states)
        if isinstance(c, Capacity) and c.ref == f.name:
            used = f"SUM({c.amount})" if c.amount else "COUNT(*)"
            where.append(f"{c.capacity_field} - (SELECT COALESCE({used}, 0) FROM {entity.plural} "
                         f"x WHERE x.{c.ref} = {table}.id AND x.status IN "
                         f"({placeholders(c.live_states)})) >= 1")
            params += list(c.live_states)
        if isinstance(c, MaxPerParent) and c.ref == f.name:
            where.append(f"(SELECT COUNT(*) FROM {entity.plural} x WHERE x.{c.ref} = {table}.id "
                         f"AND x.status IN ({placeholders(c.live_states)})) < {c.limit}")
            params += list(c.live_states)
    found = db.execute(f"SELECT id FROM {table} WHERE {' AND '.join(where)} ORDER BY id LIMIT ?",
                       (*params, CANDIDATES)).fetchall()
    return [r[0] for r in found]


def create_candidates(db: sqlite3.Connection, entity: Entity,
                      tables: dict[str, str]) -> list[dict[str, Any]]:
    """Arguments for create_<entity> that should pass every rule."""
    skip = stamps(entity)
    refs = {f.name: _ref_candidates(db, entity, f, tables)
            for f in entity.fields if f.kind == "ref" and f.name not in skip}
    windows = {c.start: c.end for c in entity.constraints if isinstance(c, NoOverlap | DateOrder)}
    out = []
    for k in range(CANDIDATES):
        args: dict[str, Any] = {}
        for f in entity.fields:
            if f.name in skip or f.kind == "code":
                continue
            if f.kind == "ref":
                if not refs[f.name]:
                    break
                args[f.name] = refs[f.name][k % len(refs[f.name])]
            elif f.unique:
                args[f.name] = _fresh_unique(f, k)
            else:
                args[f.name] = plain_value(f, k)
        else:
            for start, end in windows.items():
                # Far enough in the future that no seeded booking is there.
                first = EPOCH + dt.timedelta(days=400 + 11 * k)
                args[start] = first.isoformat()
                args[end] = (first + dt.timedelta(days=2)).isoformat()
            for c in entity.constraints:
                if isinstance(c, Capacity) and c.amount:
                    amount = entity.field(c.amount)
                    args[c.amount] = int(amount.min if amount.min is not None else 1)
            if _coherent(db, entity, args, tables, refs):
                out.append(args)
    return out


def column_of(db, entity: Entity, args: dict[str, Any], path: str, tables) -> Any:
    """The value at ``path`` for prospective arguments: a column, or (``member_id.dao_id``) a
    column of the row an argument refers to."""
    first, _, column = path.partition(".")
    if not column:
        return args.get(first)
    found = db.execute(f"SELECT {column} FROM {tables[entity.field(first).ref]} WHERE id = ?",
                       (args.get(first),)).fetchone()
    return found[0] if found else None


def _coherent(db, entity: Entity, args: dict[str, Any], tables: dict[str, str],
              refs: dict[str, list[str]]) -> bool:
    """Adjust candidate arguments to the domain rules (a voter of the proposal's DAO, two
    different people, an amount within the policy's cap); False when no adjustment fits."""
    for c in entity.constraints:
        if isinstance(c, SameGroup):
            target = column_of(db, entity, args, c.right, tables)
            left, _, column = c.left.partition(".")
            if not column or column_of(db, entity, args, c.left, tables) == target:
                continue
            table = tables[entity.field(left).ref]
            allowed = set(refs.get(left) or [])
            options = [r[0] for r in db.execute(
                f"SELECT id FROM {table} WHERE {column} = ? ORDER BY id", (target,))]
            preferred = [o for o in options if o in allowed] or options
            if not preferred:
                return False
            args[left] = preferred[0]
        elif isinstance(c, Distinct) and args.get(c.left) == args.get(c.right):
            others = [r for r in refs.get(c.right, []) if r != args.get(c.left)]
            if not others:
                return False
            args[c.right] = others[0]
        elif isinstance(c, Policy) and c.on_create and c.field in args:
            limit = column_of(db, entity, {c.ref: args.get(c.ref)}, f"{c.ref}.{c.limit}",
                               tables)
            if limit is None:
                continue
            value = args[c.field]
            if c.op == "<=" and value > limit or c.op == ">=" and value < limit:
                args[c.field] = type(value)(limit)
    return True


def _fresh_unique(f: Field, k: int) -> Any:
    if f.format == "slug":
        return f"fresh-{f.name.replace('_', '-')}-{k + 1}"
    if f.format in codes.ISSUED and f.format != "semver":
        return codes.issue(f.format, random.Random(1_000 + k))  # a fresh, well-formed code
    if f.format:
        return plain_value(f, k)
    if f.kind in ("int", "money"):
        return int(f.max) - k if f.max is not None else 900_000 + k
    if f.kind == "email":
        return f"fresh.{k}@example.org"
    return f"Fresh {f.name.replace('_', ' ')} {k + 1}"


def align(db, entity: Entity, args: dict[str, Any], fixed: str,
          tables: dict[str, str]) -> dict[str, Any]:
    """Arguments a breaker set ``fixed`` in, with the references a SameGroup ties to it moved
    along (the DAO of a proposal follows its proposer), so the breaker meets its own rule."""
    out = dict(args)
    for c in entity.constraints:
        if not isinstance(c, SameGroup):
            continue
        left, _, column = c.left.partition(".")
        right, _, right_column = c.right.partition(".")
        if left == fixed and not right_column:
            out[c.right] = column_of(db, entity, out, c.left, tables)
        elif left == fixed:
            target = column_of(db, entity, out, c.left, tables)
            found = db.execute(f"SELECT id FROM {tables[entity.field(right).ref]} WHERE "
                               f"{right_column} = ? ORDER BY id LIMIT 1", (target,)).fetchone()
            if found:
                out[right] = found[0]
        elif right == fixed and column:
            target = column_of(db, entity, out, c.right, tables)
            found = db.execute(f"SELECT id FROM {tables[entity.field(left).ref]} WHERE "
                               f"{column} = ? ORDER BY id LIMIT 1", (target,)).fetchone()
            if found:
                out[left] = found[0]
    return out
