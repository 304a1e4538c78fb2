"""Checks that enforce an entity's constraints inside its tools, one function per kind.

Each check reads the prospective row (the values a create or update would leave) and raises the
ToolError the real service would give. Checks run in a fixed order, so the code an agent sees for
a call that breaks several rules at once is predictable: missing references (NOT_FOUND), then
malformed values (VALIDATION_ERROR), then states, memberships, expiries and policy thresholds
(PRECONDITION_FAILED), then clashes (CONFLICT), then quotas and policy caps (LIMIT_EXCEEDED).
"""

from __future__ import annotations

from typing import Any

from agentworld.servers import ErrorCode, ToolContext, ToolError, not_found

from . import codes
from .spec import (
    Capacity,
    DateOrder,
    Distinct,
    Entity,
    Expiry,
    MaxPerParent,
    NoOverlap,
    Policy,
    RefInState,
    SameGroup,
    UniqueTogether,
)

__all__ = ["check_row", "placeholders", "follow"]


def placeholders(values: tuple[str, ...]) -> str:
    return ", ".join("?" for _ in values)


def _refs_exist(ctx: ToolContext, entity: Entity, row: dict[str, Any], tables: dict[str, str]):
    for f in entity.fields:
        if f.kind == "ref" and row.get(f.name) is not None:
            if ctx.scalar(f"SELECT 1 FROM {tables[f.ref]} WHERE id = ?", (row[f.name],)) is None:
                raise not_found(f.ref, row[f.name])


def _date_order(c: DateOrder, row: dict[str, Any]) -> None:
    start, end = row.get(c.start), row.get(c.end)
    if start is not None and end is not None and end <= start:
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{c.end} ({end}) must be after {c.start} "
                        f"({start})", start=start, end=end)


def _ref_in_state(ctx: ToolContext, entity: Entity, c: RefInState, row: dict[str, Any],
                  tables: dict[str, str]) -> None:
    ref_entity = entity.field(c.ref).ref
    status = ctx.scalar(f"SELECT status FROM {tables[ref_entity]} WHERE id = ?", (row[c.ref],))
    if status is not None and status not in c.states:
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"{ref_entity} {row[c.ref]!r} is {status}; it must be "
                        f"{' or '.join(c.states)}", status=status)


def _no_overlap(ctx: ToolContext, entity: Entity, c: NoOverlap, row: dict[str, Any]) -> None:
    if row.get("status") not in c.live_states or row.get(c.start) is None:
        return
    clash = ctx.one(
        f"SELECT id, {c.start} AS start, {c.end} AS end FROM {entity.plural} "
        f"WHERE {c.resource} = ? AND id <> ? AND status IN ({placeholders(c.live_states)}) "
        f"AND {c.start} < ? AND {c.end} > ?",
        (row[c.resource], row.get("id") or "", *c.live_states, row[c.end], row[c.start]))
    if clash:
        raise ToolError(ErrorCode.CONFLICT,
                        f"{row[c.resource]} is already taken from {clash['start']} to "
                        f"{clash['end']} by {entity.name} {clash['id']}", clash=clash["id"])


def _capacity(ctx: ToolContext, entity: Entity, c: Capacity, row: dict[str, Any],
              tables: dict[str, str]) -> None:
    if row.get("status") not in c.live_states:
        return
    ref_entity = entity.field(c.ref).ref
    capacity = ctx.scalar(f"SELECT {c.capacity_field} FROM {tables[ref_entity]} WHERE id = ?",
                          (row[c.ref],))
    used_sql = f"SUM({c.amount})" if c.amount else "COUNT(*)"
    used = ctx.scalar(
        f"SELECT COALESCE({used_sql}, 0) FROM {entity.plural} WHERE {c.ref} = ? AND id <> ? "
        f"AND status IN ({placeholders(c.live_states)})",
        (row[c.ref], row.get("id") or "", *c.live_states))
    wanted = row[c.amount] if c.amount else 1
    if capacity is not None and used + wanted > capacity:
        raise ToolError(ErrorCode.CONFLICT,
                        f"{ref_entity} {row[c.ref]!r} has {capacity - used} of {capacity} "
                        f"{c.capacity_field.replace('_', ' ')} left; {wanted} requested",
                        capacity=capacity, used=used, requested=wanted)


def _max_per_parent(ctx: ToolContext, entity: Entity, c: MaxPerParent,
                    row: dict[str, Any]) -> None:
    if row.get("status") not in c.live_states:
        return
    count = ctx.scalar(
        f"SELECT COUNT(*) FROM {entity.plural} WHERE {c.ref} = ? AND id <> ? "
        f"AND status IN ({placeholders(c.live_states)})",
        (row[c.ref], row.get("id") or "", *c.live_states))
    if count >= c.limit:
        raise ToolError(ErrorCode.LIMIT_EXCEEDED,
                        f"{row[c.ref]} already has {count} {' or '.join(c.live_states)} "
                        f"{entity.plural}; the limit is {c.limit}", limit=c.limit)


def _formats(entity: Entity, row: dict[str, Any]) -> None:
    for f in entity.fields:
        value = row.get(f.name)
        if f.format and f.kind != "code" and value is not None and not codes.valid(f.format, value):
            what, example = codes.FORMAT_HELP.get(f.format, (f.format, ""))
            raise ToolError(ErrorCode.VALIDATION_ERROR, f"{f.name} {value!r} is not {what} "
                            f"(e.g. {example})", field=f.name, format=f.format)


def _distinct(c: Distinct, row: dict[str, Any]) -> None:
    if row.get(c.left) is not None and row.get(c.left) == row.get(c.right):
        raise ToolError(ErrorCode.VALIDATION_ERROR, f"{c.left} and {c.right} must name "
                        f"different rows; both are {row[c.left]!r}", field=c.right)


