"""Comments: a discussion thread on each target row, written by people of the service."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import (
    Target,
    after_all,
    created_of,
    editable,
    free_names,
    group_peers,
    page,
    paging_props,
    past_stamp,
    person_for,
    rows,
    seed_people,
    target,
    target_ids,
)
from .vocab import domain_vocab

__all__ = ["Comments"]
_ID_COMMENT = s.identifier("Id of the comment, as list_comments returns it.")

_TOOLS = ("add_comment", "list_comments", "delete_comment")


def _table(t: Target) -> str:
    return f"{t.name}_comments"


class Comments:
    name = "comments"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, ("{t}_comments",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    {t.person_column('author')},\n"
            f"    body TEXT NOT NULL CHECK (length(trim(body)) > 0 AND length(body) <= 4000),\n"
            f"    internal INTEGER NOT NULL CHECK (internal IN (0, 1)),\n"
            f"    created_at TEXT NOT NULL\n);\n"
            f"CREATE INDEX ix_{_table(t)}_target ON {_table(t)}({t.key});")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        _add_tools(b, t)
        _add_rules(b, t)


def _seed(conn, rng, t: Target) -> None:
    authors = seed_people(conn, t, rng, 30)
    ids = target_ids(conn, t)
    if not authors or not ids:
        return
    out, born, phrases = [], created_of(conn, t), domain_vocab(t.archetype).comments
    peers = group_peers(conn, t)
    for target_id in rng.sample(ids, min(len(ids), 40)):
        for _ in range(rng.randint(1, 3)):
            who = person_for(rng, authors, peers(target_id))
            out.append((f"cmt_{len(out) + 1:06d}", target_id, who, rng.choice(phrases),
                        int(rng.random() < 0.3),
                        past_stamp(rng, 1, 90, after_all(born, target_id, who))))
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?, ?, ?)", out)


def _schema(t: Target) -> dict[str, Any]:
    return s.obj({"id": s.string("The comment id."), t.key: s.string(f"Id of the {t.noun}."),
                  t.person_arg("author"): t.person_out("author"),
                  "body": s.text("The comment text."),
                  "internal": s.boolean("Staff-only note, hidden from the customer."),
                  "created_at": s.string()})


def _out(row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "internal": bool(row["internal"])}


def _add_tools(b: EnvBuilder, t: Target) -> None:
    table, author = _table(t), t.person_arg("author")

    def add_comment(ctx: ToolContext, body: str, internal: bool = False,
                    **ref: str) -> dict[str, Any]:
        row = t.require(ctx, ref[t.key])
        t.check_person(ctx, ref[author])
        if not body.strip():
            raise ToolError(ErrorCode.VALIDATION_ERROR, "a comment body may not be blank")
        if row.get("status") in t.frozen:
            raise ToolError(ErrorCode.PRECONDITION_FAILED,
                            f"{t.noun} {row['id']} is {row['status']}: its thread is closed",
                            status=row["status"])
        comment = {"id": ctx.ids.new("cmt"), t.key: row["id"], author: ref[author],
                   "body": body.strip(), "internal": int(internal),
                   "created_at": ctx.clock.iso()}
        ctx.insert(table, comment)
        b.mutated(ctx, table, comment["id"], "create")
        return {"comment": _out(comment)}

    closed = f" Refused once the {t.noun} is {' or '.join(t.frozen)}." if t.frozen else ""
    b.tools.tool(
        name="add_comment",
        description=f"Add a comment to {t.a_noun}'s thread; internal comments are staff-only "
                    f"notes. The body may not be blank.{closed}",
        input=s.obj({t.key: t.key_schema(), author: t.person_schema("writes the comment"),
                     "body": s.string("The comment text (up to 4000 characters).",
                                      max_length=4000, min_length=1),
                     "internal": s.boolean("Staff-only note (default false).")},
                    required=[t.key, author, "body"]),
        output=s.obj({"comment": _schema(t)}))(add_comment)

    def list_comments(ctx: ToolContext, limit: int = 20, cursor: str | None = None,
                      **ref: str) -> dict[str, Any]:
        t.require(ctx, ref[t.key])
        return page(ctx, select=table, where=[f"{t.key} = ?"], params=[ref[t.key]],
                    order="created_at, id", limit=limit, cursor=cursor, key="comments", out=_out)

    b.tools.tool(
        name="list_comments", read_only=True,
        description=f"List the comments on {t.a_noun}, oldest first, paged.",
        input=s.obj({t.key: t.key_schema(), **paging_props()}, required=[t.key]),
        output=s.page_of(_schema(t), "comments"))(list_comments)

    def delete_comment(ctx: ToolContext, id: str, **who: str) -> dict[str, Any]:
        comment = ctx.require(table, id, kind="comment")
        if comment[author] != who[author]:
            raise ToolError(ErrorCode.FORBIDDEN, "only the author of a comment can delete it")
        ctx.db.execute(f"DELETE FROM {table} WHERE id = ?", (id,))
        b.mutated(ctx, table, id, "delete")
        return {"deleted": id}

    b.tools.tool(
        name="delete_comment", destructive=True,
        description=f"Delete a comment from {t.a_noun}'s thread. Only its author can.",
        input=s.obj({"id": _ID_COMMENT,
                     author: t.person_schema("asks for the deletion")}),
        output=s.obj({"deleted": s.string("The id of the deleted comment.")}))(delete_comment)

    def ok_targets(db) -> list[str]:
        return [r["id"] for r in rows(db, f"SELECT id FROM {t.table} WHERE {editable(t)} "
                                          "ORDER BY id LIMIT 3")]

    def authors(db) -> list[str]:
        return [r[author] for r in rows(db, f"SELECT {author} FROM {table} ORDER BY id LIMIT 3")]

    b.probes["add_comment"] = Probe(
        lambda db: [{t.key: i, author: a, "body": "Guest called to confirm the arrival time."}
                    for i, a in zip(ok_targets(db), authors(db), strict=False)],
        lambda db: [{t.key: t.missing, author: a, "body": "Any news?"} for a in authors(db)],
        "NOT_FOUND", changes=table)
    b.probes["list_comments"] = Probe(
        lambda db: [{t.key: r[t.key]} for r in rows(db, f"SELECT {t.key} FROM {table} "
                                                        "ORDER BY id LIMIT 3")],
        lambda db: [{t.key: t.missing}], "NOT_FOUND")
    b.probes["delete_comment"] = Probe(
        lambda db: [{"id": r["id"], author: r[author]}
                    for r in rows(db, f"SELECT * FROM {table} ORDER BY id LIMIT 3")],
        lambda db: [{"id": "cmt_0000000000", author: a} for a in authors(db)],
        "NOT_FOUND", changes=table)


def _add_rules(b: EnvBuilder, t: Target) -> None:
    table, author = _table(t), t.person_arg("author")

    def blank(db):
        some = rows(db, f"SELECT {t.key}, {author} FROM {table} ORDER BY id LIMIT 3")
        return [("add_comment", {t.key: r[t.key], author: r[author], "body": "   \n "})
                for r in some]

    b.add_rule(Rule("comment-not-blank", "A comment's body may not be blank.",
                    ("add_comment",), "VALIDATION_ERROR"), blank)

    def other_author(db):
        some = rows(db, f"SELECT c.id, c.{author} AS mine, (SELECT x.{author} FROM {table} x "
                        f"WHERE x.{author} <> c.{author} ORDER BY x.id LIMIT 1) AS other "
                        f"FROM {table} c ORDER BY c.id LIMIT 3")
        return [("delete_comment", {"id": r["id"], author: r["other"]})
                for r in some if r["other"]]

    b.add_rule(Rule("comment-delete-own", "Only the author of a comment can delete it.",
                    ("delete_comment",), "FORBIDDEN"), other_author)
    if not t.frozen:
        return

    def frozen(db):
        marks = ", ".join("?" for _ in t.frozen)
        targets = rows(db, f"SELECT id FROM {t.table} WHERE status IN ({marks}) ORDER BY id "
                           "LIMIT 3", t.frozen)
        some = rows(db, f"SELECT {author} FROM {table} ORDER BY id LIMIT 1")
        return [("add_comment", {t.key: r["id"], author: some[0][author],
                                 "body": "Following up on this."}) for r in targets if some]

    b.add_rule(Rule("comment-thread-closed", f"No comments can be added to {t.a_noun} that is "
                    f"{' or '.join(t.frozen)}.", ("add_comment",), "PRECONDITION_FAILED"),
               frozen)
