"""Notifications: messages raised when target rows change, read by the person they concern.

They are never created by a tool: an ``on_mutation`` hook writes one whenever a target row is
created, edited or moved along its lifecycle, and whenever a feature files something new against
it (a comment, a payment, an attachment).
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ..describe import a_an
from ._base import (
    Target,
    free_names,
    later,
    page,
    paging_props,
    past_stamp,
    rows,
    target,
    words,
)

__all__ = ["Notifications", "DESK"]
_ID_NOTIFICATION = s.identifier("Id of the notification, as list_notifications returns it.")

DESK = "operations-desk"  # the recipient when the target names no person
KINDS = ("created", "updated", "status_changed", "activity")
_TOOLS = ("list_notifications", "mark_notification_read")


def _table(t: Target) -> str:
    return f"{t.name}_notifications"


class Notifications:
    name = "notifications"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, ("{t}_notifications",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        kinds = ", ".join(f"'{k}'" for k in KINDS)
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    recipient TEXT NOT NULL CHECK (length(recipient) BETWEEN 1 AND 120),\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    kind TEXT NOT NULL CHECK (kind IN ({kinds})),\n"
            f"    message TEXT NOT NULL CHECK (length(message) <= 500),\n"
            f"    read_at TEXT,\n"
            f"    created_at TEXT NOT NULL,\n"
            f"    CHECK (read_at IS NULL OR read_at >= created_at)\n);\n"
            f"CREATE INDEX ix_{_table(t)}_recipient ON {_table(t)}(recipient, read_at);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        b.on_mutation.append(lambda ctx, table, row_id, action:
                             _notify(ctx, t, table, row_id, action))
        _add_tools(b, t)
        b.add_rule(Rule("notification-read-once", "A notification is marked read only once.",
                        ("mark_notification_read",), "CONFLICT"),
                   lambda db: [("mark_notification_read", {"id": r["id"]}) for r in rows(
                       db, f"SELECT id FROM {_table(t)} WHERE read_at IS NOT NULL "
                           "ORDER BY id LIMIT 3")])


def _recipient(t: Target, row: dict[str, Any]) -> str:
    return (row.get(t.owner_field) if t.owner_field else None) or DESK


def _message(t: Target, row: dict[str, Any], action: str) -> tuple[str, str]:
    name = f"{t.noun.capitalize()} {row[t.entity.label]}"
    if action == "create":
        return "created", f"{name} was created."
    if action == "update":
        return "updated", f"{name} was updated."
    return "status_changed", f"{name} is now {words(str(row.get('status')))}."


def _notify(ctx, t: Target, table: str, row_id: str, action: str) -> None:
    if table == _table(t):
        return
    if table == t.table:
        row = ctx.one(f"SELECT * FROM {t.table} WHERE id = ?", (row_id,))
        kind, message = _message(t, row, action)
    else:
        if action != "create":
            return
        cols = {r["name"] for r in ctx.all(f"SELECT name FROM pragma_table_info('{table}')")}
        if t.key not in cols:
            return
        target_id = ctx.scalar(f"SELECT {t.key} FROM {table} WHERE id = ?", (row_id,))
        row = ctx.one(f"SELECT * FROM {t.table} WHERE id = ?", (target_id,))
        thing = words(table.removeprefix(f"{t.name}_")).rstrip("s")
        kind, message = "activity", (f"New {thing} on {t.noun} {row[t.entity.label]}.")
    ctx.insert(_table(t), {"id": ctx.ids.new("ntf"), "recipient": _recipient(t, row),
                           t.key: row["id"], "kind": kind, "message": message[:500],
                           "read_at": None, "created_at": ctx.clock.iso()})


def _seed(conn, rng, t: Target) -> None:
    targets = rows(conn, f"SELECT * FROM {t.table} ORDER BY id")
    if not targets:
        return
    out = []
    for row in rng.sample(targets, min(len(targets), 80)):
        action = rng.choice(("create", "update", "move")) if t.entity.lifecycle else \
            rng.choice(("create", "update"))
        kind, message = _message(t, row, action)
        created = past_stamp(rng, 1, 60, row["created_at"])
        read = later(created, rng.randint(5, 600)) if rng.random() < 0.6 else None
        out.append((f"ntf_{len(out) + 1:06d}", _recipient(t, row), row["id"], kind, message,
                    read, created))
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?, ?, ?, ?)", out)


def _schema(t: Target) -> dict[str, Any]:
    return s.obj({"id": s.string("The notification id."),
                  "recipient": s.string(f"Who it is for: {a_an(_who(t))}."),
                  t.key: s.string(f"The {t.noun} it is about."), "kind": s.enum(KINDS),
                  "message": s.string(max_length=500), "read_at": s.nullable(s.string()),
                  "created_at": s.string()})


def _who(t: Target) -> str:
    if t.owner_field:
        return f"{words(t.people.name)} id, or '{DESK}'"
    return f"team inbox ('{DESK}')"


def _add_tools(b: EnvBuilder, t: Target) -> None:
    table = _table(t)

    def list_notifications(ctx: ToolContext, recipient: str | None = None,
                           unread_only: bool = False, limit: int = 20,
                           cursor: str | None = None, **ref: str) -> dict[str, Any]:
        where, params = [], []
        if recipient is not None:
            where.append("recipient = ?")
            params.append(recipient)
        if ref.get(t.key) is not None:
            where.append(f"{t.key} = ?")
            params.append(ref[t.key])
        if unread_only:
            where.append("read_at IS NULL")
        return page(ctx, select=table, where=where, params=params, order="created_at DESC, id",
                    limit=limit, cursor=cursor, key="notifications")

    b.tools.tool(
        name="list_notifications", read_only=True,
        description=f"List notifications about {t.plural} (raised "
                    f"automatically when {t.a_noun} is created, edited or changes status, or "
                    "when something is filed against it), newest first, paged; filter by "
                    f"recipient, by {t.noun} or to unread ones.",
        input=s.obj({"recipient": s.string(f"Only those for this recipient: {a_an(_who(t))}.",
                                           max_length=120),
                     t.key: s.identifier(f"Only those about this {t.noun}."),
                     "unread_only": s.boolean("Only notifications not yet read."),
                     **paging_props()}, required=[]),
        output=s.page_of(_schema(t), "notifications"))(list_notifications)

    def mark_notification_read(ctx: ToolContext, id: str) -> dict[str, Any]:
        found = ctx.require(table, id, kind="notification")
        if found["read_at"] is not None:
            raise ToolError(ErrorCode.CONFLICT, f"notification {id} was already read at "
                            f"{found['read_at']}", read_at=found["read_at"])
        found["read_at"] = ctx.clock.iso()
        ctx.update(table, id, {"read_at": found["read_at"]})
        b.mutated(ctx, table, id, "update")
        return {"notification": found}

    b.tools.tool(
        name="mark_notification_read",
        description="Mark an unread notification as read; one already read is refused.",
        input=s.obj({"id": _ID_NOTIFICATION}),
        output=s.obj({"notification": _schema(t)}))(mark_notification_read)

    b.probes["list_notifications"] = Probe(lambda db: [{}, {"unread_only": True}],
                                           lambda db: [{"cursor": "page-two"}],
                                           "VALIDATION_ERROR")
    b.probes["mark_notification_read"] = Probe(
        lambda db: [{"id": r["id"]} for r in rows(
            db, f"SELECT id FROM {table} WHERE read_at IS NULL ORDER BY id LIMIT 3")],
        lambda db: [{"id": "ntf_0000000000"}], "NOT_FOUND", changes=table)
