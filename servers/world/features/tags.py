"""Tags: short labels on target rows, unique per row regardless of case, at most ten per row."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError
from agentworld.servers import schema as s
from agentworld.servers.manifest import Rule

from ..builder import EnvBuilder, Probe
from ._base import (
    Target,
    created_of,
    free_names,
    page,
    paging_props,
    past_stamp,
    rows,
    target,
    target_ids,
)
from .vocab import domain_vocab

__all__ = ["Tags", "MAX_TAGS"]

MAX_TAGS = 10
_TOOLS = ("tag_item", "untag_item", "list_tags", "find_tagged")
_TAG = s.string("The tag: letters, digits, spaces, '-' or '_', up to 40 characters.",
                max_length=40, min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9 _-]*$")


def _table(t: Target) -> str:
    return f"{t.name}_tags"


class Tags:
    name = "tags"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, ("{t}_tags",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    tag TEXT NOT NULL CHECK (length(tag) BETWEEN 1 AND 40),\n"
            f"    created_at TEXT NOT NULL,\n"
            f"    UNIQUE ({t.key}, tag COLLATE NOCASE)\n);\n"
            f"CREATE INDEX ix_{_table(t)}_tag ON {_table(t)}(tag COLLATE NOCASE);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        _add_tools(b, t)
        _add_probes(b, t)
        _add_rules(b, t)


def _seed(conn, rng, t: Target) -> None:
    ids = target_ids(conn, t)
    if not ids:
        return
    out, born = [], created_of(conn, t)
    chosen = rng.sample(ids, min(len(ids), 50))
    for n, target_id in enumerate(chosen):
        # The first row carries the full ten tags, so the limit has something to refuse.
        count = MAX_TAGS if n == 0 else rng.randint(1, 3)
        vocab = domain_vocab(t.archetype).tags
        for tag in rng.sample(vocab, count):
            out.append((f"tag_{len(out) + 1:06d}", target_id, tag,
                        past_stamp(rng, 1, 200, born[target_id])))
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?)", out)


def _tag_schema(t: Target) -> dict[str, Any]:
    return s.obj({"id": s.string("The tag id."), t.key: s.string(f"Id of the {t.noun}."),
                  "tag": s.string(max_length=40), "created_at": s.string()})


def _add_tools(b: EnvBuilder, t: Target) -> None:
    table = _table(t)

    def tag_item(ctx: ToolContext, tag: str, **ref: str) -> dict[str, Any]:
        row = t.require(ctx, ref[t.key])
        tag = tag.strip()
        same = ctx.one(f"SELECT tag FROM {table} WHERE {t.key} = ? AND tag = ? COLLATE NOCASE",
                       (row["id"], tag))
        if same:
            raise ToolError(ErrorCode.CONFLICT, f"{t.noun} {row['id']} is already tagged "
                            f"{same['tag']!r}", tag=same["tag"])
        count = ctx.scalar(f"SELECT COUNT(*) FROM {table} WHERE {t.key} = ?", (row["id"],))
        if count >= MAX_TAGS:
            raise ToolError(ErrorCode.LIMIT_EXCEEDED, f"{t.noun} {row['id']} already has "
                            f"{MAX_TAGS} tags; remove one first", limit=MAX_TAGS)
        new = {"id": ctx.ids.new("tag"), t.key: row["id"], "tag": tag,
               "created_at": ctx.clock.iso()}
        ctx.insert(table, new)
        b.mutated(ctx, table, new["id"], "create")
        return {"tag": new, "tag_count": count + 1}

    b.tools.tool(
        name="tag_item",
        description=f"Tag {t.a_noun}. Tags are unique per {t.noun} ignoring case, and "
                    f"{t.a_noun} has at most {MAX_TAGS} tags.",
        input=s.obj({t.key: t.key_schema(), "tag": _TAG}),
        output=s.obj({"tag": _tag_schema(t),
                      "tag_count": s.integer(f"Tags on the {t.noun} now.", minimum=1)}))(tag_item)

    def untag_item(ctx: ToolContext, tag: str, **ref: str) -> dict[str, Any]:
        row = t.require(ctx, ref[t.key])
        found = ctx.one(f"SELECT * FROM {table} WHERE {t.key} = ? AND tag = ? COLLATE NOCASE",
                        (row["id"], tag.strip()))
        if found is None:
            raise ToolError(ErrorCode.NOT_FOUND, f"{t.noun} {row['id']} has no tag {tag!r}",
                            tag=tag)
        ctx.db.execute(f"DELETE FROM {table} WHERE id = ?", (found["id"],))
        b.mutated(ctx, table, found["id"], "delete")
        return {"removed": found["tag"], t.key: row["id"]}

    b.tools.tool(
        name="untag_item", destructive=True,
        description=f"Remove a tag from {t.a_noun} (the tag is matched ignoring case).",
        input=s.obj({t.key: t.key_schema(), "tag": _TAG}),
        output=s.obj({"removed": s.string("The tag removed, as it was spelled."),
                      t.key: s.string()}))(untag_item)

    def list_tags(ctx: ToolContext, **ref: str) -> dict[str, Any]:
        row = t.require(ctx, ref[t.key])
        tags = ctx.all(f"SELECT tag FROM {table} WHERE {t.key} = ? ORDER BY tag COLLATE NOCASE",
                       (row["id"],))
        return {t.key: row["id"], "tags": [r["tag"] for r in tags]}

    b.tools.tool(
        name="list_tags", read_only=True,
        description=f"List the tags of {t.a_noun}, alphabetically.",
        input=s.obj({t.key: t.key_schema()}),
        output=s.obj({t.key: s.string(), "tags": s.array(s.string(max_length=40),
                                                         max_items=MAX_TAGS)}))(list_tags)

    def find_tagged(ctx: ToolContext, tag: str, limit: int = 20,
                    cursor: str | None = None) -> dict[str, Any]:
        return page(ctx, select=table, where=["tag = ? COLLATE NOCASE"], params=[tag.strip()],
                    order=f"created_at DESC, {t.key}", limit=limit, cursor=cursor,
                    key="tagged", out=lambda r: {t.key: r[t.key], "tag": r["tag"],
                                                 "tagged_at": r["created_at"]})

    b.tools.tool(
        name="find_tagged", read_only=True,
        description=f"Find the {t.plural} carrying a tag (ignoring case), most recently "
                    "tagged first, paged.",
        input=s.obj({"tag": _TAG, **paging_props()}, required=["tag"]),
        output=s.page_of(s.obj({t.key: s.string(), "tag": s.string(max_length=40),
                                "tagged_at": s.string()}), "tagged"))(find_tagged)


def _add_probes(b: EnvBuilder, t: Target) -> None:
    table = _table(t)

    def fresh(db):
        some = rows(db, f"SELECT id FROM {t.table} x WHERE (SELECT COUNT(*) FROM {table} g "
                        f"WHERE g.{t.key} = x.id) < {MAX_TAGS} ORDER BY id LIMIT 3")
        return [{t.key: r["id"], "tag": "Checked by supervisor"} for r in some]

    def tagged(db):
        return rows(db, f"SELECT {t.key}, tag FROM {table} ORDER BY id LIMIT 3")

    b.probes["tag_item"] = Probe(fresh, lambda db: [{t.key: t.missing, "tag": "vip"}],
                                 "NOT_FOUND", changes=table)
    b.probes["untag_item"] = Probe(
        tagged, lambda db: [{t.key: r[t.key], "tag": "never-used-tag"} for r in tagged(db)],
        "NOT_FOUND", changes=table)
    b.probes["list_tags"] = Probe(lambda db: [{t.key: r[t.key]} for r in tagged(db)],
                                  lambda db: [{t.key: t.missing}], "NOT_FOUND")
    b.probes["find_tagged"] = Probe(lambda db: [{"tag": r["tag"]} for r in tagged(db)],
                                    lambda db: [{"tag": "vip", "cursor": "page-two"}],
                                    "VALIDATION_ERROR")


def _add_rules(b: EnvBuilder, t: Target) -> None:
    table = _table(t)

    def same_tag(db):
        some = rows(db, f"SELECT {t.key}, tag FROM {table} ORDER BY id LIMIT 3")
        return [("tag_item", {t.key: r[t.key], "tag": r["tag"].upper()}) for r in some]

    b.add_rule(Rule("tag-unique", f"{t.a_noun.capitalize()} carries each tag once, ignoring case.",
                    ("tag_item",), "CONFLICT"), same_tag)

    def full(db):
        some = rows(db, f"SELECT {t.key} FROM {table} GROUP BY {t.key} HAVING COUNT(*) >= "
                        f"{MAX_TAGS} ORDER BY {t.key} LIMIT 3")
        return [("tag_item", {t.key: r[t.key], "tag": "One more tag"}) for r in some]

    b.add_rule(Rule("tag-limit", f"{t.a_noun.capitalize()} has at most {MAX_TAGS} tags.",
                    ("tag_item",),
                    "LIMIT_EXCEEDED"), full)
