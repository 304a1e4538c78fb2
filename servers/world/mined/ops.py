"""The stateful implementation behind each kept tool, keyed by its operation.

Every tool keeps the mined server's name and parameters; what it does is one of a few honest
operations on the entity's table: a listing with the server's own filters and paging, a lookup
by the row's key, an insert, a partial update, a delete that refuses while other rows still
refer to the row, a lifecycle move, a yes/no mark, or an aggregate. Tool errors are the
runtime's ``ToolError`` codes; nothing returns canned text.
"""

from __future__ import annotations

import json
from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError, not_found

from .describe import _FROZEN, describe_param, describe_tool
from .model import Binding, MinedEntity

__all__ = ["Table", "add_tool", "q", "FROZEN_STATES"]

MAX_PAGE = 100
DEFAULT_PAGE = 20
# States in which a row can no longer be edited.
FROZEN_STATES = frozenset(_FROZEN)


def q(name: str) -> str:
    """A quoted SQL identifier (column names come from mined parameters: ``order``, ``from``)."""
    return '"' + name + '"'


class Table:
    """An entity's table and how its rows are written out."""

    def __init__(self, entity: MinedEntity, prefix: str) -> None:
        self.entity, self.prefix = entity, prefix
        self.name = q(entity.plural)        # for SQL; replies use entity.plural
        self.noun = entity.name.replace("_", " ")

    def public(self, row: dict[str, Any]) -> dict[str, Any]:
        out = dict(row)
        for name, col in self.entity.columns.items():
            value = out.get(name)
            if value is None:
                continue
            if col.kind == "json":
                out[name] = json.loads(value)
            elif col.kind == "bool":
                out[name] = bool(value)
        return out

    def stored(self, name: str, value: Any) -> Any:
        col = self.entity.columns.get(name)
        if value is None:
            return None
        if col is not None and col.kind == "json" or isinstance(value, list | dict):
            return json.dumps(value, sort_keys=True)
        if isinstance(value, bool):
            return int(value)
        return value

    def require(self, ctx: ToolContext, column: str, key: Any) -> dict[str, Any]:
        row = ctx.one(f"SELECT * FROM {self.name} WHERE {q(column)} = ?", (key,))
        if row is None:
            raise not_found(self.noun, key)
        return row

    def row_schema(self) -> dict[str, Any]:
        props: dict[str, Any] = {"id": {"type": "integer" if self.entity.integer_ids
                                        else "string"}}
        for name, col in self.entity.columns.items():
            props[name] = {} if col.kind == "json" else {"type": [_json_type(col), "null"]}
        if self.entity.states:
            props["status"] = {"type": "string"}
        props["created_at"] = {"type": "string"}
        props["updated_at"] = {"type": "string"}
        return {"type": "object", "properties": props, "required": ["id"]}


def _json_type(col) -> str:
    if col.kind in ("int",):
        return "integer"
    if col.kind == "float":
        return "number"
    if col.kind == "bool":
        return "boolean"
    if col.kind == "ref" or col.kind == "key":
        return "integer" if col.json_type == "integer" else "string"
    return "string"


def _param_schema(p: dict[str, Any], binding: Binding, table: Table) -> dict[str, Any]:
    kind = p["type"]
    schema: dict[str, Any] = {} if kind in ("any", "null") else {"type": kind}
    if p.get("enum") and all(isinstance(v, str | int | float) for v in p["enum"]):
        schema["enum"] = list(dict.fromkeys(p["enum"]))
    if kind == "string":
        schema["maxLength"] = 2000
    if kind == "array":
        schema["maxItems"] = 100
        if p.get("items") in ("string", "integer", "number", "boolean"):
            schema["items"] = {"type": p["items"]}
    if binding.paging.get(p["name"]) == "limit" and kind == "integer":
        schema.update(minimum=1, maximum=MAX_PAGE)
    if binding.paging.get(p["name"]) in ("offset", "page") and kind == "integer":
        schema["minimum"] = 0 if binding.paging[p["name"]] == "offset" else 1
    schema["description"] = describe_param(p, binding, table.entity)
    return schema


def input_schema(binding: Binding, table: Table) -> dict[str, Any]:
    props = {p["name"]: _param_schema(p, binding, table) for p in binding.params}
    required = [p["name"] for p in binding.params if p.get("required")]
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


