"""Calls drawn from the seeded data that test every compiled tool and rule (filters 2 and 3).

For each tool, candidate arguments that should succeed (taken from existing rows, so they name
real records) and candidates that must be refused; for each rule, calls that break it. The
filters try the candidates in order on fresh sessions.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from jsonschema import Draft202012Validator

from agentworld.servers.manifest import Rule
from agentworld.servers.world.builder import Probe, RuleSpec

from .model import Binding
from .ops import FROZEN_STATES, Table, input_schema, q

__all__ = ["probe_for", "rules_for"]

CANDIDATES = 6


def _rows(db: sqlite3.Connection, table: Table, where: str = "1 = 1",
          params: tuple = ()) -> list[dict[str, Any]]:
    return [dict(r) for r in db.execute(
        f"SELECT * FROM {table.name} WHERE {where} ORDER BY id LIMIT ?", (*params, CANDIDATES))]


def _typed(value: Any, p: dict[str, Any]) -> Any:
    kind = p["type"]
    if value is None:
        return None
    if kind == "array":
        if isinstance(value, str) and value[:1] == "[":
            return json.loads(value)
        return [value]
    if kind == "object":
        return json.loads(value) if isinstance(value, str) and value[:1] == "{" else {"value": value}
    if kind == "boolean":
        return bool(value)
    if kind == "integer":
        return value if isinstance(value, int) else None
    if kind == "number":
        return value if isinstance(value, int | float) else None
    if kind == "string":
        return value if isinstance(value, str) else str(value)
    return value


def _filler(p: dict[str, Any], k: int, binding: Binding) -> Any:
    if p.get("enum"):
        return p["enum"][k % len(p["enum"])]
    role = binding.paging.get(p["name"])
    kind = p["type"]
    if role == "limit":
        return 10 if kind == "integer" else "10"
    if role in ("offset", "page", "cursor"):
        first = 1 if role == "page" else 0
        return first if kind in ("integer", "number") else str(first)
    if p["name"] == binding.sort:
        return "created_at"
    if p["name"] in (binding.since,):
        return "2020-01-01T00:00:00Z"
    if p["name"] in (binding.until,):
        return "2030-01-01T00:00:00Z"
    return {"string": f"new {p['name'].replace('_', ' ')} {k + 1}", "integer": k + 1,
            "number": float(k + 1), "boolean": True, "array": [], "object": {}}.get(kind, "x")


def _args(binding: Binding, table: Table, row: dict[str, Any] | None, k: int, *,
          optional: bool = False, fresh: bool = False) -> dict[str, Any]:
    """Arguments for every required parameter (and every column one when ``optional``), from
    ``row`` where a parameter names its column."""
    out: dict[str, Any] = {}
    for p in binding.params:
        name = p["name"]
        if not (p.get("required") or name == binding.key
                or optional and name in binding.columns):
            continue
        value = None
        if row is not None:
            if name == binding.key:
                value = row.get(binding.key_column)
            elif name == binding.query:
                label = str(row.get(table.entity.label) or "")
                value = label.split(" ")[0] or None
            elif name in binding.columns and name != binding.query:
                col = table.entity.columns.get(binding.columns[name])
                if not (fresh and col is not None and col.unique):
                    value = row.get(binding.columns[name])
        value = _typed(value, p)
        if value is None or value == []:
            col = table.entity.columns.get(binding.columns.get(name, name))
            # A made-up value for a unique column stays clear of the seeded ones (1..40).
            value = _filler(p, k + 900 if col is not None and col.unique else k, binding)
        out[name] = value
    return out


def _valid(binding: Binding, table: Table, candidates: list[dict[str, Any]]) -> list[dict]:
    validator = Draft202012Validator(input_schema(binding, table))
    return [c for c in candidates if validator.is_valid(c)]


def _missing_key(binding: Binding, table: Table) -> Any:
    key_param = next(p for p in binding.params if p["name"] == binding.key)
    return 987654321 if key_param["type"] == "integer" else f"{table.prefix}_missing0000"


def probe_for(binding: Binding, table: Table, refs_to: list[tuple[Table, str]]) -> Probe:
    op, e = binding.op, table.entity

    def success(db: sqlite3.Connection) -> list[dict[str, Any]]:
        if op in ("transition",):
            sources = e.moves[binding.tool][0]
            marks = ", ".join("?" for _ in sources)
            rows = _rows(db, table, f"status IN ({marks})", tuple(sources))
        elif op == "update":
            rows = _rows(db, table, "status NOT IN ({})".format(", ".join(
                f"'{s}'" for s in FROZEN_STATES)) if e.states else "1 = 1")
        elif op == "flag":
            rows = _rows(db, table, f"{q(binding.target)} IS NOT ?", (int(binding.flag_value),))
        elif op == "clear":
            cols = [binding.columns[n] for n in binding.columns]
            rows = _rows(db, table, " AND ".join(f"{q(c)} IS NOT NULL" for c in cols) or "1 = 1")
        elif op == "delete":
            clauses = [f"id NOT IN (SELECT {q(c)} FROM {o.name} WHERE {q(c)} IS NOT NULL)"
                       for o, c in refs_to]
            rows = _rows(db, table, " AND ".join(clauses) or "1 = 1")
        else:
            rows = _rows(db, table)
        candidates = []
        for k, row in enumerate(rows or [None]):
            args = _args(binding, table, row, k, fresh=op == "create",
                         optional=op in ("update", "create"))
            if op == "update" and row is not None:
                # Change one value for real: a call that writes what is there persists nothing.
                for p in binding.params:
                    if p["name"] in binding.columns and not p.get("required") and args.get(p["name"]) == _typed(
                            row.get(binding.columns[p["name"]]), p):
                        del args[p["name"]]
                if not any(n in args for n in binding.columns):
                    p = next((p for p in binding.params if p["name"] in binding.columns), None)
                    if p is not None:
                        args[p["name"]] = _filler(p, k + 1, binding)
            if op == "create" and binding.key and binding.key_column != "id":
                args[binding.key] = _filler(next(p for p in binding.params
                                                 if p["name"] == binding.key), 900 + k, binding)
            candidates.append(args)
            if op in ("list", "count", "aggregate", "get"):
                candidates.append(_args(binding, table, row, k))
        return _valid(binding, table, candidates)

    def failure(db: sqlite3.Connection) -> list[dict[str, Any]]:
        rows = _rows(db, table)
        base = _args(binding, table, rows[0] if rows else None, 0, optional=op == "create")
        if binding.key and op != "create":
            return _valid(binding, table, [{**base, binding.key: _missing_key(binding, table)}])
        refs = [n for n, c in binding.columns.items()
                if e.columns.get(c) is not None and e.columns[c].kind == "ref"]
        if op == "create" and refs:
            ref = e.columns[binding.columns[refs[0]]]
            param = next(p for p in binding.params if p["name"] == refs[0])
            missing = 987654321 if param["type"] == "integer" else "missing_0000000"
            return _valid(binding, table, [{**base, refs[0]: missing}]) or [
                {**base, "unexpected_argument": 1}]
        return [{**base, "unexpected_argument": 1}]

    code = "NOT_FOUND" if binding.key and op != "create" or op == "create" and any(
        e.columns.get(c) is not None and e.columns[c].kind == "ref"
        for c in binding.columns.values()) else "VALIDATION_ERROR"
    changes = "" if op in ("list", "count", "aggregate", "get") else table.entity.plural
    return Probe(success=success, failure=failure, failure_code=code, changes=changes)


def rules_for(bindings: list[Binding], tables: dict[str, Table],
              refs_to: dict[str, list[tuple[Table, str]]]) -> list[RuleSpec]:
    out: list[RuleSpec] = []
    by_entity: dict[str, list[Binding]] = {}
    for b in bindings:
        by_entity.setdefault(b.entity, []).append(b)
    for name, group in by_entity.items():
        table = tables[name]
        noun = name.replace("_", " ")
        moves = [b for b in group if b.op == "transition"]
        if moves:
            text = "; ".join(f"{b.verb} only from {' or '.join(table.entity.moves[b.tool][0])}"
                             for b in moves)
            out.append(RuleSpec(Rule(f"{name}-lifecycle", f"A {noun} moves only along its "
                                     f"lifecycle: {text}.", tuple(b.tool for b in moves),
                                     "PRECONDITION_FAILED"), _break_lifecycle(moves, table)))
        updates = [b for b in group if b.op in ("update", "clear") and b.key]
        frozen = [s for s in table.entity.states if s in FROZEN_STATES]
        if updates and frozen:
            out.append(RuleSpec(Rule(f"{name}-frozen", f"A {noun} that is {' or '.join(frozen)} "
                                     "can no longer be changed.", tuple(b.tool for b in updates),
                                     "PRECONDITION_FAILED"), _break_frozen(updates, table, frozen)))
        creates = [b for b in group if b.op == "create" and any(
            table.entity.columns.get(c) is not None and table.entity.columns[c].kind == "ref"
            for c in b.columns.values())]
        if creates:
            out.append(RuleSpec(Rule(f"{name}-refs-exist", f"A new {noun} must refer to records "
                                     "that exist.", tuple(b.tool for b in creates), "NOT_FOUND"),
                                _break_refs(creates, table)))
        deletes = [b for b in group if b.op == "delete" and b.key and refs_to.get(name)]
        if deletes:
            out.append(RuleSpec(Rule(f"{name}-delete-in-use", f"A {noun} that other records "
                                     "still refer to cannot be deleted.",
                                     tuple(b.tool for b in deletes), "CONFLICT"),
                                _break_delete(deletes, table, refs_to[name])))
        uniques = [b for b in group if b.op == "create" and b.key and b.key_column != "id"]
        if uniques:
            out.append(RuleSpec(Rule(f"{name}-unique-key", f"No two {table.entity.plural.replace('_', ' ')}"
                                     f" share the same {uniques[0].key_column.replace('_', ' ')}.",
                                     tuple(b.tool for b in uniques), "CONFLICT"),
                                _break_unique(uniques, table)))
    return out


def _break_lifecycle(moves: list[Binding], table: Table):
    def breaker(db):
        calls = []
        for b in moves:
            sources = table.entity.moves[b.tool][0]
            marks = ", ".join("?" for _ in sources)
            for k, row in enumerate(_rows(db, table, f"status NOT IN ({marks})", tuple(sources))):
                calls.append((b.tool, _args(b, table, row, k)))
        return calls
    return breaker


def _break_frozen(updates: list[Binding], table: Table, frozen: list[str]):
    def breaker(db):
        marks = ", ".join("?" for _ in frozen)
        calls = []
        for k, row in enumerate(_rows(db, table, f"status IN ({marks})", tuple(frozen))):
            for b in updates:
                args = _args(b, table, row, k, optional=True)
                calls.append((b.tool, args))
        return calls
    return breaker


def _break_refs(creates: list[Binding], table: Table):
    def breaker(db):
        calls = []
        for b in creates:
            rows = _rows(db, table)
            base = _args(b, table, rows[0] if rows else None, 0, optional=True, fresh=True)
            for n, c in b.columns.items():
                col = table.entity.columns.get(c)
                if col is not None and col.kind == "ref":
                    param = next(p for p in b.params if p["name"] == n)
                    missing = 987654321 if param["type"] == "integer" else "missing_0000000"
                    calls.append((b.tool, {**base, n: missing}))
        return calls
    return breaker


def _break_delete(deletes: list[Binding], table: Table, refs_to):
    def breaker(db):
        calls = []
        for other, column in refs_to:
            used = [r[0] for r in db.execute(
                f"SELECT DISTINCT {q(column)} FROM {other.name} WHERE {q(column)} IS NOT NULL "
                "ORDER BY 1 LIMIT 3")]
            for value in used:
                row = db.execute(f"SELECT * FROM {table.name} WHERE id = ?", (value,)).fetchone()
                if row is not None:
                    for b in deletes:
                        calls.append((b.tool, _args(b, table, dict(row), 0)))
        return calls
    return breaker


def _break_unique(uniques: list[Binding], table: Table):
    def breaker(db):
        calls = []
        for k, row in enumerate(_rows(db, table)):
            for b in uniques:
                args = _args(b, table, row, k, optional=True, fresh=True)
                args[b.key] = row[b.key_column]
                calls.append((b.tool, args))
        return calls
    return breaker
