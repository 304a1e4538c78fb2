"""Database tools: read a database's schema, query its rows, add rows and edit their values."""

from __future__ import annotations

import json
from typing import Any

from agentworld.servers import ErrorCode, ToolError
from agentworld.servers import schema as s

from .access import Access
from .common import ACTOR, CURSOR, LIMIT, PROPERTY_MAP, PROPERTY_VALUE, page_slice, tools
from .props import (
    ALL_OPERATORS,
    OPERATORS,
    PROPERTY_OUT,
    check_filter,
    check_values,
    load_schema,
    matches,
    read_value,
    row_properties,
    sort_rows,
    title_property,
)

PROPERTY_TYPES = tuple(OPERATORS)
OPTION = s.obj({"name": s.string(), "color": s.string(),
                "group": s.nullable(s.enum(["to_do", "in_progress", "complete"]))})
PROPERTY = s.obj({"name": s.string(), "type": s.enum(PROPERTY_TYPES),
                  "options": s.array(OPTION, max_items=200)})
DATABASE = s.obj({"id": s.string(), "title": s.string(), "icon": s.nullable(s.string()),
                  "description": s.string(max_length=2000), "parent_page_id": s.string(),
                  "created_by": s.string(), "created_at": s.string(),
                  "last_edited_at": s.string(), "row_count": s.integer(minimum=0)})
ROW = s.obj({"id": s.string(), "title": s.string(max_length=2000), "properties": PROPERTY_OUT,
             "archived": s.boolean(), "created_by": s.string(), "created_at": s.string(),
             "last_edited_by": s.string(), "last_edited_at": s.string()})
FILTER = s.obj({"property": s.string(max_length=100),
                "operator": s.enum(ALL_OPERATORS, "Must suit the property's type."),
                "value": PROPERTY_VALUE}, required=["property", "operator"])
SORT = s.obj({"property": s.string(max_length=100),
              "direction": s.enum(["ascending", "descending"])}, required=["property"])


