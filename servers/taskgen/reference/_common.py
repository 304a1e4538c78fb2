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


def answer(*expected: Any, points: int = 2, name: str = "answer") -> dict[str, Any]:
    return {"kind": "answer_includes", "values": list(expected), "points": points, "name": name}


def guard(table: str, expected: int) -> dict[str, Any]:
    return {"kind": "count_changed", "table": table, "expected": expected, "points": 1,
            "guard": True, "name": f"exactly {expected} {table} rows changed"}


# ---- records ----------------------------------------------------------------------------

def difficulty(calls: int) -> str:
    return "hard" if calls >= 8 else "medium" if calls >= 3 else "easy"


def record(env_id: str, number: int, prompt: str, calls: list[Call], checks: list[dict],
           answer_text: str | None = None, *, long: bool = False,
           template: str = "") -> TaskRecord:
    n = len(calls)
    if long and n < 15:
        raise ValueError(f"{env_id}/ref-{number:03d}: a long-horizon task needs 15+ calls")
    return TaskRecord(
        id=f"{env_id}/ref-{number:03d}", env_id=env_id, kind="programmatic", prompt=prompt,
        checks=checks, reference_calls=calls, reference_answer=answer_text,
        max_steps=max(2 * n + 10, 20), difficulty="hard" if long else difficulty(n),
        split="long_horizon" if long else "train",
        metadata={"template": template, "calls": n, "source": "reference"})


def dollars(cents: int) -> str:
    return f"{cents // 100}" if cents % 100 == 0 else f"{cents / 100:.2f}"
