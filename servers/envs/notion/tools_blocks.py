"""Block tools: read a page's content tree, append, edit and delete blocks."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError
from agentworld.servers import schema as s

from .access import Access
from .common import ACTOR, BLOCK, BLOCK_TYPES, CURSOR, LIMIT, block_out, page_slice, tools

MAX_BLOCKS_PER_APPEND = 100
# Only these block types can hold nested blocks (divider, headings, code... cannot).
CONTAINERS = ("toggle", "bulleted_list_item", "numbered_list_item", "to_do")
LANGUAGES = ("bash", "c", "c++", "css", "docker", "go", "graphql", "html", "java", "javascript",
             "json", "kotlin", "markdown", "plain text", "protobuf", "python", "ruby", "rust",
             "shell", "sql", "swift", "typescript", "yaml")

TEXT = s.string("Plain text content (empty for dividers).", max_length=2000)
CHECKED = s.boolean("to_do blocks only: whether the box is ticked.")
LANGUAGE = s.enum(LANGUAGES, "code blocks only (default 'plain text').")
_FIELDS = {"type": s.enum(BLOCK_TYPES), "text": TEXT, "checked": CHECKED, "language": LANGUAGE}
INNER_SPEC = s.obj(dict(_FIELDS), required=["type"])
BLOCK_SPEC = s.obj({**_FIELDS, "children": s.array(
    INNER_SPEC, "Nested blocks; only toggle, list items and to_do can have them.",
    max_items=1000)}, required=["type"])


def _locate(ctx, acc: Access, parent_id: str) -> tuple[str, dict[str, Any] | None]:
    """(page id, parent block or None) for an id naming either a page or a block."""
    if parent_id in acc.pages:
        return parent_id, None
    block = ctx.one("SELECT * FROM blocks WHERE id = ?", (parent_id,))
    if block is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"no page or block {parent_id!r}", id=parent_id)
    return block["page_id"], block


def _block(ctx, acc: Access, block_id: str, need: str) -> dict[str, Any]:
    block = ctx.one("SELECT * FROM blocks WHERE id = ?", (block_id,))
    if block is None:
        raise ToolError(ErrorCode.NOT_FOUND, f"block {block_id!r} does not exist",
                        kind="block", id=block_id)
    if need == "can_edit":
        acc.editable(block["page_id"])
    else:
        acc.page(block["page_id"], need)
    return block


def _with_children_flag(ctx, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    parents = {r["parent_block_id"] for r in ctx.all(
        "SELECT DISTINCT parent_block_id FROM blocks WHERE parent_block_id IN "
        f"({', '.join('?' for _ in rows)})", [r["id"] for r in rows])} if rows else set()
    return [block_out(r, r["id"] in parents) for r in rows]


def _touch_page(ctx, acc: Access, page_id: str) -> None:
    ctx.update("pages", page_id, {"last_edited_by": acc.actor["id"],
                                  "last_edited_at": ctx.clock.iso()})


@tools.tool(
    description="List the blocks directly inside a page or inside a block, in order. Pass a "
                "page id for the page's top-level content, or a block id (with has_children "
                "true) for its nested blocks. Needs can_view on the page.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "parent_id": s.identifier("A page id or a block id."),
                 "limit": LIMIT, "cursor": CURSOR}, required=["actor_id", "parent_id"]),
    output=s.page_of(BLOCK, "blocks"))
def get_block_children(ctx, actor_id, parent_id, limit=None, cursor=None):
    acc = Access(ctx, actor_id)
    page_id, parent = _locate(ctx, acc, parent_id)
    acc.page(page_id)
    if parent is None:
        rows = ctx.all("SELECT * FROM blocks WHERE page_id = ? AND parent_block_id IS NULL "
                       "ORDER BY position", (page_id,))
    else:
        rows = ctx.all("SELECT * FROM blocks WHERE parent_block_id = ? ORDER BY position",
                       (parent_id,))
    result = page_slice(rows, "blocks", limit, cursor)
    result["blocks"] = _with_children_flag(ctx, result["blocks"])
    return result


def _check_fields(kind: str, text: str, checked: Any, language: Any) -> None:
    if checked is not None and kind != "to_do":
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"'checked' applies only to to_do blocks, not {kind}")
    if language is not None and kind != "code":
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"'language' applies only to code blocks, not {kind}")
    if kind == "divider" and text:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "divider blocks have no text")


def _check_spec(spec: dict[str, Any]) -> None:
    _check_fields(spec["type"], spec.get("text", ""), spec.get("checked"), spec.get("language"))
    if spec.get("children") and spec["type"] not in CONTAINERS:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"{spec['type']} blocks cannot have children; only {list(CONTAINERS)} "
                        "can", type=spec["type"])
    for child in spec.get("children", []):
        _check_spec(child)


def _insert(ctx, actor_id: str, page_id: str, parent_block_id: str | None, position: int,
            spec: dict[str, Any]) -> dict[str, Any]:
    now, kind = ctx.clock.iso(), spec["type"]
    row = {"id": ctx.ids.new("blk"), "page_id": page_id, "parent_block_id": parent_block_id,
           "position": position, "type": kind, "text": spec.get("text", ""),
           "checked": int(spec.get("checked", False)) if kind == "to_do" else None,
           "language": spec.get("language", "plain text") if kind == "code" else None,
           "created_by": actor_id, "created_at": now, "last_edited_by": actor_id,
           "last_edited_at": now}
    ctx.insert("blocks", row)
    for i, child in enumerate(spec.get("children", [])):
        _insert(ctx, actor_id, page_id, row["id"], i, child)
    return block_out(row, bool(spec.get("children")))


def _siblings(parent_block_id: str | None) -> str:
    """WHERE clause for the blocks sharing a parent; bind the parent block id or the page id."""
    if parent_block_id:
        return "WHERE parent_block_id = ?"
    return "WHERE parent_block_id IS NULL AND page_id = ?"


@tools.tool(
    description="Append blocks to a page or inside a block (toggle, list item or to_do only), "
                "at the end or right after `after_block_id` (a sibling). At most 100 blocks per "
                "call, nested children included. Each block may carry one level of `children`. "
                "Needs can_edit; the page must not be archived.",
    input=s.obj({"actor_id": ACTOR, "parent_id": s.identifier("A page id or a block id."),
                 "children": s.array(BLOCK_SPEC, max_items=1000, min_items=1),
                 "after_block_id": s.identifier()},
                required=["actor_id", "parent_id", "children"]),
    output=s.obj({"blocks": s.array(BLOCK, max_items=1000),
                  "created": s.integer("Blocks created, nested ones included.", minimum=1)}))
def append_blocks(ctx, actor_id, parent_id, children, after_block_id=None):
    total = len(children) + sum(len(c.get("children", [])) for c in children)
    if total > MAX_BLOCKS_PER_APPEND:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"{total} blocks given; at most {MAX_BLOCKS_PER_APPEND} may be appended "
                        "in one call", count=total, limit=MAX_BLOCKS_PER_APPEND)
    acc = Access(ctx, actor_id)
    page_id, parent = _locate(ctx, acc, parent_id)
    acc.editable(page_id)
    if parent is not None and parent["type"] not in CONTAINERS:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"a {parent['type']} block cannot have children; only "
                        f"{list(CONTAINERS)} can", type=parent["type"])
    for spec in children:
        _check_spec(spec)
    parent_block_id = parent["id"] if parent else None
    key = parent_block_id or page_id
    start = ctx.scalar(f"SELECT COUNT(*) FROM blocks {_siblings(parent_block_id)}", (key,))
    if after_block_id is not None:
        anchor = ctx.one(f"SELECT position FROM blocks {_siblings(parent_block_id)} AND id = ?",
                         (key, after_block_id))
        if anchor is None:
            raise ToolError(ErrorCode.VALIDATION_ERROR, f"after_block_id {after_block_id!r} is "
                            f"not a direct child of {parent_id!r}")
        start = anchor["position"] + 1
        ctx.db.execute(f"UPDATE blocks SET position = position + ? "
                       f"{_siblings(parent_block_id)} AND position >= ?",
                       (len(children), key, start))
    made = [_insert(ctx, actor_id, page_id, parent_block_id, start + i, spec)
            for i, spec in enumerate(children)]
    _touch_page(ctx, acc, page_id)
    return {"blocks": made, "created": total}


@tools.tool(
    description="Edit a block's text, a to_do's checked state or a code block's language. The "
                "block type cannot change. Needs can_edit; the page must not be archived.",
    input=s.obj({"actor_id": ACTOR, "block_id": s.identifier(), "text": TEXT,
                 "checked": CHECKED, "language": LANGUAGE},
                required=["actor_id", "block_id"]),
    output=s.obj({"block": BLOCK}), idempotent=True)
def update_block(ctx, actor_id, block_id, text=None, checked=None, language=None):
    if text is None and checked is None and language is None:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "give text, checked or language to change")
    acc = Access(ctx, actor_id)
    block = _block(ctx, acc, block_id, "can_edit")
    _check_fields(block["type"], text or "", checked, language)
    values: dict[str, Any] = {"last_edited_by": actor_id, "last_edited_at": ctx.clock.iso()}
    if text is not None:
        values["text"] = text
    if checked is not None:
        values["checked"] = int(checked)
    if language is not None:
        values["language"] = language
    ctx.update("blocks", block_id, values)
    _touch_page(ctx, acc, block["page_id"])
    return {"block": _with_children_flag(
        ctx, [ctx.one("SELECT * FROM blocks WHERE id = ?", (block_id,))])[0]}


@tools.tool(
    description="Delete a block together with its nested blocks and any comment threads on "
                "them. Needs can_edit; the page must not be archived.",
    input=s.obj({"actor_id": ACTOR, "block_id": s.identifier()}),
    output=s.obj({"deleted_block_id": s.string(), "blocks_deleted": s.integer(minimum=1)}),
    destructive=True)
def delete_block(ctx, actor_id, block_id):
    acc = Access(ctx, actor_id)
    block = _block(ctx, acc, block_id, "can_edit")
    count = ctx.scalar(
        "WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL "
        "SELECT b.id FROM blocks b JOIN tree t ON b.parent_block_id = t.id) "
        "SELECT COUNT(*) FROM tree", (block_id,))
    ctx.db.execute("DELETE FROM blocks WHERE id = ?", (block_id,))
    parent_block_id = block["parent_block_id"]
    ctx.db.execute(f"UPDATE blocks SET position = position - 1 {_siblings(parent_block_id)} "
                   "AND position > ?", (parent_block_id or block["page_id"], block["position"]))
    _touch_page(ctx, acc, block["page_id"])
    return {"deleted_block_id": block_id, "blocks_deleted": count}
