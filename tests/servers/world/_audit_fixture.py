"""A tiny archetype written into a real SQLite file, for the data audit's tests: each test seeds
the rows it needs (a violation, or a clean case) and reads them back as a Subject."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from agentworld.servers.world.data_audit import Subject, ToolText, subject_from_db
from agentworld.servers.world.spec import Archetype, Entity

CLOCK = "2026-03-02T09:00:00Z"
CREATED = "2026-01-10T10:00:00Z"
UPDATED = "2026-01-12T10:00:00Z"


def archetype(*entities: Entity, people: str = "", **extra: Any) -> Archetype:
    return Archetype(id="tiny", l2="Tiny", title="Tiny", description="A tiny test archetype.",
                     entities=entities, primary=entities[-1].name, people=people, **extra)


def _ddl(entity: Entity, plural: dict[str, str]) -> str:
    cols = ["id TEXT PRIMARY KEY"]
    for f in entity.fields:
        cols.append(f"{f.name} TEXT REFERENCES {plural[f.ref]}(id)" if f.kind == "ref"
                    else f"{f.name}")
    if entity.lifecycle:
        cols.append("status TEXT")
    cols += ["created_at TEXT", "updated_at TEXT"]
    return f"CREATE TABLE {entity.plural} ({', '.join(cols)})"


def _insert(conn: sqlite3.Connection, table: str, rows: list[dict[str, Any]],
            stamped: bool) -> None:
    for row in rows:
        if stamped:
            row = {"created_at": CREATED, "updated_at": UPDATED, **row}
        cols = list(row)
        conn.execute(f"INSERT INTO {table} ({', '.join(cols)}) VALUES "
                     f"({', '.join('?' for _ in cols)})", [row[c] for c in cols])


def subject(tmp_path: Path, arch: Archetype, rows: dict[str, list[dict[str, Any]]], *,
            extra_tables: dict[str, str] | None = None, tools: list[ToolText] | None = None,
            clock: str = CLOCK) -> Subject:
    """Write ``arch``'s tables (plus ``extra_tables``: name -> DDL) and ``rows`` (by table; an
    entity's rows get created_at/updated_at unless given) to a SQLite file and read it back."""
    plural = {e.name: e.plural for e in arch.entities}
    conn = sqlite3.connect(tmp_path / "audit.db")
    for entity in arch.entities:
        conn.execute(_ddl(entity, plural))
    for ddl in (extra_tables or {}).values():
        conn.execute(ddl)
    for table, table_rows in rows.items():
        _insert(conn, table, table_rows, stamped=table in plural.values())
    conn.commit()
    try:
        return subject_from_db("tiny-env", conn, clock=clock, archetype=arch, tools=tools)
    finally:
        conn.close()


def rules_of(findings) -> list[tuple[str, str, str]]:
    """(table, row, rule) of each finding, for compact assertions."""
    return [(f.table, f.row, f.rule) for f in findings]
