"""Shapes that ask a question about the data: counts, totals, lists, extremes, comparisons and
chains of references. Each names what it asks about and expects one normalised answer."""

from __future__ import annotations

from typing import Any

from agentworld.servers.world.spec import Entity, Field

from ._base import Draft, ShapeContext, words
from ._common import (
    a_an,
    capital,
    field_words,
    find_calls,
    in_state,
    its,
    listing_calls,
    major,
    noun,
    numbers,
    opener,
    pick,
    shape,
    the,
)

__all__ = ["ref_pairs", "children"]


def ref_pairs(ctx: ShapeContext, lifecycle: bool = True) -> list[tuple[Entity, Field, Entity]]:
    """(child, its ref field, parent) for every reference in the declaration."""
    return [(e, f, ctx.entity(f.ref)) for e in ctx.entities for f in ctx.refs(e)
            if e.lifecycle or not lifecycle]


def children(ctx: ShapeContext, child: Entity, ref: Field, parent_id: str,
             state: str | None = None, columns: str = "*") -> list[dict[str, Any]]:
    sql = f"SELECT {columns} FROM {child.plural} WHERE {ref.name} = ?"
    params: list[Any] = [parent_id]
    if state is not None:
        sql += " AND status = ?"
        params.append(state)
    return ctx.rows(sql + " ORDER BY id", *params)


def _group(ctx: ShapeContext, child: Entity, ref: Field, state: str | None,
           low: int = 2, high: int = 60) -> str | None:
    """A parent with between ``low`` and ``high`` children (in ``state``)."""
    where = "status = ?" if state else "1 = 1"
    params = (state,) if state else ()
    groups = ctx.db.execute(
        f"SELECT {ref.name} FROM {child.plural} WHERE {where} GROUP BY {ref.name} "
        f"HAVING COUNT(*) BETWEEN {low} AND {high} ORDER BY 1", params).fetchall()
    return pick(ctx, [g[0] for g in groups])


def _named_group(ctx: ShapeContext, low: int = 2, high: int = 60):
    """(child, ref, parent, state, parent id): a parent with ``low``-``high`` children in a
    state, or None."""
    child, ref, parent = pick(ctx, ref_pairs(ctx)) or (None, None, None)
    if child is None:
        return None
    state = pick(ctx, child.lifecycle.states)
    parent_id = _group(ctx, child, ref, state, low, high)
    return None if parent_id is None else (child, ref, parent, state, parent_id)


def _filters(ref: Field, parent_id: str, state: str | None) -> dict[str, Any]:
    return {ref.name: parent_id, **({"status": state} if state else {})}


@shape("count")
def count_children(ctx: ShapeContext) -> Draft | None:
    """How many children in a state a named parent has."""
    group = _named_group(ctx)
    if group is None:
        return None
    child, ref, parent, state, parent_id = group
    n = len(children(ctx, child, ref, parent_id, state, "id"))
    who, many = the(ctx, parent, parent_id), noun(child, True)
    ask = pick(ctx, [
        f"How many {many} {in_state(ctx, state)} does {who} have? Just the number, please.",
        f"Could you tell me the number of {many} {in_state(ctx, state)} under {who}?",
        f"I need a count: {many} of {who} {in_state(ctx, state)}. How many are there?"])
    why = opener(ctx, "I'm putting together a status summary.",
                 f"Someone asked me how busy one of our {noun(parent, True)} is.")
    calls = find_calls(ctx, parent, parent_id) + listing_calls(
        ctx, child, _filters(ref, parent_id, state))
    return Draft("count", f"{why} {ask}", calls, {"type": "number", "value": n})


@shape("total")
def total_of_children(ctx: ShapeContext) -> Draft | None:
    """The total of a number over a named parent's children in a state."""
    options = [(c, r, p, f) for c, r, p in ref_pairs(ctx) for f in numbers(c)]
    child, ref, parent, number = pick(ctx, options) or (None,) * 4
    if child is None:
        return None
    state = pick(ctx, child.lifecycle.states)
    parent_id = _group(ctx, child, ref, state)
    if parent_id is None:
        return None
    total = sum(r[number.name] for r in children(ctx, child, ref, parent_id, state, number.name))
    if total <= 0:
        return None
    who, many, what = the(ctx, parent, parent_id), noun(child, True), words(number.name)
    if number.kind == "money":
        answer = {"type": "money", "value": major(total), "currency": ctx.currency}
        unit = f" Give the amount in {ctx.currency}."
    else:
        answer, unit = {"type": "number", "value": total}, ""
    ask = pick(ctx, [
        f"What is the total {what} of the {many} of {who} {in_state(ctx, state)}?",
        f"Add up the {what} over all {many} {in_state(ctx, state)} for {who}: what does it "
        "come to?",
        f"I need the combined {what} of {who}'s {many} {in_state(ctx, state)}."])
    why = opener(ctx, f"I need the {what} figure for a report.",
                 "I'm checking the numbers before a review meeting.")
    calls = find_calls(ctx, parent, parent_id) + listing_calls(
        ctx, child, _filters(ref, parent_id, state))
    return Draft("total", f"{why} {ask}{unit}", calls, answer)


