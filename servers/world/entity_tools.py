"""The tools every entity gets: search, get, create, update, and one per lifecycle move.

They are written once, generically, over the entity's declaration; what makes two environments
behave differently is the declaration (fields, lifecycle, constraints), not the code.
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError, not_found
from agentworld.servers import schema as s

from .builder import EnvBuilder
from .constraints import check_row
from .describe import a_an, article, either
from .entity_schema import field_schema, id_prefix, make_code, row_out, row_schema
from .spec import Entity, Expiry, Field, Policy, Transition

__all__ = ["add_entity_tools", "decode_cursor"]

MAX_PAGE = 100


def decode_cursor(cursor: str | None) -> int:
    if cursor is None:
        return 0
    if not cursor.isdigit() or len(cursor) > 9:
        raise ToolError(ErrorCode.VALIDATION_ERROR, "cursor is not one this tool returned")
    return int(cursor)


def _noun(entity: Entity) -> str:
    return entity.name.replace("_", " ")


def _arg(b: EnvBuilder, entity: Entity, f: Field) -> dict[str, Any]:
    """A field's argument schema, described for this entity and environment's currency."""
    return field_schema(f, noun=_noun(entity), currency=b.region.currency)


def add_entity_tools(b: EnvBuilder, entity: Entity, tables: dict[str, str]) -> None:
    _add_search(b, entity)
    _add_get(b, entity)
    if entity.creatable:
        _add_create(b, entity, tables)
    if any(f.mutable and f.kind not in ("ref", "code") for f in entity.fields):
        _add_update(b, entity, tables)
    for transition in entity.lifecycle.transitions if entity.lifecycle else ():
        _add_transition(b, entity, transition, tables)


def _add_search(b: EnvBuilder, entity: Entity) -> None:
    filters = [f for f in entity.fields if f.filterable or f.kind == "ref"]
    label = entity.label.replace("_", " ")
    props: dict[str, Any] = {"query": s.string(
        f"Part of the {label} to look for, matched anywhere and case-insensitively, e.g. the "
        f"first letters of {a_an(label)}.")}
    for f in filters:
        props[f.name] = _arg(b, entity, f)
    if entity.lifecycle:
        props["status"] = s.enum(entity.lifecycle.states,
                                 f"Only {entity.plural.replace('_', ' ')} in this state: one of "
                                 f"{either(entity.lifecycle.states)}.")
    props["limit"] = s.integer("How many results to return at most (1 to 100; 20 if not given).",
                               minimum=1, maximum=MAX_PAGE)
    props["cursor"] = s.string("The next_cursor of the previous page, to read the page after "
                               "it; leave it out for the first page.", max_length=12)
    plural = entity.plural

    def search(ctx: ToolContext, query: str | None = None, status: str | None = None,
               limit: int = 20, cursor: str | None = None, **exact: Any) -> dict[str, Any]:
        offset = decode_cursor(cursor)
        where, params = ["1 = 1"], []
        if query:
            where.append(f"{entity.label} LIKE ? ESCAPE '\\'")
            escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(f"%{escaped}%")
        if status:
            where.append("status = ?")
            params.append(status)
        for name, value in exact.items():
            where.append(f"{name} = ?")
            params.append(int(value) if isinstance(value, bool) else value)
        clause = " AND ".join(where)
        total = ctx.scalar(f"SELECT COUNT(*) FROM {plural} WHERE {clause}", params)
        rows = ctx.all(f"SELECT * FROM {plural} WHERE {clause} ORDER BY created_at DESC, id "
                       f"LIMIT ? OFFSET ?", (*params, limit, offset))
        more = offset + len(rows) < total
        return {plural: [row_out(entity, r) for r in rows],
                "next_cursor": str(offset + len(rows)) if more else None, "total": total}

    filters_text = ", ".join(f.name for f in filters) or "none"
    b.tools.tool(
        name=f"search_{plural}", read_only=True,
        description=(f"Search {plural.replace('_', ' ')} by text in their {entity.label}"
                     + (", by status" if entity.lifecycle else "")
                     + f" and by exact filters ({filters_text}); newest first, paged."),
        input=s.obj(props, required=[]), output=s.page_of(row_schema(entity), plural),
    )(search)


def _add_get(b: EnvBuilder, entity: Entity) -> None:
    def get(ctx: ToolContext, id: str) -> dict[str, Any]:
        return {entity.name: row_out(entity, ctx.require(entity.plural, id, kind=_noun(entity)))}

    b.tools.tool(name=f"get_{entity.name}", read_only=True,
                 description=f"Get one {_noun(entity)} by id, with every field.",
                 input=s.obj({"id": _id_arg(entity)}),
                 output=s.obj({entity.name: row_schema(entity)}))(get)


def _add_create(b: EnvBuilder, entity: Entity, tables: dict[str, str]) -> None:
    stamps = {t.stamp for t in entity.lifecycle.transitions} if entity.lifecycle else set()
    fields = [f for f in entity.fields if f.name not in stamps and f.kind != "code"]
    props = {f.name: _arg(b, entity, f) for f in fields}
    required = [f.name for f in fields if f.required]

    def create(ctx: ToolContext, **values: Any) -> dict[str, Any]:
        now = ctx.clock.iso()
        row = {"id": ctx.ids.new(id_prefix(entity))}
        for f in entity.fields:
            if f.kind == "code":
                row[f.name] = make_code(f, ctx.rng.getrandbits(40), b.region.code)
                continue
            value = values.get(f.name)
            row[f.name] = int(value) if isinstance(value, bool) else value
        if entity.lifecycle:
            row["status"] = entity.lifecycle.initial
        row["created_at"] = row["updated_at"] = now
        check_row(ctx, entity, row, tables, creating=True)
        ctx.insert(entity.plural, row)
        b.mutated(ctx, entity.plural, row["id"], "create")
        return {entity.name: row_out(entity, row)}

    initial = f" It starts as {entity.lifecycle.initial}." if entity.lifecycle else ""
    b.tools.tool(name=f"create_{entity.name}",
                 description=f"Create {a_an(_noun(entity))}.{initial} {entity.description}"
                             .strip(),
                 input=s.obj(props, required=required),
                 output=s.obj({entity.name: row_schema(entity)}))(create)


def _add_update(b: EnvBuilder, entity: Entity, tables: dict[str, str]) -> None:
    mutable = [f for f in entity.fields if f.mutable and f.kind not in ("ref", "code")]
    props: dict[str, Any] = {"id": _id_arg(entity)}
    props.update({f.name: _arg(b, entity, f) for f in mutable})
    frozen = entity.lifecycle.frozen if entity.lifecycle else ()

    def update(ctx: ToolContext, id: str, **changes: Any) -> dict[str, Any]:
        current = ctx.require(entity.plural, id, kind=_noun(entity))
        if not changes:
            raise ToolError(ErrorCode.VALIDATION_ERROR, "give at least one field to change")
        if current.get("status") in frozen:
            raise ToolError(ErrorCode.PRECONDITION_FAILED,
                            f"{_noun(entity)} {id} is {current['status']} and can no longer be "
                            "edited", status=current["status"])
        values = {k: int(v) if isinstance(v, bool) else v for k, v in changes.items()}
        row = {**current, **values, "updated_at": ctx.clock.iso()}
        check_row(ctx, entity, row, tables, creating=False)
        ctx.update(entity.plural, id, {**values, "updated_at": row["updated_at"]})
        b.mutated(ctx, entity.plural, id, "update")
        return {entity.name: row_out(entity, row)}

    frozen_text = f" Refused once it is {either(frozen)}." if frozen else ""
    b.tools.tool(name=f"update_{entity.name}", idempotent=True,
                 description=f"Change fields of {a_an(_noun(entity))}; only the given fields "
                             "change."
                             + frozen_text,
                 input=s.obj(props, required=["id"]),
                 output=s.obj({entity.name: row_schema(entity)}))(update)


def _add_transition(b: EnvBuilder, entity: Entity, t: Transition, tables: dict[str, str]) -> None:
    def move(ctx: ToolContext, id: str) -> dict[str, Any]:
        current = ctx.require(entity.plural, id, kind=_noun(entity))
        if current["status"] not in t.sources:
            raise ToolError(ErrorCode.PRECONDITION_FAILED,
                            f"cannot {t.verb.replace('_', ' ')} {_noun(entity)} {id}: it is "
                            f"{current['status']}, and only {_only(entity, t)} can be",
                            status=current["status"])
        changes = {"status": t.target, "updated_at": ctx.clock.iso()}
        if t.stamp:
            changes[t.stamp] = ctx.clock.today()
        row = {**current, **changes}
        check_row(ctx, entity, row, tables, creating=False, move=t.verb)
        ctx.update(entity.plural, id, changes)
        b.mutated(ctx, entity.plural, id, t.verb)
        return {entity.name: row_out(entity, row)}

    b.tools.tool(name=f"{t.verb}_{entity.name}",
                 description=f"{t.description} Only {_only(entity, t)} can be; it becomes "
                             f"{t.target.replace('_', ' ')}.{_guards(entity, t)}",
                 destructive=t.target in ("cancelled", "deleted", "closed", "archived",
                                          "rejected", "revoked", "terminated"),
                 input=s.obj({"id": _id_arg(entity)}),
                 output=s.obj({entity.name: row_schema(entity)}))(move)


def _guards(entity: Entity, t: Transition) -> str:
    """What else the move checks: the policies and expiries a domain pack puts on it."""
    out = []
    for c in entity.constraints:
        if isinstance(c, Policy) and t.verb in c.moves:
            bound = "at most" if c.op == "<=" else "at least"
            parent = entity.field(c.ref).ref.replace("_", " ")
            out.append(f" Its {c.field.replace('_', ' ')} must be {bound} the "
                       f"{c.limit.replace('_', ' ')} of its {parent}.")
        elif isinstance(c, Expiry) and t.verb in c.moves:
            out.append(f" Refused once its {c.field.replace('_', ' ')} date has passed.")
    return "".join(out)


def _only(entity: Entity, t: Transition) -> str:
    """``an active or paused proposal``: the states a move starts from, with their article."""
    return f"{article(t.sources[0])} {either(t.sources)} {_noun(entity)}"


def _id_arg(entity: Entity) -> dict[str, Any]:
    return s.identifier(f"Id of the {_noun(entity)}, as search_{entity.plural} returns it, e.g. "
                        f"{id_prefix(entity)}_000001.")


def existing(db, table: str, where: str = "1 = 1", params: tuple = (), limit: int = 5):
    """A few existing rows of a table, in a stable order (for probes and breakers)."""
    return [dict(r) for r in db.execute(
        f"SELECT * FROM {table} WHERE {where} ORDER BY id LIMIT ?", (*params, limit))]


def not_found_id(entity: Entity) -> str:
    return f"{id_prefix(entity)}_missing00"


def raise_not_found(entity: Entity, ident: str) -> None:
    raise not_found(_noun(entity), ident)
