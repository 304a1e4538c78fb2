"""Rubric checks as data, compiled into a deterministic verifier.

A task's rubric is a list of checks with points. Each check reads only the verifier's input: the
initial database, the final database, the final answer and the trajectory. The task passes when
every check holds. Kinds:

* ``row_values``: a row that existed (matched by its key) ends with the expected values;
* ``row_added``: a new row with the expected content exists. Created rows are matched by content,
  never by a generated id: a value ``{"$created": table, "values": {...}}`` stands for "the id of
  a row created in this episode in ``table`` with that content";
* ``row_removed``: a row is gone;
* ``answer``: the final answer is exactly the expected value (see ``answers.py``), read from the
  reply without its labelled context, and not hedged;
* ``read``: the evidence an answer rests on was seen: some successful call, of any tool,
  returned the answer's value or one of the records it comes from (a listing counts as well as
  a lookup); guessing fails it;
* ``reply``: the reply claims nothing the final state contradicts (``reply/facts.py``);
* ``read_only``: a question's episode made no successful write, not even one it undid;
* ``order``: a record made before (or after) a change the request orders it with
  (``order.py``);
* ``called`` (options a request insists on that the state cannot show): a successful call of a
  tool with the given arguments;
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
from decimal import Decimal
from typing import Any

from agentworld.servers.tasks import Verdict, VerifierInput

from .answers import answer_matches
from .order import order_holds
from .reply.facts import read_reply
from .reply.text import answer_text, hedges
from .tables import ident as _ident
from .tables import snapshot, table_digest, table_keys
from .values import leaves, same

__all__ = ["Check", "evaluate", "compile_rubric", "IGNORED_COLUMNS", "table_keys",
           "snapshot", "same_value", "table_digest", "answer_holds", "evidence_seen",
           "answer_facts", "number_text"]

Check = Mapping[str, Any]

# Columns whose values depend on when or how many calls the agent made, not on what it did.
IGNORED_COLUMNS = frozenset({"id", "created_at", "updated_at"})


def same_value(expected: Any, actual: Any, column: str = "") -> bool:
    """Whether ``actual`` is the value ``expected`` states, by its type (``values.py``)."""
    return same(expected, actual, column=column)


def _rows(db: sqlite3.Connection, table: str, match: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rows whose key columns (``match``) hold exactly these values."""
    plain = {k: v for k, v in match.items() if not isinstance(v, dict)}
    where = " AND ".join(f"{_ident(k)} IS ?" for k in plain) or "1 = 1"
    cursor = db.execute(f"SELECT * FROM {_ident(table)} WHERE {where}", tuple(plain.values()))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


# What one verification has already read (new rows per table, created ids per reference), by
# the id of the run: the same reference to a created row is resolved once, not once per row.
_MEMO: dict[int, dict[Any, Any]] = {}


def _memoized(run: VerifierInput, key: Any, compute):
    memo = _MEMO.get(id(run))
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _new_rows(run: VerifierInput, table: str) -> list[dict[str, Any]]:
    """Rows of ``table`` this episode created (by key; a table without one compares whole
    rows as a multiset)."""
    return _memoized(run, ("new", table), lambda: _read_new_rows(run, table))


def _read_new_rows(run: VerifierInput, table: str) -> list[dict[str, Any]]:
    keys = table_keys(run.final, table)
    if not keys:
        before = Counter(json.dumps(r, sort_keys=True, default=str)
                         for r in _rows(run.initial, table, {}))
        out = []
        for row in _rows(run.final, table, {}):
            text = json.dumps(row, sort_keys=True, default=str)
            if before[text]:
                before[text] -= 1
            else:
                out.append(row)
        return out
    columns = ", ".join(_ident(k) for k in keys)
    old = {tuple(r) for r in run.initial.execute(f"SELECT {columns} FROM {_ident(table)}")}
    return [r for r in _rows(run.final, table, {}) if tuple(r[k] for k in keys) not in old]


def _created_ids(run: VerifierInput, ref: Mapping[str, Any]) -> set[Any]:
    """Ids of rows created in this episode in ``ref["$created"]`` with ``ref["values"]``."""
    table = ref["$created"]
    key = (table_keys(run.final, table) or ["rowid"])[0]
    return _memoized(run, ("created", json.dumps(ref, sort_keys=True, default=str)),
                     lambda: {r.get(key) for r in _holding(run, _new_rows(run, table),
                                                           ref.get("values", {}))})


def _holding(run: VerifierInput, rows: list[dict], values: Mapping[str, Any]) -> list[dict]:
    """The rows that hold ``values``, each compared by its type (an empty expected column
    must be empty)."""
    return [row for row in rows if all(_holds(run, v, row.get(k), k) for k, v in values.items())]


def _holds(run: VerifierInput, expected: Any, actual: Any, column: str = "") -> bool:
    if isinstance(expected, dict) and "$created" in expected:
        return actual in _created_ids(run, expected)
    if expected is None:
        return actual is None
    return same_value(expected, actual, column)


