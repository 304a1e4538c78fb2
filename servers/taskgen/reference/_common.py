"""Shared pieces of the hand-written reference tasks: queries, check builders, simulation.

Every builder queries the template database for its situation and, where a number depends on
the tools' own rules (a refund, a fee, a generated PNR), runs the reference calls once in a
scratch session seeded like the episode, so the task stays correct if the seed data changes.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from agentworld.servers import Environment, Session, default_catalog

from ..record import TaskRecord

Call = list[Any]


def load(env_id: str) -> tuple[Environment, sqlite3.Connection]:
    env = default_catalog().load(env_id)
    return env, env.template.clone()


def rows(db: sqlite3.Connection, sql: str, *params: Any) -> list[dict[str, Any]]:
    cursor = db.execute(sql, params)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def one(db: sqlite3.Connection, sql: str, *params: Any) -> dict[str, Any]:
    found = rows(db, sql, *params)
    if not found:
        raise LookupError(f"the seed has no situation for: {sql.strip()[:160]}")
    return found[0]


def scalar(db: sqlite3.Connection, sql: str, *params: Any) -> Any:
    return db.execute(sql, params).fetchone()[0]


def simulate(env: Environment, calls: list[Call], *, seed: int = 0) -> list[dict[str, Any]]:
    """The payloads of ``calls`` run in a fresh session; every call must succeed."""
    session = Session(env, seed=seed)
    try:
        out = []
        for name, args in calls:
            result = session.call(name, args)
            if not result.ok:
                raise RuntimeError(f"reference call {name} failed: {result.payload()}")
            out.append(result.data)
        return out
    finally:
        session.close()


def pages(tool: str, args: dict[str, Any], total: int, limit: int) -> list[Call]:
    """The calls that read every page of a listing of ``total`` rows."""
    calls = []
    for offset in range(0, max(total, 1), limit):
        page = {**args, "limit": limit}
        if offset:
            page["cursor"] = str(offset)
        calls.append([tool, page])
    return calls


# ---- checks -----------------------------------------------------------------------------

def values(table: str, match: dict[str, Any], expect: dict[str, Any], *, points: int = 1,
           name: str | None = None) -> dict[str, Any]:
    return {"kind": "row_values", "table": table, "match": match, "expect": expect,
            "points": points, "name": name or f"{table} {list(match.values())} {expect}"}


def added(table: str, columns: dict[str, Any], *, points: int = 1,
          name: str | None = None) -> dict[str, Any]:
    return {"kind": "row_added", "table": table, "values": columns, "points": points,
            "name": name or f"{table} + {list(columns.values())}"}


def removed(table: str, match: dict[str, Any], *, points: int = 1,
            name: str | None = None) -> dict[str, Any]:
    return {"kind": "row_removed", "table": table, "match": match, "points": points,
            "name": name or f"{table} - {list(match.values())}"}


def answer(*expected: Any, points: int = 2, name: str = "answer",
           domain: tuple[str, str] | None = None) -> dict[str, Any]:
    """The typed answer spec(s) for ``expected``: a count is a number, a float is an amount in US
    dollars, an ISO date is a date, several counts are a list of numbers, text is a name (with
    the table and column its rivals come from, when given)."""
    specs = []
    if len(expected) > 1 and all(isinstance(v, int) for v in expected):
        specs.append({"type": "list", "value": list(expected)})
    else:
        for value in expected:
            specs.append(_spec(value, domain))
    return {"kind": "answer_specs", "specs": specs, "points": points, "name": name}


def _spec(value: Any, domain: tuple[str, str] | None) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"type": "text", "value": "yes" if value else "no", "alternatives": ["yes", "no"]}
    if isinstance(value, int):
        return {"type": "number", "value": value}
    if isinstance(value, float):
        return {"type": "money", "value": round(value, 2), "currency": "USD"}
    if isinstance(value, str) and len(value) == 10 and value[4] == "-" and value[7] == "-":
        return {"type": "date", "value": value}
    spec: dict[str, Any] = {"type": "text", "value": value}
    if domain:
        spec["domain"] = {"table": domain[0], "column": domain[1]}
    return spec


def guard(table: str, expected: int) -> dict[str, Any]:
    return {"kind": "count_changed", "table": table, "expected": expected, "points": 1,
            "guard": True, "name": f"exactly {expected} {table} rows changed"}


# ---- records ----------------------------------------------------------------------------

def difficulty(calls: int) -> str:
    return "hard" if calls >= 8 else "medium" if calls >= 3 else "easy"


def record(env_id: str, number: int, prompt: str, calls: list[Call], checks: list[dict],
           answer_text: str | None = None, *, long: bool = False, template: str = "",
           options: list[dict[str, Any]] = ()) -> TaskRecord:
    """A hand-written task, assembled like every other: the state checks and the whole-database
    guard come from the reference solution's effect."""
    from ..assemble import assemble

    n = len(calls)
    if long and n < 15:
        raise ValueError(f"{env_id}/ref-{number:03d}: a long-horizon task needs 15+ calls")
    specs = [s for c in checks if c["kind"] == "answer_specs" for s in c["specs"]]
    # The hand-written row checks are not kept: some name rows by ids the reference run
    # generated, and the effect checks state the same outcome exactly, matched by content.
    extra = [c for c in checks if c["kind"] == "called"]
    env = default_catalog().load(env_id)
    return assemble(
        env, id=f"{env_id}/ref-{number:03d}", kind="programmatic", prompt=prompt, calls=calls,
        answer=specs or None, options=list(options), extra=extra, reference_answer=answer_text,
        max_steps=max(2 * n + 10, 20), difficulty="hard" if long else difficulty(n),
        split="long_horizon" if long else "train",
        metadata={"template": template, "calls": n, "source": "reference"})


def dollars(cents: int) -> str:
    return f"{cents // 100}" if cents % 100 == 0 else f"{cents / 100:.2f}"
