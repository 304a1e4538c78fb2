"""Steps the request puts in order: "first comment ..., then close it".

The clock is free (the principle: no check pins a timestamp), but the order of two steps the
request orders is a stated fact. Where the prompt orders its steps, each record the reference
creates that refers to a record it then changes (a comment on the issue it closes) keeps that
order: the new record's ``created_at`` comes before the change's own stamp (``closed_at``), or
after it when the reference made it after.
"""

from __future__ import annotations

import re
from typing import Any

from agentworld.servers.words import singular

from .values import instant

__all__ = ["ORDERS_STEPS", "asks_order", "order_checks", "order_holds"]

# "first X, then Y", "X before Y", "after X, Y", "in this order".
ORDERS_STEPS = re.compile(r"\bfirst\b[^.?!]*\bthen\b|\bbefore (?:you |closing|deleting|"
                          r"archiving|merging|cancel)|\bafter (?:you |that|commenting|adding)|"
                          r"\bin (?:this|that|the following|exactly this) order\b", re.I)
_STAMPS_SKIPPED = frozenset({"created_at", "updated_at"})


def asks_order(prompt: str) -> bool:
    """Whether the request orders its steps (quoted text, such as a comment to post, aside)."""
    return bool(prompt) and ORDERS_STEPS.search(re.sub(r'"[^"]*"', '""', prompt)) is not None


def order_checks(runs, prompt: str) -> list[dict[str, Any]]:
    """The ``order`` checks of the reference run ``runs`` (``effects._Runs``), when ``prompt``
    orders its steps; none otherwise."""
    if not asks_order(prompt):
        return []
    out = []
    for ident, (table, row, _) in runs.created.items():
        made = instant(row.get("created_at"))
        if made is None:
            continue
        for column, value in row.items():
            parent = _parent_table(runs, column)
            if parent is None or value is None:
                continue
            keys, before, after, _ = runs.tables[parent]
            if len(keys) != 1:
                continue
            key = next((k for k, r in after.items() if r[keys[0]] == value), None)
            if key is None or key not in before:
                continue
            for stamp, moment in _changed_stamps(before[key], after[key]):
                side = "before" if made < moment else "after"
                out.append({"kind": "order", "first": runs.ref(ident),
                            "then": {"table": parent, "match": {keys[0]: value},
                                     "column": stamp},
                            "earlier": made < moment, "points": 1,
                            "name": f"new {singular(table)} {side} the {singular(parent)}'s "
                                    f"{stamp}"})
    return out


def _parent_table(runs, column: str) -> str | None:
    if not column.endswith("_id"):
        return None
    noun = column[:-3]
    for table in runs.tables:
        if singular(table) == noun or table == noun:
            return table
    return None


def _changed_stamps(old: dict[str, Any], new: dict[str, Any]):
    for column, value in new.items():
        if column in _STAMPS_SKIPPED or value == old.get(column):
            continue
        moment = instant(value)
        if moment is not None:
            yield column, moment


def order_holds(check: dict[str, Any], run, created_ids) -> bool:
    """Whether every record the episode made like ``check["first"]`` came before (or after)
    the change of ``check["then"]``."""
    then = check["then"]
    (column, value), = then["match"].items()
    row = run.final.execute(f'SELECT "{then["column"]}" FROM "{then["table"]}" WHERE '
                            f'"{column}" = ?', (value,)).fetchone()
    moment = instant(row[0]) if row is not None else None
    table = check["first"]["$created"]
    ids = created_ids(run, check["first"])
    if moment is None or not ids:
        return False
    key = [r[1] for r in run.final.execute(f'PRAGMA table_info("{table}")') if r[5]][0]
    stamps = [instant(r[0]) for r in run.final.execute(
        f'SELECT created_at FROM "{table}" WHERE "{key}" IN ({", ".join("?" for _ in ids)})',
        tuple(ids))]
    return all(s is not None and (s < moment if check["earlier"] else s > moment)
               for s in stamps)
