"""The shared workload: a 1,000-row SQLite table; a step is a SELECT or an UPDATE of one row by
key (steps alternate); a reset starts from a copy of the template.

This module is imported by both sides: by our hub's launcher (as an agentworld environment) and,
under the peer's own virtual environment, by the peer's server (plain ``sqlite3`` only there).
"""

from __future__ import annotations

import sqlite3
from typing import Any

ROWS = 1000
SCHEMA = ("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
          "value INTEGER NOT NULL, note TEXT NOT NULL)")


def seed(conn: sqlite3.Connection) -> None:
    conn.executemany("INSERT INTO items VALUES (?, ?, ?, ?)",
                     [(i, f"item {i:04d}", i * 7 % 1000, f"row {i} of the benchmark table")
                      for i in range(1, ROWS + 1)])


def write_template(path: str) -> str:
    """The template database as a file (the peer copies it at every reset)."""
    conn = sqlite3.connect(path)
    conn.execute(SCHEMA)
    seed(conn)
    conn.commit()
    conn.close()
    return path


def action(i: int) -> tuple[str, dict[str, Any]]:
    """The i-th step: even steps read a row, odd steps write one."""
    key = i * 37 % ROWS + 1
    if i % 2 == 0:
        return "get_item", {"id": key}
    return "set_value", {"id": key, "value": i % 1000}


def select(conn: sqlite3.Connection, key: int) -> dict[str, Any]:
    row = conn.execute("SELECT id, name, value, note FROM items WHERE id = ?", (key,)).fetchone()
    return {"item": dict(zip(("id", "name", "value", "note"), row, strict=True))}


def update(conn: sqlite3.Connection, key: int, value: int) -> dict[str, Any]:
    conn.execute("UPDATE items SET value = ? WHERE id = ?", (value, key))
    return {"id": key, "value": value}