def add_tool(toolset, binding: Binding, table: Table, tables: dict[str, Table],
             refs_to: list[tuple[Table, str]]) -> None:
    """Declare one binding as a tool of ``toolset``."""
    op = binding.op
    fn = {"list": _list, "count": _list, "aggregate": _aggregate, "get": _get,
          "create": _create, "update": _update, "clear": _clear, "delete": _delete,
          "transition": _transition, "flag": _flag}[op](binding, table, tables, refs_to)
    read_only = op in ("list", "count", "aggregate", "get")
    row = table.row_schema()
    if op in ("list",):
        plural = table.entity.plural
        output = {"type": "object", "properties": {plural: {"type": "array", "items": row},
                                                   "total": {"type": "integer"}},
                  "required": [plural, "total"]}
    elif op in ("count", "aggregate"):
        output = {"type": "object", "properties": {"total": {"type": "integer"}},
                  "required": ["total"]}
    elif op == "delete":
        output = {"type": "object", "properties": {"deleted": {"type": "boolean"}},
                  "required": ["deleted"]}
    else:
        output = {"type": "object", "properties": {table.entity.name: row},
                  "required": [table.entity.name]}
    toolset.tool(name=binding.tool, description=describe_tool(binding, table.entity),
                 input=input_schema(binding, table), output=output, read_only=read_only,
                 destructive=op == "delete" or binding.target in FROZEN_STATES,
                 idempotent=op in ("update", "flag", "clear"))(fn)