def _row_values(check: Check, run: VerifierInput) -> bool:
    rows = _rows(run.final, check["table"], check["match"])
    return bool(rows) and all(all(_holds(run, v, r.get(k), k)
                                  for k, v in check["expect"].items()) for r in rows)


def _row_added(check: Check, run: VerifierInput) -> bool:
    new = _holding(run, _new_rows(run, check["table"]), check["values"])
    return len(new) >= check.get("at_least", 1)


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


def answer_holds(spec: Mapping[str, Any], reply: str | None, *,
                 db: sqlite3.Connection | None = None) -> bool:
    """The answer check: the reply, without its labelled context, gives exactly the expected
    value and does not hedge."""
    if not reply:
        return False
    text = answer_text(reply)
    value = spec.get("value") if spec.get("type") in ("number", "money") else None
    return not hedges(text, value) and answer_matches(dict(spec), text, db=db)


def answer_facts(spec: Mapping[str, Any]) -> set[str]:
    """The answer's value as a reply of a tool may hold it (amounts in cents as well)."""
    values = spec["value"] if isinstance(spec.get("value"), list) else [spec.get("value")]
    out = set()
    for value in values:
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            number = Decimal(str(value))
            out.add(number_text(number))
            if spec.get("type") == "money":
                out.add(number_text(number * 100))
        else:
            out.add(str(value).casefold()[:10] if spec.get("type") == "date"
                    else str(value).casefold())
    return out


def number_text(number: Decimal) -> str:
    return str(number.normalize()) if number != number.to_integral() else str(int(number))


def _seen(run: VerifierInput) -> set[str]:
    """Every value the successful calls returned, as ``answer_facts`` writes them."""
    out: set[str] = set()
    for step in run.trajectory:
        if not step.ok:
            continue
        for value in leaves(step.output):
            if isinstance(value, int | float):
                out.add(number_text(Decimal(str(value))))
                continue
            text = str(value).casefold()
            out.add(text)
            if re.match(r"\d{4}-\d{2}-\d{2}", text):
                out.add(text[:10])
    return out


def evidence_seen(check: Check, run: VerifierInput) -> bool:
    """Whether a successful call returned the answer's value or a record it rests on."""
    seen = _seen(run)
    wanted = {str(w).casefold() for w in check.get("witnesses", ())}
    for spec in check.get("specs", ()):
        wanted |= answer_facts(spec)
    return bool(wanted & seen)


def evaluate(check: Check, run: VerifierInput, notes: dict[str, Any] | None = None) -> bool:
    """Whether one check holds; ``notes`` collects what a check found beyond its verdict (the
    reply's contradictions and undecided statements). Raises ValueError for an unknown kind."""
    kind = check["kind"]
    if kind == "row_values":
        return _row_values(check, run)
    if kind == "row_added":
        return _row_added(check, run)
    if kind == "row_removed":
        return not _rows(run.final, check["table"], check["match"])
    if kind == "answer":
        return answer_holds(check["spec"], run.answer, db=run.initial)
    if kind == "read":
        return evidence_seen(check, run)
    if kind == "order":
        return order_holds(check, run, _created_ids)
    if kind == "read_only":
        writes = set(check.get("tools", ()))
        return not any(step.ok and step.tool in writes for step in run.trajectory)
    if kind == "reply":
        reading = read_reply(run.answer, initial=run.initial, final=run.final,
                             trajectory=run.trajectory, prompt=check.get("prompt", ""),
                             skip_tables=check.get("ignore_tables", ()),
                             skip_columns=check.get("ignore_columns", ()),
                             template_key=check.get("template"),
                             expected=check.get("expected", ()),
                             tools=check.get("tools", ()),
                             counted=check.get("counted", ()))
        if notes is not None:
            notes["contradictions"] = [f.to_dict() for f in reading.contradictions]
            notes["undecided"] = reading.undecided
        return reading.ok
    if kind == "answer_includes":
        # Older sets: each value is read as a typed single answer.
        return all(answer_matches(_legacy_spec(v), run.answer, db=run.initial)
                   for v in check["values"])
    if kind == "called":
        return any(step.ok and step.tool == check["tool"]
                   and all(same_value(v, step.arguments.get(k), k)
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
        notes: dict[str, Any] = {}
        _MEMO[id(run)] = {}
        try:
            main = {i: evaluate(c, run, notes) for i, c in enumerate(checks)
                    if not c.get("guard")}
            all_main = all(main.values()) and bool(main)
            components, earned = {}, 0.0
            for i, check in enumerate(checks):
                # A guard shows what it found, but earns its points only with the rest.
                ok = main[i] if i in main else evaluate(check, run, notes)
                points = check.get("points", 1)
                earned += points if ok and (i in main or all_main) else 0
                components[check.get("name", f"check {i + 1}")] = float(ok)
        finally:
            _MEMO.pop(id(run), None)
        score = earned / total
        return Verdict.of(score, score >= threshold - 1e-9, components, mode=mode,
                          notes=notes)

    return verify
