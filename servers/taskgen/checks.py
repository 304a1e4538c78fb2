"""Rubric checks as data, compiled into a deterministic verifier.

A task's rubric is a list of checks with points and a pass threshold. Each check reads only the
verifier's input: the initial database, the final database, the final answer, the trajectory.
Checks that merely guard against collateral damage (``guard``) earn their points only when every
other check holds, so an agent that does nothing never scores on them.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Mapping
from typing import Any

from agentworld.servers.tasks import Verdict, VerifierInput

__all__ = ["Check", "evaluate", "compile_rubric", "IGNORED_COLUMNS"]

Check = Mapping[str, Any]

# Columns whose values depend on when or how many calls the agent made, not on what it did.
IGNORED_COLUMNS = frozenset({"id", "created_at", "updated_at"})


def _ident(name: str) -> str:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not an identifier: {name!r}")
    return name


def _rows(db: sqlite3.Connection, table: str, match: Mapping[str, Any]) -> list[dict[str, Any]]:
    where = " AND ".join(f"{_ident(k)} IS ?" for k in match) or "1 = 1"
    cursor = db.execute(f"SELECT * FROM {_ident(table)} WHERE {where}", tuple(match.values()))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _normal(text: Any) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().lower()


def _numbers(text: str) -> set[float]:
    return {float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?", text)}


def _answer_has(answer: str | None, value: Any) -> bool:
    if answer is None:
        return False
    if isinstance(value, bool):
        return _normal(str(value)) in _normal(answer) or (
            ("yes" if value else "no") in _normal(answer).split())
    if isinstance(value, int | float):
        return float(value) in _numbers(answer)
    return _normal(value) in _normal(answer)


def evaluate(check: Check, run: VerifierInput) -> bool:
    kind = check["kind"]
    if kind == "row_values":
        rows = _rows(run.final, check["table"], check["match"])
        return bool(rows) and all(all(r.get(k) == v for k, v in check["expect"].items())
                                  for r in rows)
    if kind == "row_added":
        before = len(_rows(run.initial, check["table"], check["values"]))
        return len(_rows(run.final, check["table"], check["values"])) > before
    if kind == "row_removed":
        return not _rows(run.final, check["table"], check["match"])
    if kind == "answer_includes":
        return all(_answer_has(run.answer, v) for v in check["values"])
    if kind == "called":
        # The agent looked it up: an answer without the lookup is a guess.
        return any(step.ok and step.tool == check["tool"]
                   and all(step.arguments.get(k) == v for k, v in check["arguments"].items())
                   for step in run.trajectory)
    if kind == "count_changed":
        # How many rows of a table differ from the initial state (ignoring timing columns).
        return _changed_rows(run, check["table"]) == check["expected"]
    raise ValueError(f"unknown check kind {kind!r}")


def _changed_rows(run: VerifierInput, table: str) -> int:
    def snapshot(db):
        info = db.execute(f"PRAGMA table_info({_ident(table)})").fetchall()
        keys = [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]] or [r[1] for r in info]
        cursor = db.execute(f"SELECT * FROM {_ident(table)}")
        names = [d[0] for d in cursor.description]
        keep = [i for i, n in enumerate(names) if n not in IGNORED_COLUMNS]
        at = [names.index(k) for k in keys]
        return {tuple(row[i] for i in at): tuple(row[i] for i in keep)
                for row in cursor.fetchall()}

    before, after = snapshot(run.initial), snapshot(run.final)
    changed = sum(1 for k, v in after.items() if before.get(k) != v)
    return changed + sum(1 for k in before if k not in after)


def compile_rubric(checks: list[Check], threshold: float = 1.0):
    """The verifier for a rubric: reward = points earned / points possible."""
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
        reward = earned / total
        return Verdict(reward=round(reward, 6), passed=reward >= threshold,
                       components=components)

    return verify
