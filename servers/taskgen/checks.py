"""Rubric checks as data, compiled into a deterministic verifier.

A task's rubric is a list of checks with points. Each check reads only the verifier's input: the
initial database, the final database, the final answer and the trajectory. The task passes when
every check holds. Kinds:

* ``row_values``: a row that existed (matched by its key) ends with the expected values;
* ``row_added``: a new row with the expected content exists. Created rows are matched by content,
  never by a generated id: a value ``{"$created": table, "values": {...}}`` stands for "the id of
  a row created in this episode in ``table`` with that content";
* ``row_removed``: a row is gone;
* ``answer``: the final answer is exactly the expected value (see ``answers.py``);
* ``called``: a successful call of a tool with the given arguments (a lookup that must happen, or
  an option the task states, such as a payment method);
* ``unchanged_elsewhere``: the whole-database guard. Every row of every table outside the task's
  declared effect is unchanged, no row is added or removed beyond it, and the changed rows change
  only in the declared columns. Bookkeeping tables and columns are the only exception;
* ``count_changed`` (older sets): how many rows of one table differ.

Checks marked ``guard`` earn their points only when every other check holds, so doing nothing
never scores on them.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from collections.abc import Mapping
from typing import Any

from agentworld.servers.tasks import Verdict, VerifierInput

from .answers import answer_matches, normal_text

__all__ = ["Check", "evaluate", "compile_rubric", "IGNORED_COLUMNS", "table_keys",
           "snapshot", "same_value", "table_digest"]

Check = Mapping[str, Any]

# Columns whose values depend on when or how many calls the agent made, not on what it did.
IGNORED_COLUMNS = frozenset({"id", "created_at", "updated_at"})
_ID_LIKE = re.compile(r"^[a-z]{2,5}_[0-9a-z]{6,}$|^[A-Z]{2,5}-[0-9A-Z]{4,}$")


def _ident(name: str) -> str:
    """A table or column name, quoted: mined servers name tables and columns ``values`` or
    ``order``, which SQL reserves."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not an identifier: {name!r}")
    return f'"{name}"'


def table_keys(db: sqlite3.Connection, table: str) -> list[str]:
    info = db.execute(f"PRAGMA table_info({_ident(table)})").fetchall()
    return [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]


def snapshot(db: sqlite3.Connection, table: str) -> tuple[list[str], dict[Any, dict[str, Any]]]:
    """(key columns, rows by key). A table without a primary key is keyed by whole content,
    with a repeat counter, so it compares as a multiset."""
    keys = table_keys(db, table)
    cursor = db.execute(f"SELECT * FROM {_ident(table)}")
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    if keys:
        return keys, {json.dumps([r[k] for k in keys], default=str): r for r in rows}
    seen: Counter = Counter()
    out = {}
    for r in rows:
        content = json.dumps([r[n] for n in names], default=str)
        seen[content] += 1
        out[f"{content}#{seen[content]}"] = r
    return [], out


def table_digest(db: sqlite3.Connection, table: str) -> int:
    """A cheap fingerprint of a table's rows: equal tables (the common case) need no row diff."""
    return hash(tuple(db.execute(f"SELECT * FROM {_ident(table)}").fetchall()))


def same_value(expected: Any, actual: Any) -> bool:
    """Free text compares as a person reads it (case, spacing, trailing punctuation); ids, codes,
    numbers and states compare exactly."""
    if isinstance(expected, str) and isinstance(actual, str) and not _ID_LIKE.match(expected):
        return normal_text(expected) == normal_text(actual)
    if isinstance(expected, float) or isinstance(actual, float):
        try:
            return abs(float(expected) - float(actual)) < 1e-9
        except (TypeError, ValueError):
            return False
    return expected == actual


def _rows(db: sqlite3.Connection, table: str, match: Mapping[str, Any]) -> list[dict[str, Any]]:
    plain = {k: v for k, v in match.items() if not isinstance(v, dict)}
    where = " AND ".join(f"{_ident(k)} IS ?" for k in plain) or "1 = 1"
    cursor = db.execute(f"SELECT * FROM {_ident(table)} WHERE {where}", tuple(plain.values()))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _created_ids(run: VerifierInput, ref: Mapping[str, Any]) -> set[Any]:
    """Ids of rows created in this episode in ``ref["$created"]`` with ``ref["values"]``."""
    table = ref["$created"]
    keys = table_keys(run.final, table) or ["rowid"]
    key = keys[0]
    before = {r[key] for r in _rows(run.initial, table, {})} if key != "rowid" else set()
    return {r[key] for r in _matching(run, table, ref.get("values", {}))
            if r.get(key) not in before}


def _matching(run: VerifierInput, table: str, values: Mapping[str, Any]) -> list[dict]:
    out = []
    for row in _rows(run.final, table, values):
        if all(_holds(run, v, row.get(k)) for k, v in values.items()):
            out.append(row)
    return out


