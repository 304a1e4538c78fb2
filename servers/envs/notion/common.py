"""Shared pieces of the Notion tools: the toolset, argument and output schemas, paging."""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolError, Toolset
from agentworld.servers import schema as s

from .access import LEVELS

__all__ = ["tools", "ACTOR", "LIMIT", "CURSOR", "PAGE", "BLOCK", "BLOCK_TYPES", "LEVEL",
           "page_slice", "page_out", "block_out", "escape_like", "PROPERTY_VALUE",
           "PROPERTY_MAP"]

tools = Toolset()

ACTOR = s.identifier("Member id (usr_...) acting; their sharing level on the page is enforced.")
LIMIT = s.integer("Page size, 1-100 (default 20).", minimum=1, maximum=100)
CURSOR = s.string("next_cursor from a previous call.", max_length=32)
LEVEL = s.enum(LEVELS)

BLOCK_TYPES = ("paragraph", "heading_1", "heading_2", "heading_3", "bulleted_list_item",
               "numbered_list_item", "to_do", "code", "quote", "divider", "toggle")

# A property value as agents write it: text, number, checkbox, option name(s) or member ids.
PROPERTY_VALUE: dict[str, Any] = {"anyOf": [
    s.string(max_length=2000), s.number(), s.boolean(), {"type": "null"},
    s.array(s.string(max_length=100), max_items=25)]}
PROPERTY_MAP: dict[str, Any] = {
    "type": "object", "maxProperties": 40, "propertyNames": {"maxLength": 100},
    "additionalProperties": PROPERTY_VALUE,
    "description": "Property name -> value. title/rich_text/url/email/date ('YYYY-MM-DD'): "
                   "string; number: number; checkbox: boolean; select/status: option name; "
                   "multi_select: list of option names; people: list of member ids; "
                   "null clears a value."}

PAGE = s.obj({
    "id": s.string(), "object": s.enum(["page"]), "title": s.string(max_length=2000),
    "icon": s.nullable(s.string()),
    "parent_type": s.enum(["workspace", "page", "database"]),
    "parent_id": s.nullable(s.string()),
    "teamspace_id": s.nullable(s.string()),
    "archived": s.boolean("Archived itself (in the trash)."),
    "in_trash": s.boolean("Archived itself or under an archived ancestor."),
    "created_by": s.string(), "created_at": s.string(),
    "last_edited_by": s.string(), "last_edited_at": s.string(),
})

BLOCK = s.obj({
    "id": s.string(), "type": s.enum(BLOCK_TYPES), "text": s.string(max_length=2000),
    "checked": s.nullable(s.boolean()), "language": s.nullable(s.string()),
    "page_id": s.string(), "parent_id": s.string("The page or block this block sits in."),
    "position": s.integer(minimum=0), "has_children": s.boolean(),
    "created_by": s.string(), "created_at": s.string(),
    "last_edited_by": s.string(), "last_edited_at": s.string(),
})


def _offset(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"malformed cursor {cursor!r}")
    return int(cursor)


def page_slice(items: list[Any], key: str, limit: int | None,
               cursor: str | None) -> dict[str, Any]:
    """One page of ``items`` in the ``s.page_of`` shape; the cursor is the next offset."""
    start, size = _offset(cursor), limit or 20
    if start > len(items):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"cursor {cursor!r} is past the end")
    end = start + size
    return {key: items[start:end], "next_cursor": str(end) if end < len(items) else None,
            "total": len(items)}


def page_out(row: dict[str, Any], in_trash: bool) -> dict[str, Any]:
    parent = {"workspace": None, "page": row["parent_page_id"],
              "database": row["parent_database_id"]}[row["parent_type"]]
    return {"id": row["id"], "object": "page", "title": row["title"], "icon": row["icon"],
            "parent_type": row["parent_type"], "parent_id": parent,
            "teamspace_id": row["teamspace_id"], "archived": bool(row["archived"]),
            "in_trash": in_trash, "created_by": row["created_by"],
            "created_at": row["created_at"], "last_edited_by": row["last_edited_by"],
            "last_edited_at": row["last_edited_at"]}


def block_out(row: dict[str, Any], has_children: bool) -> dict[str, Any]:
    return {"id": row["id"], "type": row["type"], "text": row["text"],
            "checked": None if row["checked"] is None else bool(row["checked"]),
            "language": row["language"], "page_id": row["page_id"],
            "parent_id": row["parent_block_id"] or row["page_id"],
            "position": row["position"], "has_children": has_children,
            "created_by": row["created_by"], "created_at": row["created_at"],
            "last_edited_by": row["last_edited_by"], "last_edited_at": row["last_edited_at"]}


def escape_like(text: str) -> str:
    """``text`` as a LIKE pattern fragment that matches literally (ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
