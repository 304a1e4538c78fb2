"""Shapes that need a decision: act one way or another on a condition, bring a list of records
to a state, fix the records that break a stated policy, find a record through its parent and act
on it."""

from __future__ import annotations

from typing import Any

from agentworld.servers.world.spec import Entity, Field, Transition

from ._base import Draft, ShapeContext, words
from ._common import (
    a_an,
    act,
    and_list,
    capital,
    field_words,
    find_calls,
    in_state,
    its,
    listing_calls,
    money_text,
    noun,
    numbers,
    opener,
    pick,
    shape,
    single_moves,
)
from ._common import the as the_row
from .questions import children, ref_pairs

__all__ = ["nice_between", "say_number", "forks", "a_an", "condition", "decision"]


def nice_between(low: float, high: float) -> int | None:
    """A round number strictly between ``low`` and ``high`` (the roundest there is)."""
    if high - low < 2:
        return None
    step = 10 ** len(str(int(high - low)))
    while step >= 1:
        value = (int(low) // step + 1) * step
        if low < value < high:
            return value
        step //= 10
    return None


def say_number(ctx: ShapeContext, f: Field, value: int) -> str:
    if f.kind == "money":
        return money_text(ctx, value)
    return str(value) if "year" in f.name else f"{value:,}"


# Moves that hold a record back (refuse, cancel, escalate); their counterparts let it through.
_HOLD_BACK = ("reject", "decline", "deny", "refuse", "cancel", "withdraw", "void", "dismiss",
              "disqualify", "fail", "suspend", "block", "hold", "defer", "refer", "escalate",
              "flag", "expire", "retire", "remove", "hide", "ban", "revoke", "lapse", "drop",
              "skip", "request", "send_back", "return_to_sender", "pause", "delay", "postpone",
              "put_on_hold", "place_on_hold", "place_credit_hold", "freeze", "quarantine",
              "halt", "stop", "ground", "lock")


# Parent numbers that read as a limit on a child's number ("approval limit", "max amount").
_LIMITS = ("limit", "max", "cap", "threshold", "budget", "ceiling", "allowance", "capacity")


def _stems(name: str) -> set[str]:
    return {w.removesuffix("s") for w in name.split("_")}


def _bounds(limit: Field, f: Field) -> bool:
    """Whether a parent's number reads as a limit on a child's number: an approval limit on an
    amount, a page limit on pages, a seated capacity on a guest count."""
    if not any(w in limit.name for w in _LIMITS):
        return False
    return (f.kind == "money" or bool(_stems(f.name) & _stems(limit.name))
            or ("capacity" in limit.name and f.name.endswith("count")))


def _holds_back(t: Transition) -> bool:
    return t.verb.startswith(_HOLD_BACK) or t.verb.startswith("mark_fail")


def forks(entity: Entity) -> list[tuple[str, Transition, Transition]]:
    """(state, hold-back move, let-through move): two moves out of one state, one that holds a
    record back and one that does not. Only such pairs make a natural either/or decision."""
    moves = single_moves(entity)
    return [(s, a, b) for a in moves if _holds_back(a) for b in moves
            if not _holds_back(b) and a.target != b.target
            for s in a.sources if s in b.sources]


def _threshold(ctx: ShapeContext, f: Field, value: int, others: list[int],
               over: float = 0.5) -> int | None:
    """A round threshold with no seeded value on it: below ``value`` (the row is over it) with
    probability ``over``, else above."""
    unit = 100 if f.kind == "money" else 1
    near = sorted({v for v in others if v != value})
    below = [v for v in near if v < value]
    above = [v for v in near if v > value]
    if ctx.rng.random() < over and below:
        cut = nice_between(below[-1] / unit, value / unit)
    elif above:
        cut = nice_between(value / unit, above[0] / unit)
    else:
        return None
    return None if cut is None else int(cut * unit)


def condition(ctx: ShapeContext, entity: Entity, row: dict[str, Any], f: Field,
              over: float = 0.5) -> tuple[bool, str, list[list[Any]]] | None:
    """A limit on ``row``'s number ``f``: its parent's (when one reads as a limit on it) or a
    stated round one. Returns (whether the row is over it, how the prompt says it, the calls
    that read it beyond finding the row)."""
    limits = [(r, g) for r in ctx.refs(entity) for g in numbers(ctx.entity(r.ref), (f.kind,))
              if row[r.name] is not None and _bounds(g, f)]
    if limits and ctx.rng.random() < 0.6:
        ref, g = pick(ctx, limits)
        parent = ctx.entity(ref.ref)
        limit = ctx.db.execute(f"SELECT {g.name} FROM {parent.plural} WHERE id = ?",
                               (row[ref.name],)).fetchone()[0]
        if limit is None or limit == row[f.name]:
            return None
        return (row[f.name] > limit, f"the {field_words(g)} of its {noun(parent)}",
                [[f"get_{parent.name}", {"id": row[ref.name]}]])
    others = [r[0] for r in ctx.db.execute(f"SELECT {f.name} FROM {entity.plural}")]
    limit = _threshold(ctx, f, row[f.name], others, over)
    if limit is None:
        return None
    return row[f.name] > limit, say_number(ctx, f, limit), []


def decision(ctx: ShapeContext, entities: list[Entity]):
    """(entity, state, hold-back move, let-through move, number, row in that state)."""
    # People are not approved or refused on a number; their records are.
    options = [(e, s, a, b, f) for e in entities if e.field(e.label).kind != "name"
               for s, a, b in forks(e) for f in numbers(e)]
    entity, state, a, b, f = pick(ctx, options) or (None,) * 5
    if entity is None:
        return None
    row = pick(ctx, ctx.rows(f"SELECT * FROM {entity.plural} WHERE status = ? ORDER BY id",
                             state))
    return None if row is None else (entity, state, a, b, f, row)


@shape("conditional_update")
def conditional_update(ctx: ShapeContext) -> Draft | None:
    """If a record's number is over a limit (stated, or its parent's), one move, else another."""
    made = decision(ctx, list(ctx.entities))
    if made is None:
        return None
    entity, state, a, b, f, row = made
    cond = condition(ctx, entity, row, f)
    if cond is None:
        return None
    over, bound, reads = cond
    target = the_row(ctx, entity, row["id"])
    ask = pick(ctx, [
        f"{capital(target)} is {words(state)} and needs a decision. If its "
        f"{field_words(f)} is over {bound}, {act(a, 'it')}; otherwise {act(b, 'it')}.",
        f"Please look at {target}: when its {field_words(f)} is more than {bound}, "
        f"{act(a, 'it')}, and if not, {act(b, 'it')}."])
    why = opener(ctx, "I'm working through the decision queue.",
                 "Our policy sets a limit, and this one is on my desk.")
    calls = find_calls(ctx, entity, row["id"]) + reads
    calls.append([f"{(a if over else b).verb}_{entity.name}", {"id": row["id"]}])
    return Draft("conditional_update", f"{why} {ask}", calls)


@shape("reconcile")
def reconcile(ctx: ShapeContext) -> Draft | None:
    """Bring a named list of records to one state, leaving those already there alone."""
    options = [(e, t) for e in ctx.entities for t in single_moves(e)]
    entity, t = pick(ctx, options) or (None, None)
    if entity is None:
        return None
    done = ctx.rows(f"SELECT id FROM {entity.plural} WHERE status = ? ORDER BY id", t.target)
    todo = ctx.rows(f"SELECT id FROM {entity.plural} WHERE status IN "
                    f"({', '.join('?' for _ in t.sources)}) ORDER BY id", *t.sources)
    if not done or len(todo) < 2:
        return None
    keep = ctx.rng.sample([r["id"] for r in done], min(len(done), ctx.rng.randint(1, 2)))
    move = ctx.rng.sample([r["id"] for r in todo], min(len(todo), ctx.rng.randint(2, 4)))
    ids = sorted(keep + move, key=lambda _: ctx.rng.random())
    labels = [ctx.label(entity, i) for i in ids]
    if len(set(labels)) != len(labels) or max(len(str(x)) for x in labels) > 40:
        return None
    names = [ctx.name_of(entity, i) for i in ids]
    listed = and_list(names)
    state = words(t.target)
    ask = pick(ctx, [
        f"These {noun(entity, True)} should all be {state}: {listed}. Some may be already; "
        f"leave those as they are and {act(t, 'the rest')}.",
        f"Please make sure each of the {noun(entity, True)} {listed} ends up {state}. Don't "
        f"touch the ones that already are."])
    why = opener(ctx, "I'm reconciling our list against the system.",
                 "A colleague sent me a list and I want the system to match it.")
    calls = [c for i in ids for c in find_calls(ctx, entity, i)]
    calls += [[f"{t.verb}_{entity.name}", {"id": i}] for i in ids if i in move]
    return Draft("reconcile", f"{why} {ask}", calls)


def _policy_rule(ctx: ShapeContext, entity: Entity, rows: list[dict[str, Any]]):
    """(rule text, the rows that break it) on a number or a date of ``rows``."""
    fields = [f for f in entity.fields if f.required and f.kind in ("money", "int", "date")]
    f = pick(ctx, fields)
    if f is None or len(rows) < 4:
        return None
    values = sorted({r[f.name] for r in rows}, reverse=f.kind != "date")
    if len(values) < 4:
        return None
    k = ctx.rng.randint(2, min(6, len(values) - 1))
    if f.kind == "date":
        cut = values[k]
        broken = [r for r in rows if r[f.name] < cut]
        return f"{a_an(field_words(f))} before {cut}", broken
    cut = nice_between(values[k] / (100 if f.kind == "money" else 1),
                       values[k - 1] / (100 if f.kind == "money" else 1))
    if cut is None:
        return None
    cut *= 100 if f.kind == "money" else 1
    broken = [r for r in rows if r[f.name] > cut]
    return f"{a_an(field_words(f))} above {say_number(ctx, f, cut)}", broken


@shape("fix_policy")
def fix_policy(ctx: ShapeContext) -> Draft | None:
    """Apply a stated rule: every record in a state over a limit (or past a date) is moved on."""
    options = [(e, t, s) for e in ctx.entities for t in single_moves(e) for s in t.sources]
    entity, t, state = pick(ctx, options) or (None,) * 3
    if entity is None:
        return None
    rows = ctx.rows(f"SELECT * FROM {entity.plural} WHERE status = ? ORDER BY id", state)
    rule = _policy_rule(ctx, entity, rows)
    if rule is None or not 2 <= len(rule[1]) <= 8:
        return None
    text, broken = rule
    many = noun(entity, True)
    ask = pick(ctx, [
        f"Our rule is that no {words(state)} {noun(entity)} may have {text}. Please "
        f"{act(t, 'every one that breaks it')} and tell me how many that was.",
        f"{many.capitalize()} {in_state(ctx, state)} with {text} are not allowed any more. "
        f"{act(t, 'each of them').capitalize()}, leave the others alone, and report how many "
        "you changed."])
    why = opener(ctx, "We're tightening our rules after an audit.",
                 "Compliance asked us to clean up the records that break the new policy.")
    calls = listing_calls(ctx, entity, {"status": state})
    calls += [[f"{t.verb}_{entity.name}", {"id": r["id"]}] for r in broken]
    return Draft("fix_policy", f"{why} {ask}", calls, {"type": "number", "value": len(broken)})


@shape("find_then_act")
def find_then_act(ctx: ShapeContext) -> Draft | None:
    """Find a parent by its name, then act on its child with the latest date (or largest
    number) in a state."""
    options = [(c, r, p, t, s, f) for c, r, p in ref_pairs(ctx) for t in single_moves(c)
               for s in t.sources for f in c.fields
               if f.required and f.kind in ("date", "money", "int")]
    child, ref, parent, t, state, f = pick(ctx, options) or (None,) * 6
    if child is None:
        return None
    groups = ctx.db.execute(
        f"SELECT {ref.name} FROM {child.plural} WHERE status = ? GROUP BY {ref.name} "
        f"HAVING COUNT(*) BETWEEN 2 AND 60 ORDER BY 1", (state,)).fetchall()
    parent_id = pick(ctx, [g[0] for g in groups])
    if parent_id is None:
        return None
    top = ctx.rng.random() < 0.6
    rows = sorted(children(ctx, child, ref, parent_id, state), key=lambda r: r[f.name],
                  reverse=top)
    if rows[0][f.name] == rows[1][f.name]:
        return None
    if f.kind == "date":
        which = f"the {'latest' if top else 'earliest'} {field_words(f)}"
    else:
        which = f"the {'largest' if top else 'smallest'} {field_words(f)}"
    who = the_row(ctx, parent, parent_id)
    obj = f"{its(parent)} {words(state)} {noun(child)} with {which}"
    ask = pick(ctx, [f"Find {who} and {act(t, obj)}.",
                     f"For {who}, please {act(t, obj)}. Leave {its(parent)} other "
                     f"{noun(child, True)} alone."])
    why = opener(ctx, "I just got off the phone about this.",
                 "This came up in today's stand-up.")
    calls = find_calls(ctx, parent, parent_id) + listing_calls(
        ctx, child, {ref.name: parent_id, "status": state})
    calls.append([f"{t.verb}_{child.name}", {"id": rows[0]["id"]}])
    return Draft("find_then_act", f"{why} {ask}", calls)
