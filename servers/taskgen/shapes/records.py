"""Shapes that create records: a new record for a named parent, a booking re-made around a clash,
a record moved to another parent (re-entered there, the original cancelled)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from agentworld.servers.world.entity_schema import EPOCH
from agentworld.servers.world.spec import Entity, Field, NoOverlap, RefInState, Transition

from ._base import Draft, ShapeContext, words
from ._common import (
    a_an,
    act,
    and_list,
    capital,
    field_words,
    find_calls,
    listing_calls,
    noun,
    opener,
    options_of,
    pick,
    say_value,
    shape,
)
from ._common import the as the_row
from .edits import shift

__all__ = ["copy_args", "retire_move"]

_RETIRE_VERBS = ("cancel", "withdraw", "void", "release", "drop", "discard", "retract")


def _stamps(ctx: ShapeContext, entity: Entity) -> set[str]:
    return {t.stamp for t in ctx.transitions(entity)}


def copy_args(ctx: ShapeContext, entity: Entity, row: dict[str, Any]) -> dict[str, Any] | None:
    """create_<entity> arguments that re-enter ``row`` (None when a field must be unique)."""
    out: dict[str, Any] = {}
    for f in entity.fields:
        if f.kind == "code" or f.name in _stamps(ctx, entity) or row[f.name] is None:
            continue
        if f.unique:
            return None
        out[f.name] = bool(row[f.name]) if f.kind == "bool" else row[f.name]
    return out


def retire_move(entity: Entity, status: str) -> Transition | None:
    """The move that cancels a row in ``status`` (cancel, withdraw, void, ...)."""
    return next((t for t in entity.lifecycle.transitions if status in t.sources
                 and t.verb in _RETIRE_VERBS), None) if entity.lifecycle else None


def _detail(ctx: ShapeContext, f: Field, value: Any) -> str:
    if f.kind == "bool":
        return f"{field_words(f)}: {say_value(ctx, f, value)}"
    return f"{field_words(f)} {say_value(ctx, f, value)}"


def _allowed_parents(ctx: ShapeContext, entity: Entity, ref: Field) -> list[str]:
    allowed = next((c.states for c in entity.constraints
                    if isinstance(c, RefInState) and c.ref == ref.name), None)
    parent = ctx.entity(ref.ref)
    where = f"WHERE status IN ({', '.join('?' for _ in allowed)})" if allowed else ""
    return [r["id"] for r in ctx.rows(f"SELECT id FROM {parent.plural} {where} ORDER BY id",
                                      *(allowed or ()))]


def _fresh_unique(ctx: ShapeContext, entity: Entity, f: Field, value: Any) -> Any:
    """A value for a unique field that no row has yet (or None)."""
    used = {r[0] for r in ctx.db.execute(f"SELECT {f.name} FROM {entity.plural}")}
    if f.kind == "email":
        local, _, domain = str(value).partition("@")
        candidates: list[Any] = [f"{local}.{n}@{domain}" for n in range(2, 9)]
    elif f.kind in ("int", "money"):
        top = max((v for v in used if v is not None), default=0)
        candidates = [top + 1] if f.max is None or top + 1 <= f.max else []
    else:
        candidates = [v for v in f.vocab if v not in used] or [f"{value} {n}" for n in (2, 3, 4)]
    return next((c for c in candidates if c not in used), None)


def _new_values(ctx: ShapeContext, entity: Entity) -> dict[str, Any] | None:
    """Stated values for a new row, modelled on an existing one (refs excluded)."""
    model = pick(ctx, ctx.rows(f"SELECT * FROM {entity.plural} ORDER BY id"))
    if model is None:
        return None
    values: dict[str, Any] = {}
    for f in entity.fields:
        if f.kind in ("ref", "code") or f.name in _stamps(ctx, entity) or not f.required:
            continue
        value = model[f.name]
        if f.unique:
            value = _fresh_unique(ctx, entity, f, value)
            if value is None:
                return None
        values[f.name] = bool(value) if f.kind == "bool" else value
    return values or None


def _clear_dates(ctx: ShapeContext, entity: Entity, values: dict[str, Any],
                 refs: dict[str, str]) -> None:
    """Move a new row's period past every existing one on its resource (no clash)."""
    for c in entity.constraints:
        if isinstance(c, NoOverlap) and c.start in values and c.end in values:
            resource = refs.get(c.resource, values.get(c.resource))
            last = ctx.db.execute(f"SELECT MAX({c.end}) FROM {entity.plural} WHERE "
                                  f"{c.resource} = ?", (resource,)).fetchone()[0]
            if last and last >= values[c.start]:
                gap = (dt.date.fromisoformat(last) - dt.date.fromisoformat(values[c.start])).days
                move = gap + ctx.rng.randint(3, 20)
                values[c.start], values[c.end] = (shift(values[c.start], move),
                                                  shift(values[c.end], move))