@shape("list_labels")
def list_children(ctx: ShapeContext) -> Draft | None:
    """The labels of a named parent's children in a state (answer: a list)."""
    group = _named_group(ctx, 2, 6)
    if group is None:
        return None
    child, ref, parent, state, parent_id = group
    labels = [r[child.label] for r in children(ctx, child, ref, parent_id, state, child.label)]
    if len(set(labels)) != len(labels):
        return None
    who, many, label = the(ctx, parent, parent_id), noun(child, True), words(child.label)
    ask = pick(ctx, [
        f"Which {many} {in_state(ctx, state)} does {who} have? List their {label}s.",
        f"Give me the {label} of every {noun(child)} of {who} {in_state(ctx, state, False)}.",
        f"List the {many} of {who} {in_state(ctx, state)}, by {label}."])
    why = opener(ctx, "I'm following up on a few open items.",
                 "I have a call later and want the list in front of me.")
    calls = find_calls(ctx, parent, parent_id) + listing_calls(
        ctx, child, _filters(ref, parent_id, state))
    return Draft("list_labels", f"{why} {ask}", calls,
                 {"type": "list", "value": sorted(labels),
                  "domain": {"table": child.plural, "column": child.label}})


@shape("earliest_latest")
def extreme_date(ctx: ShapeContext) -> Draft | None:
    """Which of a named parent's children has the earliest or latest date (answer: its label)."""
    options = [(c, r, p, f) for c, r, p in ref_pairs(ctx) for f in c.fields
               if f.kind == "date" and f.required]
    child, ref, parent, date = pick(ctx, options) or (None,) * 4
    if child is None:
        return None
    state = pick(ctx, [None, *child.lifecycle.states])
    parent_id = _group(ctx, child, ref, state, 2, 40)
    if parent_id is None:
        return None
    latest = ctx.rng.random() < 0.5
    rows = sorted(children(ctx, child, ref, parent_id, state),
                  key=lambda r: r[date.name], reverse=latest)
    best = rows[0]
    who, many, when = the(ctx, parent, parent_id), noun(child, True), field_words(date)
    scope = f" {in_state(ctx, state)}" if state else ""
    word = "latest" if latest else "earliest"
    calls = find_calls(ctx, parent, parent_id) + listing_calls(
        ctx, child, _filters(ref, parent_id, state))
    why = opener(ctx, "I'm planning the next steps.",
                 f"I want to deal with these {many} in date order.")
    if ctx.rng.random() < 0.35:
        # The date itself: ties do not matter.
        ask = pick(ctx, [f"What is the {word} {when} among the {many} of {who}{scope}?",
                         f"Across the {many} of {who}{scope}, when is the {word} {when}?"])
        return Draft("earliest_latest", f"{why} {ask}", calls,
                     {"type": "date", "value": best[date.name]})
    if rows[1][date.name] == best[date.name] or [
            r[child.label] for r in rows].count(best[child.label]) > 1:
        return None
    ask = pick(ctx, [
        f"Among the {many} of {who}{scope}, which one has the {word} {when}? Tell me its "
        f"{words(child.label)}.",
        f"Which {noun(child)} of {who}{scope} comes {'last' if latest else 'first'} by "
        f"{when}? I only need its {words(child.label)}."])
    return Draft("earliest_latest", f"{why} {ask}", calls,
                 {"type": "text", "value": best[child.label],
                  "domain": {"table": child.plural, "column": child.label}})


def _measure(child: Entity, number: Field | None) -> str:
    return f"COALESCE(SUM({number.name}), 0)" if number else "COUNT(*)"