def follow(ctx: ToolContext, entity: Entity, row: dict[str, Any], path: str,
           tables: dict[str, str]) -> Any:
    """The value at ``path``: a column of the row, or (``member_id.dao_id``) of the row it
    refers to."""
    first, _, column = path.partition(".")
    if not column or row.get(first) is None:
        return row.get(first)
    table = tables[entity.field(first).ref]
    return ctx.scalar(f"SELECT {column} FROM {table} WHERE id = ?", (row[first],))


def _same_group(ctx: ToolContext, entity: Entity, c: SameGroup, row: dict[str, Any],
                tables: dict[str, str]) -> None:
    left = follow(ctx, entity, row, c.left, tables)
    right = follow(ctx, entity, row, c.right, tables)
    if left is not None and right is not None and left != right:
        who, where = c.left.split(".")[0], c.right.split(".")[0]
        group = c.noun or c.right.split(".")[-1].removesuffix("_id").replace("_", " ")
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"{who} {row[who]!r} belongs to {group} {left!r}, but {where} "
                        f"{row[where]!r} belongs to {group} {right!r}", expected=right, got=left)


def _expiry(ctx: ToolContext, c: Expiry, row: dict[str, Any]) -> None:
    value = row.get(c.field)
    if value is not None and str(value)[:10] < ctx.clock.today():
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"{c.field} {value} has passed (today is {ctx.clock.today()})",
                        field=c.field, expired=value)


def _policy(ctx: ToolContext, entity: Entity, c: Policy, row: dict[str, Any],
            tables: dict[str, str]) -> None:
    value, ref_entity = row.get(c.field), entity.field(c.ref).ref
    limit = ctx.scalar(f"SELECT {c.limit} FROM {tables[ref_entity]} WHERE id = ?",
                       (row.get(c.ref),))
    if value is None or limit is None:
        return
    words = c.field.replace("_", " ")
    if c.op == "<=" and value > limit:
        raise ToolError(ErrorCode.LIMIT_EXCEEDED,
                        f"{words} {value} is above the {c.limit.replace('_', ' ')} of "
                        f"{ref_entity.replace('_', ' ')} {row[c.ref]!r} ({limit})",
                        limit=limit, value=value)
    if c.op == ">=" and value < limit:
        raise ToolError(ErrorCode.PRECONDITION_FAILED,
                        f"{words} {value} is below the {c.limit.replace('_', ' ')} of "
                        f"{ref_entity.replace('_', ' ')} {row[c.ref]!r} ({limit})",
                        limit=limit, value=value)


def _policy_applies(c: Policy, creating: bool, move: str) -> bool:
    return c.moves and move in c.moves or c.on_create and not move


def _unique_together(ctx: ToolContext, entity: Entity, c: UniqueTogether,
                     row: dict[str, Any]) -> None:
    if any(row.get(f) is None for f in c.fields):
        return
    where = " AND ".join(f"{f} = ?" for f in c.fields)
    dup = ctx.scalar(f"SELECT id FROM {entity.plural} WHERE {where} AND id <> ?",
                     (*(row[f] for f in c.fields), row.get("id") or ""))
    if dup is not None:
        values = ", ".join(f"{f} {row[f]!r}" for f in c.fields)
        raise ToolError(ErrorCode.CONFLICT, f"another {entity.name.replace('_', ' ')} ({dup}) "
                        f"already has {values}", fields=list(c.fields))


def check_row(ctx: ToolContext, entity: Entity, row: dict[str, Any], tables: dict[str, str],
              *, creating: bool, move: str = "") -> None:
    """Raise the first broken rule for ``row``, in the documented order. ``move`` names the
    lifecycle move being made, if any (policies and expiries guard moves)."""
    _refs_exist(ctx, entity, row, tables)
    _formats(entity, row)
    for c in entity.constraints:
        if isinstance(c, DateOrder):
            _date_order(c, row)
        elif isinstance(c, Distinct):
            _distinct(c, row)
    if creating:
        for c in entity.constraints:
            if isinstance(c, RefInState):
                _ref_in_state(ctx, entity, c, row, tables)
    for c in entity.constraints:
        if isinstance(c, SameGroup) and (creating or not move):
            _same_group(ctx, entity, c, row, tables)
        elif isinstance(c, Expiry) and move and move in c.moves:
            _expiry(ctx, c, row)
        elif isinstance(c, Policy) and c.op == ">=" and _policy_applies(c, creating, move):
            _policy(ctx, entity, c, row, tables)
    for f in entity.fields:
        if f.unique and row.get(f.name) is not None:
            dup = ctx.scalar(f"SELECT id FROM {entity.plural} WHERE {f.name} = ? AND id <> ?",
                             (row[f.name], row.get("id") or ""))
            if dup is not None:
                raise ToolError(ErrorCode.CONFLICT, f"another {entity.name} ({dup}) already has "
                                f"{f.name} {row[f.name]!r}", field=f.name)
    for c in entity.constraints:
        if isinstance(c, UniqueTogether):
            _unique_together(ctx, entity, c, row)
    for c in entity.constraints:
        if isinstance(c, NoOverlap):
            _no_overlap(ctx, entity, c, row)
        elif isinstance(c, Capacity):
            _capacity(ctx, entity, c, row, tables)
    for c in entity.constraints:
        if isinstance(c, MaxPerParent):
            _max_per_parent(ctx, entity, c, row)
        elif isinstance(c, Policy) and c.op == "<=" and _policy_applies(c, creating, move):
            _policy(ctx, entity, c, row, tables)
