"""The rubric of a chain: what its execution changed, written as checks that hold whatever ids,
codes or timestamps the agent's own session produces.

The chain is run twice from the template, the second time with a shifted clock and a reseeded
RNG; a value that differs between the two runs depends on timing or chance, not on what the
agent did, and is left out of the checks. Every check must fail on the untouched template.
"""

from __future__ import annotations

import random
import re
from typing import Any

from agentworld.servers import Environment, Session
from agentworld.servers.tasks import VerifierInput

from .checks import IGNORED_COLUMNS, Check, compile_rubric
from .walk import Chain

__all__ = ["run_calls", "diff_checks", "answer_check", "noop_score"]

_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def run_calls(env: Environment, calls, *, seed: int, shift: int = 0) -> Session:
    """Replay ``calls``; ``shift`` moves the clock and reseeds the session's RNG (but keeps its
    ids) to expose values that depend on timing or chance rather than on the calls."""
    session = Session(env, seed=seed)
    if shift:
        session.ctx.rng = random.Random(f"shifted:{seed}:{shift}")
    for _ in range(shift):
        session.ctx.clock.advance()
    for name, args in calls:
        result = session.call(name, args)
        if not result.ok:
            raise ValueError(f"{name} failed on replay: {result.error}")
    return session


def _key_columns(db, table: str) -> list[str]:
    info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
    keys = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
    return keys or ["rowid"]


def _table_rows(db, table: str) -> tuple[list[str], dict[Any, dict[str, Any]]]:
    """Rows keyed by primary key (a tuple of its columns)."""
    keys = _key_columns(db, table)
    cursor = db.execute(f'SELECT rowid AS "rowid", * FROM "{table}" ORDER BY rowid')
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    return keys, {tuple(r[k] for k in keys): r for r in rows}


def _stable(value_a: Any, value_b: Any) -> bool:
    return value_a == value_b and not (isinstance(value_a, str) and _TIMESTAMP.match(value_a))


def diff_checks(env: Environment, chain: Chain, *, seed: int) -> list[Check]:
    a = run_calls(env, chain.calls, seed=seed)
    b = run_calls(env, chain.calls, seed=seed, shift=3)
    initial = env.template.clone()
    checks: list[Check] = []
    try:
        tables = [r[0] for r in initial.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        for table in tables:
            checks += _table_checks(table, initial, a.db, b.db)
    finally:
        initial.close()
        a.close()
        b.close()
    return checks


def _table_checks(table: str, initial, final_a, final_b) -> list[Check]:
    keys, before = _table_rows(initial, table)
    _, after_a = _table_rows(final_a, table)
    _, after_b = _table_rows(final_b, table)
    if keys == ["rowid"]:
        return []  # rows without a key cannot be matched reliably
    ignored = IGNORED_COLUMNS | {"rowid"}
    checks: list[Check] = []
    changed = 0
    for key, row in after_a.items():
        if key in before:
            diffs = {c: v for c, v in row.items() if c not in ignored and c not in keys
                     and before[key].get(c) != v and _stable(v, after_b.get(key, {}).get(c))}
            if diffs:
                changed += 1
                match = dict(zip(keys, key, strict=True))
                label = "/".join(str(k) for k in key)
                checks.append({"kind": "row_values", "table": table, "match": match,
                               "expect": diffs, "points": 2,
                               "name": f"{table} {label}: " + ", ".join(
                                   f"{c}={v}" for c, v in diffs.items())})
    inserted_a = [r for k, r in after_a.items() if k not in before]
    inserted_b = [r for k, r in after_b.items() if k not in before]
    for row_a, row_b in zip(inserted_a, inserted_b, strict=False):
        values = {c: v for c, v in row_a.items() if c not in ignored
                  and v is not None and _stable(v, row_b.get(c))}
        if values:
            changed += 1
            checks.append({"kind": "row_added", "table": table, "values": values, "points": 2,
                           "name": f"new row in {table}"})
    for key in before:
        if key not in after_a:
            changed += 1
            checks.append({"kind": "row_removed", "table": table,
                           "match": dict(zip(keys, key, strict=True)), "points": 2,
                           "name": f"{table} {'/'.join(map(str, key))} removed"})
    if changed:
        checks.append({"kind": "count_changed", "table": table, "expected": changed,
                       "points": 1, "guard": True, "name": f"only those {table} changed"})
    return checks


def answer_check(chain: Chain) -> tuple[Check, str] | None:
    """If the chain ends with a read, ask for one scalar of its reply: (check, what to ask)."""
    last = chain.steps[-1]
    output = last.output
    if "total" in output and isinstance(output["total"], int):
        return ({"kind": "answer_includes", "values": [output["total"]], "points": 2,
                 "name": "answer: how many"}, "how many there are in all")
    obj = next((v for v in output.values() if isinstance(v, dict)), None)
    if obj is None:
        return None
    preferred = ["status", "state", "name", "title", "total_cents", "amount", "email"]
    others = [k for k, v in obj.items() if isinstance(v, str) and k not in IGNORED_COLUMNS
              and not k.endswith("_id") and not _TIMESTAMP.match(v)]
    for key in preferred + others:
        value = obj.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool) and value != "":
            return ({"kind": "answer_includes", "values": [value], "points": 2,
                     "name": f"answer: {key}"}, f"its {key.replace('_', ' ')}")
    return None


def noop_score(env: Environment, checks: list[Check]) -> float:
    initial, final = env.template.clone(), env.template.clone()
    try:
        verdict = compile_rubric(checks)(VerifierInput(initial, final, None, ()))
    finally:
        initial.close()
        final.close()
    return verdict.reward