@shape("compare_parents")
def compare_parents(ctx: ShapeContext) -> Draft | None:
    """Compare parents on their children in a state: how far apart two named parents are, or
    which parent of all leads (by count or by a money total)."""
    options = [(c, r, p, f) for c, r, p in ref_pairs(ctx) for f in [None, *numbers(c, ("money",))]]
    child, ref, parent, number = pick(ctx, options) or (None,) * 4
    if child is None:
        return None
    state = pick(ctx, child.lifecycle.states)
    scores = dict(ctx.db.execute(
        f"SELECT {ref.name}, {_measure(child, number)} FROM {child.plural} WHERE status = ? "
        f"AND {ref.name} IS NOT NULL GROUP BY {ref.name} ORDER BY 1", (state,)).fetchall())
    if len(scores) < 2:
        return None
    if ctx.rng.random() < 0.5:
        return _leader(ctx, child, ref, parent, number, state, scores)
    a, b = ctx.rng.sample(sorted(scores), 2)
    if scores[a] <= scores[b] or ctx.label(parent, a) == ctx.label(parent, b):
        return None
    gap = scores[a] - scores[b]
    one, two = the(ctx, parent, a), the(ctx, parent, b)
    if number:
        what = f"total {words(number.name)} of their {noun(child, True)} {in_state(ctx, state)}"
        ask = (f"How much higher is the {what} for {one} than for {two}? Give the difference "
               f"in {ctx.currency}.")
        answer = {"type": "money", "value": major(gap), "currency": ctx.currency}
    else:
        many = f"{noun(child, True)} {in_state(ctx, state)}"
        ask = pick(ctx, [f"How many more {many} does {one} have than {two}?",
                         f"Compared with {two}, how many more {many} does {one} have?"])
        answer = {"type": "number", "value": gap}
    why = opener(ctx, f"I'm comparing two {noun(parent, True)} for a planning meeting.",
                 f"We can only prioritise one {noun(parent)} this week.")
    calls = (find_calls(ctx, parent, a) + find_calls(ctx, parent, b)
             + listing_calls(ctx, child, _filters(ref, a, state))
             + listing_calls(ctx, child, _filters(ref, b, state)))
    return Draft("compare_parents", f"{why} {ask}", calls, answer)


def _leader(ctx: ShapeContext, child: Entity, ref: Field, parent: Entity,
            number: Field | None, state: str, scores: dict[str, int]) -> Draft | None:
    ranked = sorted(scores.values(), reverse=True)
    if ranked[0] == ranked[1]:
        return None
    best = max(scores, key=scores.get)
    if not ctx.unique_label(parent, best):
        return None
    if number:
        what = (f"the largest total {words(number.name)} across {its(parent)} {noun(child, True)} "
                f"{in_state(ctx, state)}")
    else:
        what = f"the most {noun(child, True)} {in_state(ctx, state)}"
    ask = pick(ctx, [f"Which {noun(parent)} has {what}? Give me {its(parent)} "
                     f"{words(parent.label)}.",
                     f"Tell me the {words(parent.label)} of the {noun(parent)} with {what}."])
    why = opener(ctx, "I'm preparing a ranking for the weekly report.",
                 f"I want to know where the load is heaviest across our {noun(parent, True)}.")
    calls = listing_calls(ctx, child, {"status": state})
    calls.append([f"get_{parent.name}", {"id": best}])
    return Draft("compare_parents", f"{why} {ask}", calls,
                 {"type": "text", "value": ctx.label(parent, best),
                  "domain": {"table": parent.plural, "column": parent.label}})


@shape("follow_refs")
def follow_references(ctx: ShapeContext) -> Draft | None:
    """A chain: from a named row to its parent, and from that parent to the grandparent."""
    chains = [(c, r1, ctx.entity(r1.ref), r2) for c in ctx.entities for r1 in ctx.refs(c)
              for r2 in ctx.refs(ctx.entity(r1.ref))]
    child, r1, middle, r2 = pick(ctx, chains) or (None,) * 4
    if child is None:
        return None
    top = ctx.entity(r2.ref)
    row = pick(ctx, ctx.rows(f"SELECT id, {r1.name} FROM {child.plural} ORDER BY id"))
    if row is None:
        return None
    mid_id = row[r1.name]
    if mid_id is None:
        return None
    top_id = ctx.db.execute(f"SELECT {r2.name} FROM {middle.plural} WHERE id = ?",
                            (mid_id,)).fetchone()[0]
    if top_id is None or not ctx.unique_label(top, top_id):
        return None
    start = the(ctx, child, row["id"])
    ask = pick(ctx, [
        f"{capital(start)} belongs to {a_an(noun(middle))}. Which {noun(top)} is that "
        f"{noun(middle)} under? Give me the {noun(top)}'s {words(top.label)}.",
        f"Find the {noun(middle)} that {start} belongs to, then tell me the "
        f"{words(top.label)} of the {noun(top)} that {noun(middle)} belongs to."])
    why = opener(ctx, f"I need to know who to contact about {a_an(noun(child))}.",
                 f"I'm tracing {a_an(noun(child))} back to where it comes from.")
    calls = find_calls(ctx, child, row["id"]) + [[f"get_{middle.name}", {"id": mid_id}],
                                                  [f"get_{top.name}", {"id": top_id}]]
    return Draft("follow_refs", f"{why} {ask}", calls,
                 {"type": "text", "value": ctx.label(top, top_id),
                  "domain": {"table": top.plural, "column": top.label}})
