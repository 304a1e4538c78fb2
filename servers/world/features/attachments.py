"""Attachments: files filed against a target row (the metadata; the bytes live elsewhere)."""

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
from .vocab import content_type, domain_vocab

__all__ = ["Attachments", "MAX_BYTES", "CONTENT_TYPES"]
_ID_ATTACHMENT = s.identifier("Id of the attachment, as list_attachments returns it.")

MAX_BYTES = 25 * 1024 * 1024
CONTENT_TYPES = ("application/pdf", "image/jpeg", "image/png", "text/plain", "text/csv",
                 "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                 "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
_TOOLS = ("attach_file", "list_attachments", "remove_attachment")


def _table(t: Target) -> str:
    return f"{t.name}_attachments"


class Attachments:
    name = "attachments"
    sources: frozenset[str] = frozenset()

    def applies(self, archetype) -> bool:
        return free_names(archetype, _TOOLS, ("{t}_attachments",))

    def extend_schema(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        types = ", ".join(f"'{c}'" for c in CONTENT_TYPES)
        b.schema.append(
            f"CREATE TABLE {_table(t)} (\n"
            f"    id TEXT PRIMARY KEY,\n"
            f"    {t.key} TEXT NOT NULL REFERENCES {t.table}(id),\n"
            f"    filename TEXT NOT NULL CHECK (length(filename) BETWEEN 1 AND 200),\n"
            f"    content_type TEXT NOT NULL CHECK (content_type IN ({types})),\n"
            f"    size_bytes INTEGER NOT NULL CHECK (size_bytes BETWEEN 1 AND {MAX_BYTES}),\n"
            f"    {t.person_column('uploaded_by')},\n"
            f"    created_at TEXT NOT NULL,\n"
            f"    UNIQUE ({t.key}, filename COLLATE NOCASE)\n);")

    def extend(self, b: EnvBuilder, tables: dict[str, str]) -> None:
        t = target(b.archetype, tables)
        b.seeders.append(lambda conn, rng: _seed(conn, rng, t))
        _add_tools(b, t)
        _add_rules(b, t)


def _seed(conn, rng, t: Target) -> None:
    people, ids = seed_people(conn, t, rng, 20), target_ids(conn, t)
    if not people or not ids:
        return
    out, born, peers = [], created_of(conn, t), group_peers(conn, t)
    files = [(name, content_type(name)) for name in domain_vocab(t.archetype).attachments]
    for target_id in rng.sample(ids, min(len(ids), 40)):
        for filename, media in rng.sample(files, rng.randint(1, min(3, len(files)))):
            size = rng.randint(2_000, 900_000) if media.startswith("text") else \
                rng.randint(40_000, 8_000_000)
            who = person_for(rng, people, peers(target_id))
            out.append((f"att_{len(out) + 1:06d}", target_id, filename, media, size,
                        who, past_stamp(rng, 1, 150, after_all(born, target_id, who))))
    conn.executemany(f"INSERT INTO {_table(t)} VALUES (?, ?, ?, ?, ?, ?, ?)", out)


def _schema(t: Target) -> dict[str, Any]:
    by = t.person_arg("uploaded_by")
    return s.obj({"id": s.string("The attachment id."), t.key: s.string(),
                  "filename": s.string(), "content_type": s.enum(CONTENT_TYPES),
                  "size_bytes": s.integer(minimum=1, maximum=MAX_BYTES),
                  by: t.person_out("uploaded_by"), "created_at": s.string()})


def _add_tools(b: EnvBuilder, t: Target) -> None:
    table, by = _table(t), t.person_arg("uploaded_by")

    def attach_file(ctx: ToolContext, filename: str, content_type: str, size_bytes: int,
                    **ref: str) -> dict[str, Any]:
        row = t.require(ctx, ref[t.key])
        t.check_person(ctx, ref[by])
        if size_bytes > MAX_BYTES:
            raise ToolError(ErrorCode.VALIDATION_ERROR,
                            f"{filename} is {size_bytes / 1024 / 1024:.1f} MB; attachments are "
                            "limited to 25 MB", max_bytes=MAX_BYTES)
        filename = filename.strip()
        if ctx.one(f"SELECT id FROM {table} WHERE {t.key} = ? AND filename = ? COLLATE NOCASE",
                   (row["id"], filename)):
            raise ToolError(ErrorCode.CONFLICT, f"{t.noun} {row['id']} already has a file named "
                            f"{filename!r}; rename it or remove the old one", filename=filename)
        new = {"id": ctx.ids.new("att"), t.key: row["id"], "filename": filename,
               "content_type": content_type, "size_bytes": size_bytes, by: ref[by],
               "created_at": ctx.clock.iso()}
        ctx.insert(table, new)
        b.mutated(ctx, table, new["id"], "create")
        return {"attachment": new}

    b.tools.tool(
        name="attach_file",
        description=f"Attach a file to {t.a_noun}: at most 25 MB (26214400 bytes), of an allowed "
                    f"content type, and no two files of one {t.noun} may share a filename "
                    "(ignoring case).",
        input=s.obj({t.key: t.key_schema(),
                     "filename": s.string("The file name, with its extension.", max_length=200,
                                          min_length=1, pattern=r"^[^/\\]+$"),
                     "content_type": s.enum(CONTENT_TYPES, "The file's MIME type."),
                     "size_bytes": s.integer("The file size in bytes.", minimum=1),
                     by: t.person_schema("uploads the file")}),
        output=s.obj({"attachment": _schema(t)}))(attach_file)

    def list_attachments(ctx: ToolContext, limit: int = 20, cursor: str | None = None,
                         **ref: str) -> dict[str, Any]:
        t.require(ctx, ref[t.key])
        return page(ctx, select=table, where=[f"{t.key} = ?"], params=[ref[t.key]],
                    order="created_at DESC, id", limit=limit, cursor=cursor, key="attachments")

    b.tools.tool(
        name="list_attachments", read_only=True,
        description=f"List the files attached to {t.a_noun}, newest first, paged.",
        input=s.obj({t.key: t.key_schema(), **paging_props()}, required=[t.key]),
        output=s.page_of(_schema(t), "attachments"))(list_attachments)

    def remove_attachment(ctx: ToolContext, id: str) -> dict[str, Any]:
        found = ctx.require(table, id, kind="attachment")
        ctx.db.execute(f"DELETE FROM {table} WHERE id = ?", (id,))
        b.mutated(ctx, table, id, "delete")
        return {"removed": found["id"], "filename": found["filename"]}

    b.tools.tool(
        name="remove_attachment", destructive=True,
        description=f"Remove a file from {t.a_noun}.",
        input=s.obj({"id": _ID_ATTACHMENT}),
        output=s.obj({"removed": s.string("The attachment id."),
                      "filename": s.string()}))(remove_attachment)

    def existing(db):
        return rows(db, f"SELECT * FROM {table} ORDER BY id LIMIT 3")

    b.probes["attach_file"] = Probe(
        lambda db: [{t.key: r[t.key], "filename": "receipt-2026-03.pdf",
                     "content_type": "application/pdf", "size_bytes": 184_320, by: r[by]}
                    for r in existing(db)],
        lambda db: [{t.key: t.missing, "filename": "receipt.pdf",
                     "content_type": "application/pdf", "size_bytes": 1000, by: r[by]}
                    for r in existing(db)], "NOT_FOUND", changes=table)
    b.probes["list_attachments"] = Probe(lambda db: [{t.key: r[t.key]} for r in existing(db)],
                                         lambda db: [{t.key: t.missing}], "NOT_FOUND")
    b.probes["remove_attachment"] = Probe(lambda db: [{"id": r["id"]} for r in existing(db)],
                                          lambda db: [{"id": "att_0000000000"}], "NOT_FOUND",
                                          changes=table)


def _add_rules(b: EnvBuilder, t: Target) -> None:
    table, by = _table(t), t.person_arg("uploaded_by")

    def too_big(db):
        return [("attach_file", {t.key: r[t.key], "filename": "scan-archive.pdf",
                                 "content_type": "application/pdf",
                                 "size_bytes": MAX_BYTES + 1, by: r[by]})
                for r in rows(db, f"SELECT * FROM {table} ORDER BY id LIMIT 3")]

    b.add_rule(Rule("attachment-file-limits", "An attachment is at most 25 MB and of an allowed "
                    "content type (PDF, JPEG, PNG, plain text, CSV, Word or Excel).",
                    ("attach_file",), "VALIDATION_ERROR"), too_big)

    def same_name(db):
        return [("attach_file", {t.key: r[t.key], "filename": r["filename"].upper(),
                                 "content_type": r["content_type"], "size_bytes": 5_000,
                                 by: r[by]})
                for r in rows(db, f"SELECT * FROM {table} ORDER BY id LIMIT 3")]

    b.add_rule(Rule("attachment-unique-filename", f"No two files attached to one {t.noun} share "
                    "a filename, ignoring case.", ("attach_file",), "CONFLICT"), same_name)
