"""Audit log: an append-only record of every change, written by an ``on_mutation`` hook.

No tool edits an event, and the database itself refuses to (triggers abort any UPDATE or
DELETE on the table), so the log is trustworthy evidence of what an agent did.
"""

from __future__ import annotations

import json
from typing import Any

from agentworld.servers import ToolContext
from agentworld.servers import schema as s

from ..builder import EnvBuilder, Probe
from ._base import free_names, page, paging_props, rows

__all__ = ["AuditLog", "TABLE"]
_ID_AUDIT_EVENT = s.identifier("Id of the audit event, as list_audit_events returns it.")

TABLE = "audit_events"
_TOOLS = ("list_audit_events", "get_audit_event")
_SNAPSHOT = {"type": ["object", "null"],
             "description": "The row as it was right after the change (null once deleted)."}


class AuditLog:
    name = "audit_log"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, (TABLE,))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        b.schema.append(
            f"CREATE TABLE {TABLE} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    occurred_at TEXT NOT NULL,\n"
            f"    table_name TEXT NOT NULL CHECK (length(table_name) <= 64),\n"
            f"    row_id TEXT NOT NULL CHECK (length(row_id) <= 64),\n"
            f"    action TEXT NOT NULL CHECK (length(action) BETWEEN 1 AND 40),\n"
            f"    snapshot TEXT CHECK (snapshot IS NULL OR json_valid(snapshot))\n);\n"
            f"CREATE INDEX ix_{TABLE}_row ON {TABLE}(table_name, row_id);\n"
            f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
            f"BEGIN SELECT RAISE(ABORT, 'audit events are immutable'); END;\n"
            f"CREATE TRIGGER {TABLE}_no_delete BEFORE DELETE ON {TABLE} "
            f"BEGIN SELECT RAISE(ABORT, 'audit events are immutable'); END;")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        entity_tables = [tables[e.name] for e in b.archetype.entities]
        b.seeders.append(lambda conn, rng: _seed(conn, rng, entity_tables))
        b.on_mutation.append(_record)
        b.bookkeeping = (*b.bookkeeping, TABLE)
        _add_tools(b)


def _snapshot(row: dict[str, Any] | None) -> str | None:
    return None if row is None else json.dumps(row, sort_keys=True, separators=(",", ":"))


def _record(ctx, table: str, row_id: str, action: str) -> None:
    if table == TABLE:
        return
    row = ctx.one(f"SELECT * FROM {table} WHERE id = ?", (row_id,))
    ctx.insert(TABLE, {"id": ctx.ids.new("aud"), "occurred_at": ctx.clock.iso(),
                       "table_name": table, "row_id": row_id, "action": action,
                       "snapshot": _snapshot(row)})


def _seed(conn, rng, entity_tables: list[str]) -> None:
    events = []
    for table in entity_tables:
        found = rows(conn, f"SELECT * FROM {table} ORDER BY id")
        for row in rng.sample(found, min(len(found), 25)):
            events.append((row["created_at"], table, row["id"], "create", _snapshot(row)))
            if row["updated_at"] > row["created_at"]:
                events.append((row["updated_at"], table, row["id"], "update", _snapshot(row)))
    events.sort()
    conn.executemany(f"INSERT INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?)",
                     [(f"aud_{i + 1:06d}", *e) for i, e in enumerate(events)])


def _out(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "snapshot": None if row["snapshot"] is None else json.loads(row["snapshot"])}


_EVENT = s.obj({"id": s.string("The event id."), "occurred_at": s.string(),
                "table_name": s.string("The table of the changed row."),
                "row_id": s.string("The id of the changed row."),
                "action": s.string("create, update, delete, or the lifecycle move made."),
                "snapshot": _SNAPSHOT})


def _add_tools(b: EnvBuilder) -> None:
    def list_audit_events(ctx: ToolContext, table_name: str | None = None,
                          row_id: str | None = None, action: str | None = None,
                          since: str | None = None, limit: int = 20,
                          cursor: str | None = None) -> dict[str, Any]:
        where, params = [], []
        for column, value in (("table_name", table_name), ("row_id", row_id),
                              ("action", action)):
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        if since is not None:
            where.append("occurred_at >= ?")
            params.append(since)
        return page(ctx, select=TABLE, where=where, params=params,
                    order="occurred_at DESC, id DESC", limit=limit, cursor=cursor,
                    key="events", out=_out)

    b.tools.tool(
        name="list_audit_events", read_only=True,
        description="List the audit trail of changes, newest first, paged; filter by table, by "
                    "row id, by action and by time. Events are recorded automatically and can "
                    "never be edited or deleted.",
        input=s.obj({"table_name": s.string("Only changes to this table.", max_length=64),
                     "row_id": s.string("Only changes to this row.", max_length=64),
                     "action": s.string("Only this action (e.g. create, update).",
                                        max_length=40),
                     "since": s.datetime("Only changes at or after this time (UTC)."),
                     **paging_props()}, required=[]),
        output=s.page_of(_EVENT, "events"))(list_audit_events)

    def get_audit_event(ctx: ToolContext, id: str) -> dict[str, Any]:
        return {"event": _out(ctx.require(TABLE, id, kind="audit event"))}

    b.tools.tool(name="get_audit_event", read_only=True,
                 description="Get one audit event by id, with the row's snapshot.",
                 input=s.obj({"id": _ID_AUDIT_EVENT}),
                 output=s.obj({"event": _EVENT}))(get_audit_event)

    def some(db):
        return rows(db, f"SELECT * FROM {TABLE} ORDER BY id LIMIT 3")

    b.probes["list_audit_events"] = Probe(
        lambda db: [{}] + [{"table_name": r["table_name"], "row_id": r["row_id"]}
                           for r in some(db)],
        lambda db: [{"cursor": "page-two"}], "VALIDATION_ERROR")
    b.probes["get_audit_event"] = Probe(lambda db: [{"id": r["id"]} for r in some(db)],
                                        lambda db: [{"id": "aud_0000000000"}], "NOT_FOUND")