def _holds(run: VerifierInput, expected: Any, actual: Any) -> bool:
    if isinstance(expected, dict) and "$created" in expected:
        return actual in _created_ids(run, expected)
    return same_value(expected, actual)


def _row_values(check: Check, run: VerifierInput) -> bool:
    rows = _rows(run.final, check["table"], check["match"])
    return bool(rows) and all(all(_holds(run, v, r.get(k)) for k, v in check["expect"].items())
                              for r in rows)


def _row_added(check: Check, run: VerifierInput) -> bool:
    values = check["values"]
    table = check["table"]
    keys = table_keys(run.final, table)
    if keys:
        def key(r: dict) -> str:
            return json.dumps([r[k] for k in keys], default=str)

        before = {key(r) for r in _rows(run.initial, table, {})}
        new = [r for r in _matching(run, table, values) if key(r) not in before]
        return len(new) >= check.get("at_least", 1)
    plain = {k: v for k, v in values.items() if not isinstance(v, dict)}
    return len(_matching(run, table, values)) > len(_rows(run.initial, table, plain))


def _unchanged_elsewhere(check: Check, run: VerifierInput) -> bool:
    skip_tables = set(check.get("ignore_tables", ()))
    skip_columns = set(check.get("ignore_columns", ()))
    changed: Mapping[str, Mapping[str, list[str]]] = check.get("changed", {})
    added: Mapping[str, int] = check.get("added", {})
    removed: Mapping[str, list[str]] = check.get("removed", {})
    tables = [r[0] for r in run.final.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    for table in tables:
        if table in skip_tables or table_digest(run.initial, table) == table_digest(
                run.final, table):
            continue
        ignored = {c.split(".", 1)[1] for c in skip_columns
                   if c.startswith(("*.", f"{table}."))}
        _, before = snapshot(run.initial, table)
        _, after = snapshot(run.final, table)
        allowed = changed.get(table, {})
        for key, row in before.items():
            if key not in after:
                if key not in removed.get(table, ()):
                    return False
                continue
            diff = {c for c, v in after[key].items() if v != row.get(c)} - ignored
            if diff and not diff <= set(allowed.get(key, ())):
                return False
        new = sum(1 for key in after if key not in before)
        if new != added.get(table, 0):
            return False
    return True


def _count_changed(run: VerifierInput, table: str) -> int:
    def shape(db):
        _, rows = snapshot(db, table)
        return {k: {c: v for c, v in r.items() if c not in IGNORED_COLUMNS}
                for k, r in rows.items()}

    before, after = shape(run.initial), shape(run.final)
    changed = sum(1 for k, v in after.items() if before.get(k) != v)
    return changed + sum(1 for k in before if k not in after)


def evaluate(check: Check, run: VerifierInput) -> bool:
    """Whether one check holds. Raises ValueError for an unknown kind."""
    kind = check["kind"]
    if kind == "row_values":
        return _row_values(check, run)
    if kind == "row_added":
        return _row_added(check, run)
    if kind == "row_removed":
        return not _rows(run.final, check["table"], check["match"])
    if kind == "answer":
        return answer_matches(check["spec"], run.answer, db=run.initial)
    if kind == "answer_includes":
        # Older sets: each value is read as a typed single answer.
        return all(answer_matches(_legacy_spec(v), run.answer, db=run.initial)
                   for v in check["values"])
    if kind == "called":
        return any(step.ok and step.tool == check["tool"]
                   and all(same_value(v, step.arguments.get(k))
                           for k, v in check["arguments"].items())
                   for step in run.trajectory)
    if kind == "unchanged_elsewhere":
        return _unchanged_elsewhere(check, run)
    if kind == "count_changed":
        return _count_changed(run, check["table"]) == check["expected"]
    raise ValueError(f"unknown check kind {kind!r}")


def _legacy_spec(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "text", "value": "yes" if value else "no", "alternatives": ["yes", "no"]}
    if isinstance(value, int | float):
        return {"type": "money" if isinstance(value, float) else "number", "value": value}
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return {"type": "date", "value": value}
    return {"type": "text", "value": value}


def compile_rubric(checks: list[Check], threshold: float = 1.0, *, mode: str = "binary"):
    """The verifier for a rubric: score = points earned / points possible; passed when the score
    reaches ``threshold`` (every check, by default); reward by ``mode`` (see Verdict)."""
    total = sum(c.get("points", 1) for c in checks) or 1

    def verify(run: VerifierInput) -> Verdict:
        main = {i: evaluate(c, run) for i, c in enumerate(checks) if not c.get("guard")}
        all_main = all(main.values()) and bool(main)
        components, earned = {}, 0.0
        for i, check in enumerate(checks):
            ok = main[i] if i in main else (all_main and evaluate(check, run))
            points = check.get("points", 1)
            earned += points if ok else 0
            components[check.get("name", f"check {i + 1}")] = float(ok)
        score = earned / total
        return Verdict.of(score, score >= threshold - 1e-9, components, mode=mode)

    return verify
