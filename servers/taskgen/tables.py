"""Reading a table the way every verifier compares it: its key, its rows by key, a digest."""

from __future__ import annotations

import json
import re
import sqlite3
from collections import Counter
from typing import Any

__all__ = ["ident", "table_keys", "snapshot", "table_digest"]


def ident(name: str) -> str:
    """A table or column name, quoted: mined servers name tables and columns ``values`` or
    ``order``, which SQL reserves."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"not an identifier: {name!r}")
    return f'"{name}"'


def table_keys(db: sqlite3.Connection, table: str) -> list[str]:
    info = db.execute(f"PRAGMA table_info({ident(table)})").fetchall()
    return [r[1] for r in sorted(info, key=lambda r: r[5]) if r[5]]


def snapshot(db: sqlite3.Connection, table: str) -> tuple[list[str], dict[Any, dict[str, Any]]]:
    """(key columns, rows by key). A table without a primary key is keyed by whole content,
    with a repeat counter, so it compares as a multiset."""
    keys = table_keys(db, table)
    cursor = db.execute(f"SELECT * FROM {ident(table)}")
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
    return hash(tuple(db.execute(f"SELECT * FROM {ident(table)}").fetchall()))