def _key_value(binding: Binding, table: Table, args: dict[str, Any]) -> Any:
    value = args.get(binding.key)
    # A server that declares its ids as ``number`` sends 12.0 for row 12.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _whole(value: Any) -> int | None:
    """A paging number sent as a number or as digits (servers that declare them strings)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    text = str(value)
    return int(text) if text.isdigit() and len(text) <= 9 else None


def _filters(binding: Binding, table: Table, args: dict[str, Any]) -> tuple[list[str], list]:
    where, params = ["1 = 1"], []
    for name, column in binding.columns.items():
        value = args.get(name)
        if value is None:
            continue
        col = table.entity.columns.get(column)
        if col is not None and col.kind == "json":
            for item in value if isinstance(value, list) else [value]:
                where.append(f"{q(column)} LIKE ?")
                params.append(f"%{json.dumps(item)}%")
        elif isinstance(value, list):
            if value:
                where.append(f"{q(column)} IN ({', '.join('?' for _ in value)})")
                params += [table.stored(column, v) for v in value]
        elif isinstance(value, dict):
            continue
        else:
            where.append(f"{q(column)} = ?")
            params.append(table.stored(column, value))
    text = args.get(binding.query) if binding.query else None
    if text:
        escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        searchable = [n for n, c in table.entity.columns.items() if c.kind in ("text", "name",
                                                                                 "key")][:4]
        where.append("(" + " OR ".join(f"{q(n)} LIKE ? ESCAPE '\\'" for n in searchable) + ")")
        params += [f"%{escaped}%"] * len(searchable)
    for bound, op in ((binding.since, ">="), (binding.until, "<=")):
        if bound and args.get(bound):
            column = table.entity.bounded_column(bound, upper=op == "<=")
            where.append(f"{q(column)} {op} ?")
            params.append(args[bound])
    return where, params


def _order(binding: Binding, table: Table, args: dict[str, Any]) -> str:
    value = args.get(binding.sort) if binding.sort else None
    if not value:
        return "created_at DESC, id"
    lowered = value.lower()
    if lowered in ("asc", "ascending", "desc", "descending"):
        return f"created_at {'ASC' if lowered.startswith('asc') else 'DESC'}, id"
    field, direction = lowered.lstrip("-+"), "DESC" if lowered.startswith("-") else "ASC"
    for suffix, d in ((" desc", "DESC"), (" asc", "ASC"), (":desc", "DESC"), (":asc", "ASC")):
        if field.endswith(suffix):
            field, direction = field[: -len(suffix)], d
    allowed = {n.lower(): n for n in table.entity.columns} | {
        "created_at": "created_at", "updated_at": "updated_at", "id": "id", "created": "created_at",
        "updated": "updated_at"}
    if field not in allowed:
        raise ToolError(ErrorCode.VALIDATION_ERROR,
                        f"cannot sort {table.entity.plural} by {value!r}; sort by one of "
                        f"{', '.join(sorted(allowed))}")
    return f"{q(allowed[field])} {direction}, id"


def _list(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        where, params = _filters(binding, table, args)
        clause = " AND ".join(where)
        total = ctx.scalar(f"SELECT COUNT(*) FROM {table.name} WHERE {clause}", params)
        if binding.op == "count":
            return {"total": total}
        limit, offset = DEFAULT_PAGE, 0
        for name, role in binding.paging.items():
            value = args.get(name)
            if value is None:
                continue
            if role == "limit":
                limit = _whole(value)
                if limit is None or not 1 <= limit <= MAX_PAGE:
                    raise ToolError(ErrorCode.VALIDATION_ERROR,
                                    f"{name} must be a whole number from 1 to {MAX_PAGE}")
            elif role in ("offset", "cursor"):
                text = str(value)
                if not text.isdigit() or len(text) > 9:
                    raise ToolError(ErrorCode.VALIDATION_ERROR,
                                    f"{name} is not a position this tool returned")
                offset = int(text)
        page = next((args[n] for n, r in binding.paging.items() if r == "page" and
                     args.get(n) is not None), None)
        if page is not None:
            page = _whole(page)
            if page is None or page < 1:
                raise ToolError(ErrorCode.VALIDATION_ERROR, "page counts from 1")
            offset = (page - 1) * limit
        rows = ctx.all(f"SELECT * FROM {table.name} WHERE {clause} "
                       f"ORDER BY {_order(binding, table, args)} LIMIT ? OFFSET ?",
                       (*params, limit, offset))
        out: dict[str, Any] = {table.entity.plural: [table.public(r) for r in rows],
                               "total": total}
        if offset + len(rows) < total:
            out["next_offset"] = offset + len(rows)
        return out

    return fn


def _aggregate(binding: Binding, table: Table, tables, refs_to):
    numbers = [n for n, c in table.entity.columns.items() if c.kind in ("int", "float")][:4]

    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        where, params = _filters(binding, table, args)
        clause = " AND ".join(where)
        out: dict[str, Any] = {"entity": table.entity.plural, "total": ctx.scalar(
            f"SELECT COUNT(*) FROM {table.name} WHERE {clause}", params)}
        if table.entity.states:
            out["by_status"] = {r["status"]: r["n"] for r in ctx.all(
                f"SELECT status, COUNT(*) AS n FROM {table.name} WHERE {clause} "
                "GROUP BY status ORDER BY status", params)}
        for name in numbers:
            row = ctx.one(f"SELECT SUM({q(name)}) AS total, AVG({q(name)}) AS mean FROM "
                          f"{table.name} WHERE {clause}", params)
            out[f"{name}_sum"] = row["total"]
            out[f"{name}_mean"] = None if row["mean"] is None else round(row["mean"], 2)
        return out

    return fn


def _get(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        if not binding.key:
            row = ctx.one(f"SELECT * FROM {table.name} ORDER BY created_at DESC, id LIMIT 1")
            if row is None:
                raise not_found(table.noun, "(any)")
            return {table.entity.name: table.public(row)}
        row = table.require(ctx, binding.key_column, _key_value(binding, table, args))
        return {table.entity.name: table.public(row)}

    return fn


def _check_refs(ctx: ToolContext, binding: Binding, table: Table, tables, values) -> None:
    for name, value in values.items():
        col = table.entity.columns.get(name)
        if col is not None and col.kind == "ref" and value is not None:
            tables[col.ref].require(ctx, "id", value)


def _check_unique(ctx: ToolContext, table: Table, values: dict[str, Any], row_id: Any) -> None:
    for name, value in values.items():
        col = table.entity.columns.get(name)
        if col is not None and col.unique and value is not None:
            clash = ctx.scalar(f"SELECT id FROM {table.name} WHERE {q(name)} = ? AND id IS NOT ?",
                               (value, row_id))
            if clash is not None:
                raise ToolError(ErrorCode.CONFLICT, f"another {table.noun} already has "
                                f"{name} {value!r}", conflicting_id=clash)


def _check_state(table: Table, value: Any) -> None:
    if value is not None and table.entity.states and value not in table.entity.states:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{value!r} is not a {table.noun} status; "
                        f"use one of {', '.join(table.entity.states)}")


def _written(binding: Binding, table: Table, args: dict[str, Any]) -> dict[str, Any]:
    return {binding.columns[n]: table.stored(binding.columns[n], v) for n, v in args.items()
            if n in binding.columns}


def _create(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        values = _written(binding, table, args)
        _check_state(table, values.get("status"))
        _check_refs(ctx, binding, table, tables, values)
        if table.entity.integer_ids:
            row_id: Any = (ctx.scalar(f"SELECT MAX(id) FROM {table.name}") or 0) + 1
        else:
            row_id = ctx.ids.new(table.prefix)
        if binding.key and binding.key_column != "id" and args.get(binding.key) is not None:
            values[binding.key_column] = args[binding.key]
        _check_unique(ctx, table, values, row_id)
        if table.entity.states and values.get("status") is None:
            values["status"] = table.entity.initial
        now = ctx.clock.iso()
        row = {"id": row_id, **values, "created_at": now, "updated_at": now}
        ctx.insert(table.name, {q(k): v for k, v in row.items()})
        return {table.entity.name: table.public(table.require(ctx, "id", row_id))}

    return fn


def _editable(table: Table, row: dict[str, Any]) -> None:
    if row.get("status") in FROZEN_STATES:
        raise ToolError(ErrorCode.PRECONDITION_FAILED, f"{table.noun} {row['id']} is "
                        f"{row['status']} and can no longer be changed", status=row["status"])


def _update(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        row = table.require(ctx, binding.key_column, _key_value(binding, table, args))
        values = _written(binding, table, args)
        if not values:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "give at least one value to change")
        _editable(table, row)
        _check_state(table, values.get("status"))
        _check_refs(ctx, binding, table, tables, values)
        _check_unique(ctx, table, values, row["id"])
        ctx.update(table.name, row["id"], {**{q(k): v for k, v in values.items()},
                                           "updated_at": ctx.clock.iso()})
        return {table.entity.name: table.public(table.require(ctx, "id", row["id"]))}

    return fn


def _clear(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        row = table.require(ctx, binding.key_column, _key_value(binding, table, args))
        _editable(table, row)
        values = _written(binding, table, args)
        if not values:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "name what to remove")
        for column, value in values.items():
            current = row.get(column)
            col = table.entity.columns.get(column)
            if col is not None and col.kind == "json" and current:
                items = json.loads(current)
                gone = json.loads(value) if isinstance(value, str) and value[:1] in "[{" else value
                if isinstance(items, dict) and isinstance(gone, dict):
                    gone = list(gone)           # {"color": ...} names the key "color"
                gone = gone if isinstance(gone, list) else [gone]
                if isinstance(items, dict):     # a map: what goes are its keys
                    missing = [g for g in gone if not isinstance(g, str) or g not in items]
                    if missing:
                        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                                        f"{table.noun} {row['id']} has no {column} "
                                        f"{missing[0]!r}")
                    values[column] = json.dumps({k: v for k, v in items.items()
                                                 if k not in gone}, sort_keys=True)
                    continue
                missing = [g for g in gone if g not in items]
                if missing:
                    raise ToolError(ErrorCode.PRECONDITION_FAILED,
                                    f"{table.noun} {row['id']} has no {column} {missing[0]!r}")
                values[column] = json.dumps([i for i in items if i not in gone], sort_keys=True)
            elif current != value:
                raise ToolError(ErrorCode.PRECONDITION_FAILED, f"{table.noun} {row['id']} has "
                                f"{column} {current!r}, not {value!r}")
            else:
                values[column] = None
        ctx.update(table.name, row["id"], {**{q(k): v for k, v in values.items()},
                                           "updated_at": ctx.clock.iso()})
        return {table.entity.name: table.public(table.require(ctx, "id", row["id"]))}

    return fn


def _delete(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        row = table.require(ctx, binding.key_column, _key_value(binding, table, args))
        for other, column in refs_to:
            n = ctx.scalar(f"SELECT COUNT(*) FROM {other.name} WHERE {q(column)} = ?",
                           (row["id"],))
            if n:
                raise ToolError(ErrorCode.CONFLICT, f"{table.noun} {row['id']} is still used by "
                                f"{n} {other.entity.plural.replace('_', ' ')}; remove those "
                                "first", referenced_by=other.entity.plural, count=n)
        ctx.db.execute(f"DELETE FROM {table.name} WHERE id = ?", (row["id"],))
        return {"deleted": True, "id": row["id"]}

    return fn


def _transition(binding: Binding, table: Table, tables, refs_to):
    sources, target = table.entity.moves[binding.tool]

    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        row = table.require(ctx, binding.key_column, _key_value(binding, table, args))
        if row.get("status") not in sources:
            raise ToolError(ErrorCode.PRECONDITION_FAILED,
                            f"cannot {binding.verb} {table.noun} {row['id']}: it is "
                            f"{row.get('status')}, and only a {' or '.join(sources)} "
                            f"{table.noun} can be", status=row.get("status"))
        values = _written(binding, table, args)
        _check_refs(ctx, binding, table, tables, values)
        ctx.update(table.name, row["id"], {**{q(k): v for k, v in values.items()},
                                           "status": target, "updated_at": ctx.clock.iso()})
        return {table.entity.name: table.public(table.require(ctx, "id", row["id"]))}

    return fn


def _flag(binding: Binding, table: Table, tables, refs_to):
    def fn(ctx: ToolContext, /, **args: Any) -> dict[str, Any]:
        row = table.require(ctx, binding.key_column, _key_value(binding, table, args))
        values = {q(k): v for k, v in _written(binding, table, args).items()}
        ctx.update(table.name, row["id"], {**values, q(binding.target): int(binding.flag_value),
                                           "updated_at": ctx.clock.iso()})
        return {table.entity.name: table.public(table.require(ctx, "id", row["id"]))}

    return fn
