"""Shapes that change fields on request: set a field, shift a date, move an amount from one
record to another."""

from __future__ import annotations

import datetime as dt
from typing import Any

from agentworld.servers.world.spec import DateOrder, Entity

from ._base import Draft, ShapeContext
from ._common import (
    field_words,
    find_calls,
    money_text,
    opener,
    options_of,
    pick,
    say_value,
    shape,
    updatable,
)
from ._common import the as the_row

__all__ = ["editable_rows", "shift"]

# Numbers that are a pool of something, so moving part of one to another makes sense.
_POOLS = ("budget", "capacity", "quota", "limit", "allocat", "hours", "credit", "balance",
          "seats", "allowance", "stock", "quantity", "headcount", "points", "funds", "slots")

_VALUE_KINDS = ("enum", "money", "int", "float", "date", "text", "bool")


def editable_rows(ctx: ShapeContext, entity: Entity, columns: str = "*") -> list[dict[str, Any]]:
    """Rows update_<entity> accepts: those not in a frozen state."""
    frozen = entity.lifecycle.frozen if entity.lifecycle else ()
    marks = ", ".join("?" for _ in frozen)
    where = f"WHERE status NOT IN ({marks})" if frozen else ""
    return ctx.rows(f"SELECT {columns} FROM {entity.plural} {where} ORDER BY id", *frozen)


def shift(day: str, days: int) -> str:
    return (dt.date.fromisoformat(day) + dt.timedelta(days=days)).isoformat()


@shape("update_field")
def update_field(ctx: ShapeContext) -> Draft | None:
    """Set one field of a named record to a stated value."""
    options = [(e, f) for e in ctx.entities for f in updatable(ctx, e)
               if f.kind in _VALUE_KINDS and not f.unique]
    entity, f = pick(ctx, options) or (None, None)
    if entity is None:
        return None
    row = pick(ctx, editable_rows(ctx, entity))
    if row is None:
        return None
    others = sorted({r[0] for r in ctx.db.execute(
        f"SELECT DISTINCT {f.name} FROM {entity.plural} WHERE {f.name} IS NOT NULL")}
        - {row[f.name]}, key=str)
    if f.kind == "bool":
        others = [0 if row[f.name] else 1]
    value = pick(ctx, others)
    if value is None:
        return None
    target = the_row(ctx, entity, row["id"])
    said, what = say_value(ctx, f, value), field_words(f)
    ask = pick(ctx, [
        f"Please change the {what} of {target} to {said}.",
        f"Could you set the {what} of {target} to {said}? Leave everything else as it is.",
        f"The {what} on {target} is out of date: it should be {said}. Please fix it."])
    why = opener(ctx, "We just got corrected details.", "I noticed a mistake in our records.",
                 "A colleague asked me to update a record.")
    tool = f"update_{entity.name}"
    calls = find_calls(ctx, entity, row["id"]) + [[tool, {"id": row["id"], f.name: value}]]
    return Draft("update_field", f"{why} {ask}", calls, None,
                 options_of(tool, [f], {f.name: value}))


def _date_pairs(entity: Entity) -> dict[str, str]:
    """start field -> end field for the entity's date orders."""
    return {c.start: c.end for c in entity.constraints if isinstance(c, DateOrder)}


@shape("shift_date")
def shift_date(ctx: ShapeContext) -> Draft | None:
    """Push a record's date back (or bring it forward) by some days, its end date with it."""
    options = [(e, f) for e in ctx.entities for f in updatable(ctx, e)
               if f.kind == "date" and f.required]
    entity, f = pick(ctx, options) or (None, None)
    if entity is None:
        return None
    row = pick(ctx, editable_rows(ctx, entity))
    if row is None:
        return None
    days = ctx.rng.choice([-1, 1]) * ctx.rng.randint(2, 21)
    changes = {f.name: shift(row[f.name], days)}
    end = _date_pairs(entity).get(f.name)
    end_field = entity.field(end) if end else None
    if end_field and end_field.mutable and row[end] is not None:
        changes[end] = shift(row[end], days)
    target = the_row(ctx, entity, row["id"])
    how = f"{days} days later" if days > 0 else f"{-days} days earlier"
    what = field_words(f)
    ask = pick(ctx, [f"Please move the {what} of {target} to {how}.",
                     f"Could you shift the {what} of {target} {how} than it is now?"])
    if len(changes) > 1:
        ask += (f" Move its {field_words(end_field)} by the same number of days, so the "
                "length stays the same.")
    why = opener(ctx, "Plans changed on the other side.", "We've had a delay.",
                 "The people involved asked for a different date.")
    calls = find_calls(ctx, entity, row["id"]) + [
        [f"update_{entity.name}", {"id": row["id"], **changes}]]
    return Draft("shift_date", f"{why} {ask}", calls)


@shape("transfer_amount")
def transfer_amount(ctx: ShapeContext) -> Draft | None:
    """Move part of a number (a budget, a quota) from one named record to another."""
    options = [(e, f) for e in ctx.entities for f in updatable(ctx, e)
               if f.kind in ("money", "int") and f.required and not f.unique
               and any(p in f.name for p in _POOLS)]
    entity, f = pick(ctx, options) or (None, None)
    if entity is None:
        return None
    rows = [r for r in editable_rows(ctx, entity) if r[f.name]]
    if len(rows) < 2:
        return None
    a, b = ctx.rng.sample(rows, 2)
    unit = 100 if f.kind == "money" else 1
    amount = (a[f.name] * ctx.rng.randint(10, 40) // 100) // unit * unit
    low = f.min if f.min is not None else 0
    too_much = f.max is not None and b[f.name] + amount > f.max
    if amount < 5 * unit or a[f.name] - amount < low or too_much:
        return None
    said = money_text(ctx, amount) if f.kind == "money" else f"{amount:,}"
    one, two = the_row(ctx, entity, a["id"]), the_row(ctx, entity, b["id"])
    ask = pick(ctx, [
        f"Please move {said} of {field_words(f)} from {one} to {two}.",
        f"Take {said} off the {field_words(f)} of {one} and add it to {two}."])
    why = opener(ctx, f"We're rebalancing {field_words(f)} after the latest review.",
                 f"Management agreed to shift some {field_words(f)}.")
    tool = f"update_{entity.name}"
    calls = find_calls(ctx, entity, a["id"]) + find_calls(ctx, entity, b["id"]) + [
        [tool, {"id": a["id"], f.name: a[f.name] - amount}],
        [tool, {"id": b["id"], f.name: b[f.name] + amount}]]
    return Draft("transfer_amount", f"{why} {ask}", calls)