@shape("create_for_parent")
def create_for_parent(ctx: ShapeContext) -> Draft | None:
    """Create a record for named parent rows, with every required value stated."""
    entity = pick(ctx, [e for e in ctx.entities if e.creatable and ctx.refs(e)
                        and ctx.tool_exists(f"create_{e.name}")])
    if entity is None:
        return None
    refs: dict[str, str] = {}
    for ref in ctx.refs(entity):
        if ref.required:
            parent_id = pick(ctx, _allowed_parents(ctx, entity, ref))
            if parent_id is None:
                return None
            refs[ref.name] = parent_id
    values = _new_values(ctx, entity)
    if values is None:
        return None
    _clear_dates(ctx, entity, values, refs)
    owners = " and ".join(the_row(ctx, ctx.entity(entity.field(k).ref), v)
                          for k, v in refs.items())
    listed = and_list([_detail(ctx, entity.field(k), v) for k, v in values.items()])
    ask = pick(ctx, [
        f"Please add a new {noun(entity)} for {owners}, with {listed}.",
        f"Could you create {a_an(noun(entity))} under {owners}? Details: {listed}.",
        f"I need {a_an(noun(entity))} recorded for {owners}: {listed}."])
    why = opener(ctx, "A request came in by email this morning.",
                 "I'm entering the paperwork we received yesterday.")
    tool = f"create_{entity.name}"
    calls = [c for k, v in refs.items()
             for c in find_calls(ctx, ctx.entity(entity.field(k).ref), v)]
    calls.append([tool, {**refs, **values}])
    return Draft("create_for_parent", f"{why} {ask}", calls, None,
                 options_of(tool, entity.fields, values))


def _clashes(ctx: ShapeContext, entity: Entity, c: NoOverlap, row: dict[str, Any],
             start: str, end: str) -> list[dict[str, Any]]:
    marks = ", ".join("?" for _ in c.live_states)
    return ctx.rows(
        f"SELECT * FROM {entity.plural} WHERE {c.resource} = ? AND id <> ? AND status IN "
        f"({marks}) AND {c.start} < ? AND {c.end} > ? ORDER BY {c.start}",
        row[c.resource], row["id"], *c.live_states, end, start)


def _rebook_dates(ctx: ShapeContext, entity: Entity, c: NoOverlap, row: dict[str, Any],
                  live: list[dict[str, Any]], length: int) -> tuple[str, str] | None:
    """(the requested start, the start the rule gives), or None when it is not clear-cut."""
    others = [r for r in live if r[c.resource] == row[c.resource] and r["id"] != row["id"]]
    blocker = pick(ctx, others) if ctx.rng.random() < 0.7 else None
    if blocker is not None:
        wanted = shift(blocker[c.start], ctx.rng.randint(0, 1))
    else:
        wanted = shift(row[c.start], ctx.rng.randint(7, 40))
    if wanted < EPOCH.isoformat():
        return None
    clash = _clashes(ctx, entity, c, row, wanted, shift(wanted, length))
    if len(clash) > 1 or (blocker is not None and clash != [blocker]):
        return None
    start = clash[0][c.end] if clash else wanted
    if clash and _clashes(ctx, entity, c, row, start, shift(start, length)):
        return None
    return wanted, start


