"""The SQLite view of a folder of JSON collections.

An imported environment's truth is its folder of JSON files (that is what its tools read and
write); the view mirrors each collection as a table, so that verifiers, the diagnosis and task
synthesis query it like any other environment's database. One file ``name.json`` is one table
``name``; one row object is one row, in list order (rowid order, which ``database_hash`` uses);
nested values are stored as JSON text. The same encoding is used at import (through sqlite-utils,
which infers the column types) and after every call, so an unchanged file gives an unchanged view.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["TABLE_NAME", "collection_rows", "keyed", "encode_row", "write_view", "replace_table",
           "schema_sql"]

TABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")
# A placeholder column for a collection that is empty at import (SQLite needs one column).
EMPTY_COLUMN = "_empty"


def keyed(value: Any) -> bool:
    """Whether a collection is objects by key (``{"u1": {...}, "u2": {...}}``): the release's
    code reads such a file as ``data[key]``."""
    return (isinstance(value, dict) and bool(value)
            and all(isinstance(v, dict) for v in value.values()))


def collection_rows(value: Any) -> list[dict[str, Any]]:
    """A collection's rows: a list of objects as is; objects by key become one row each, with
    the key in ``_key`` (and in ``id`` when the object has none); anything else one row."""
    if keyed(value):
        return [{"_key": k, **({} if "id" in v else {"id": k}), **v} for k, v in value.items()]
    if isinstance(value, dict):
        return [value]
    if isinstance(value, list):
        return [item if isinstance(item, dict) else {"value": item} for item in value]
    return [{"value": value}]


def _encode(value: Any) -> Any:
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    if isinstance(value, bool):
        return int(value)
    return value


def encode_row(row: dict[str, Any]) -> dict[str, Any]:
    return {str(key): _encode(value) for key, value in row.items()}


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]


def replace_table(conn: sqlite3.Connection, table: str, rows: Iterable[dict[str, Any]]) -> None:
    """Make ``table`` hold exactly ``rows`` (creating it, or adding columns, as needed).

    Plain SQL on purpose: it runs inside the runtime's SAVEPOINT, which sqlite-utils'
    ``with conn:`` would commit.
    """
    encoded = [encode_row(r) for r in rows]
    keys = list(dict.fromkeys(k for row in encoded for k in row))
    existing = _columns(conn, table)
    if not existing:
        cols = ", ".join(f'"{_quoted(k)}"' for k in keys or [EMPTY_COLUMN])
        conn.execute(f'CREATE TABLE "{table}" ({cols})')
        existing = keys or [EMPTY_COLUMN]
    for key in keys:
        if key not in existing:
            conn.execute(f'ALTER TABLE "{table}" ADD COLUMN "{_quoted(key)}"')
    conn.execute(f'DELETE FROM "{table}"')
    for row in encoded:
        names = ", ".join(f'"{_quoted(k)}"' for k in row)
        marks = ", ".join("?" for _ in row)
        if row:
            conn.execute(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', tuple(row.values()))
        else:
            conn.execute(f'INSERT INTO "{table}" DEFAULT VALUES')


def _quoted(name: str) -> str:
    return name.replace('"', '""')


def write_view(path: Path, collections: dict[str, list[dict[str, Any]]]) -> None:
    """Write the browsable view file with sqlite-utils (it infers the column types)."""
    import sqlite_utils

    db = sqlite_utils.Database(path, recreate=True)
    for table, rows in collections.items():
        encoded = [encode_row(r) for r in rows]
        if encoded and any(encoded):
            db[table].insert_all(encoded, alter=True)
        else:
            db[table].create({EMPTY_COLUMN: str})
    db.close()


def schema_sql(path: Path) -> str:
    """The CREATE statements of a view file: the schema of the environment's template."""
    conn = sqlite3.connect(path)
    try:
        rows = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' "
                            "AND name NOT LIKE 'sqlite_%' ORDER BY name").fetchall()
    finally:
        conn.close()
    return ";\n".join(r[0] for r in rows) + (";\n" if rows else "")