def _rows(ctx, database_id: str, schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every row of the database with all its property values, in creation order."""
    values: dict[str, dict[str, Any]] = {}
    for r in ctx.all("SELECT page_id, property_name, value FROM property_values "
                     "WHERE database_id = ?", (database_id,)):
        values.setdefault(r["page_id"], {})[r["property_name"]] = json.loads(r["value"])
    rows = []
    for page in ctx.all("SELECT * FROM pages WHERE parent_database_id = ? "
                        "ORDER BY created_at, id", (database_id,)):
        stored = values.get(page["id"], {})
        props = {name: page["title"] if p["type"] == "title"
                 else read_value(p["type"], stored.get(name)) for name, p in schema.items()}
        rows.append(_row_out(page, props))
    return rows


def _row_out(page: dict[str, Any], props: dict[str, Any]) -> dict[str, Any]:
    return {"id": page["id"], "title": page["title"], "properties": props,
            "archived": bool(page["archived"]), "created_by": page["created_by"],
            "created_at": page["created_at"], "last_edited_by": page["last_edited_by"],
            "last_edited_at": page["last_edited_at"]}


@tools.tool(
    description="Get a database: title, parent page, row count and its property schema (each "
                "property's type and, for select, multi_select and status, the allowed options). "
                "Read this before writing rows or filters.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "database_id": s.identifier()}),
    output=s.obj({"database": DATABASE, "properties": s.array(PROPERTY, max_items=100)}))
def get_database(ctx, actor_id, database_id):
    Access(ctx, actor_id).database(database_id)
    row = ctx.one("SELECT * FROM databases WHERE id = ?", (database_id,))
    count = ctx.scalar("SELECT COUNT(*) FROM pages WHERE parent_database_id = ? "
                       "AND archived = 0", (database_id,))
    database = {k: row[k] for k in DATABASE["properties"] if k != "row_count"}
    schema = load_schema(ctx, database_id)
    return {"database": {**database, "row_count": count},
            "properties": [{"name": p["name"], "type": p["type"], "options": p["options"]}
                           for p in schema.values()]}


@tools.tool(
    description="Query a database's rows. `filters` (all must match) each name a property, an "
                "operator valid for its type (text: equals/does_not_equal/contains/"
                "does_not_contain/starts_with; number: equals/greater_than/less_than/..._or_"
                "equal_to; select and status: equals/does_not_equal; multi_select and people: "
                "contains/does_not_contain (value: one option name / member id); date: equals/"
                "before/after/on_or_before/on_or_after; checkbox: equals/does_not_equal; any "
                "type but checkbox: is_empty/is_not_empty without a value). Optional sort by one "
                "property (empty values last); default order is creation order. Archived rows "
                "are left out unless include_archived is true.",
    read_only=True,
    input=s.obj({"actor_id": ACTOR, "database_id": s.identifier(),
                 "filters": s.array(FILTER, max_items=5), "sort": SORT,
                 "include_archived": s.boolean(), "limit": LIMIT, "cursor": CURSOR},
                required=["actor_id", "database_id"]),
    output=s.page_of(ROW, "rows"))
def query_database(ctx, actor_id, database_id, filters=(), sort=None, include_archived=False,
                   limit=None, cursor=None):
    acc = Access(ctx, actor_id)
    acc.database(database_id)
    schema = load_schema(ctx, database_id)
    for flt in filters:
        check_filter(ctx, schema, flt)
    if sort is not None and sort["property"] not in schema:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"cannot sort on unknown property {sort['property']!r}")
    rows = [r for r in _rows(ctx, database_id, schema)
            if (include_archived or not r["archived"]) and acc.can(r["id"], "can_view")]
    for flt in filters:
        kind = schema[flt["property"]]["type"]
        rows = [r for r in rows if matches(kind, flt["operator"],
                                           r["properties"][flt["property"]], flt.get("value"))]
    if sort is not None:
        rows = sort_rows(rows, schema[sort["property"]],
                         sort.get("direction", "ascending") == "descending")
    return page_slice(rows, "rows", limit, cursor)


def _store(ctx, page_id: str, database_id: str, values: dict[str, Any],
           schema: dict[str, Any]) -> None:
    for name, value in values.items():
        if schema[name]["type"] == "title":
            continue
        ctx.db.execute("DELETE FROM property_values WHERE page_id = ? AND property_name = ?",
                       (page_id, name))
        if value is not None:
            ctx.insert("property_values", {"page_id": page_id, "database_id": database_id,
                                           "property_name": name, "value": json.dumps(value)})


@tools.tool(
    description="Add a row (a page) to a database. `properties` must include the title "
                "property; every value must match its property's type, and select, status and "
                "multi_select values must be existing options (see get_database). Needs can_edit "
                "on the database's page, which must not be archived.",
    input=s.obj({"actor_id": ACTOR, "database_id": s.identifier(), "properties": PROPERTY_MAP,
                 "icon": s.string(max_length=16)}, required=["actor_id", "database_id",
                                                             "properties"]),
    output=s.obj({"row": ROW}))
def create_database_row(ctx, actor_id, database_id, properties, icon=None):
    acc = Access(ctx, actor_id)
    database = acc.database(database_id, "can_edit")
    acc.live(database["parent_page_id"])
    schema = load_schema(ctx, database_id)
    values = check_values(ctx, schema, properties)
    title_name = title_property(schema)
    if title_name not in values:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"the title property {title_name!r} is required", property=title_name)
    page_id, now = ctx.ids.new("pg"), ctx.clock.iso()
    teamspace = ctx.scalar("SELECT teamspace_id FROM pages WHERE id = ?",
                           (database["parent_page_id"],))
    ctx.insert("pages", {"id": page_id, "title": values[title_name], "icon": icon or None,
                         "parent_type": "database", "parent_page_id": None,
                         "parent_database_id": database_id, "teamspace_id": teamspace,
                         "member_access": None, "archived": 0, "created_by": actor_id,
                         "created_at": now, "last_edited_by": actor_id, "last_edited_at": now})
    _store(ctx, page_id, database_id, values, schema)
    ctx.update("databases", database_id, {"last_edited_at": now})
    page = ctx.one("SELECT * FROM pages WHERE id = ?", (page_id,))
    return {"row": _row_out(page, row_properties(ctx, page))}


@tools.tool(
    description="Set some property values of a database row; properties not named keep their "
                "values and null clears one (not the title or a checkbox). Values must match "
                "the schema as for create_database_row. Needs can_edit; archived rows must be "
                "restored first.",
    input=s.obj({"actor_id": ACTOR, "page_id": s.identifier("The row's page id."),
                 "properties": {**PROPERTY_MAP, "minProperties": 1}}),
    output=s.obj({"row": ROW}), idempotent=True)
def update_database_row_properties(ctx, actor_id, page_id, properties):
    acc = Access(ctx, actor_id)
    acc.page(page_id, "can_view")
    page = ctx.one("SELECT * FROM pages WHERE id = ?", (page_id,))
    if page["parent_type"] != "database":
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"page {page_id!r} is not a database row; use update_page")
    acc.editable(page_id)
    database_id = page["parent_database_id"]
    schema = load_schema(ctx, database_id)
    values = check_values(ctx, schema, properties)
    now = ctx.clock.iso()
    edits: dict[str, Any] = {"last_edited_by": actor_id, "last_edited_at": now}
    title_name = title_property(schema)
    if title_name in values:
        edits["title"] = values[title_name]
    ctx.update("pages", page_id, edits)
    _store(ctx, page_id, database_id, values, schema)
    ctx.update("databases", database_id, {"last_edited_at": now})
    page = ctx.one("SELECT * FROM pages WHERE id = ?", (page_id,))
    return {"row": _row_out(page, row_properties(ctx, page))}