@shape("reschedule_conflict")
def reschedule_around_conflict(ctx: ShapeContext) -> Draft | None:
    """Re-book a record for a requested start; if that clashes with another live record on the
    same resource, start when the clashing one ends. The old record is cancelled."""
    options = [(e, c) for e in ctx.entities for c in e.constraints if isinstance(c, NoOverlap)
               and e.creatable and ctx.tool_exists(f"create_{e.name}")
               and (e.field(c.resource).kind == "ref" or e.field(c.resource).filterable)]
    entity, c = pick(ctx, options) or (None, None)
    if entity is None:
        return None
    live = ctx.rows(f"SELECT * FROM {entity.plural} WHERE status IN "
                    f"({', '.join('?' for _ in c.live_states)}) ORDER BY id", *c.live_states)
    row = pick(ctx, [r for r in live if r[c.start] >= EPOCH.isoformat()])
    cancel = retire_move(entity, row["status"]) if row else None
    args = copy_args(ctx, entity, row) if cancel else None
    if args is None:
        return None
    length = (dt.date.fromisoformat(row[c.end]) - dt.date.fromisoformat(row[c.start])).days
    dates = _rebook_dates(ctx, entity, c, row, live, length)
    if dates is None:
        return None
    wanted, start = dates
    target, thing = the_row(ctx, entity, row["id"]), noun(entity)
    resource = words(c.resource.removesuffix("_id"))
    ask = (f"Please rebook {target} to start on {wanted}, for the same {length} days: "
           f"{act(cancel, 'the current one')} and enter a new {thing} with the same details "
           f"and the new dates. " + pick(ctx, [
               f"If that clashes with another {thing} for the same {resource}, start it on the "
               "day the clashing one ends instead.",
               f"The {resource} may already be taken then: in that case, begin on the day the "
               f"other {thing} ends."]))
    why = opener(ctx, "The customer called to change their dates.",
                 "We need to rearrange the schedule.")
    calls = find_calls(ctx, entity, row["id"]) + listing_calls(
        ctx, entity, {c.resource: row[c.resource]})
    calls += [[f"{cancel.verb}_{entity.name}", {"id": row["id"]}],
              [f"create_{entity.name}", {**args, c.start: start, c.end: shift(start, length)}]]
    return Draft("reschedule_conflict", f"{why} {ask}", calls, None,
                 options_of(f"create_{entity.name}", entity.fields, args))


@shape("move_to_parent")
def move_to_parent(ctx: ShapeContext) -> Draft | None:
    """Move a record to another parent: cancel it and enter it again under the new parent."""
    options = [(e, r) for e in ctx.entities for r in ctx.refs(e) if r.required
               and e.creatable and ctx.tool_exists(f"create_{e.name}")]
    entity, ref = pick(ctx, options) or (None, None)
    if entity is None:
        return None
    row = pick(ctx, ctx.rows(f"SELECT * FROM {entity.plural} ORDER BY id"))
    cancel = retire_move(entity, row["status"]) if row and entity.lifecycle else None
    args = copy_args(ctx, entity, row) if cancel else None
    if args is None:
        return None
    parent = ctx.entity(ref.ref)
    new = pick(ctx, [p for p in _allowed_parents(ctx, entity, ref) if p != row[ref.name]])
    if new is None:
        return None
    target, thing = the_row(ctx, entity, row["id"]), noun(entity)
    old_p, new_p = the_row(ctx, parent, row[ref.name]), the_row(ctx, parent, new)
    ask = pick(ctx, [
        f"{capital(target)} was filed under {old_p} by mistake; it belongs to {new_p}. "
        f"Since that link can't be edited, {act(cancel, 'the wrong one')} and enter it again "
        f"under the right {words(parent.name)} with the same details.",
        f"Please move {target} from {old_p} to {new_p}: {act(cancel, 'it')}, then create the "
        f"same {thing} for {new_p}, copying every other detail."])
    why = opener(ctx, "We're cleaning up records that were filed in the wrong place.",
                 "A customer pointed out a filing mistake.")
    calls = (find_calls(ctx, entity, row["id"]) + find_calls(ctx, parent, new)
             + [[f"{cancel.verb}_{entity.name}", {"id": row["id"]}],
                [f"create_{entity.name}", {**args, ref.name: new}]])
    return Draft("move_to_parent", f"{why} {ask}", calls, None,
                 options_of(f"create_{entity.name}", entity.fields, args))
