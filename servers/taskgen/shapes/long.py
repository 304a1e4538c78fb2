"""Long-horizon shapes: 15 or more reference calls over two or more entity types, with at least
three distinct tools and a decision per record, never one move repeated N times."""

from __future__ import annotations

from typing import Any

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
    major,
    noun,
    numbers,
    opener,
    pick,
    shape,
    single_moves,
    updatable,
)
from ._common import the as the_row
from .decisions import forks, nice_between, say_number
from .questions import children, ref_pairs

__all__: list[str] = []

MAX_CALLS = 90


def _named_parents(ctx: ShapeContext, child, ref, state: str, want: int) -> list[str]:
    """Up to six parents, picked at random, whose children in ``state`` number ``want``+."""
    groups = ctx.db.execute(
        f"SELECT {ref.name}, COUNT(*) FROM {child.plural} WHERE status = ? GROUP BY {ref.name} "
        f"HAVING COUNT(*) >= 2 ORDER BY 1", (state,)).fetchall()
    ctx.rng.shuffle(groups)
    chosen, total = [], 0
    for parent_id, n in groups:
        if parent_id is None or total >= want or len(chosen) == 6:
            break
        chosen.append(parent_id)
        total += n
    return chosen if total >= want else []


def _split(ctx: ShapeContext, f, queue: list[dict[str, Any]]) -> tuple[Any, str] | None:
    """A threshold that splits ``queue`` on ``f`` with rows on both sides and none on it (a
    round number, or a date: "before" it is under), and how the prompt says "under" it."""
    values = sorted({r[f.name] for r in queue})
    if len(values) < 3:
        return None
    k = ctx.rng.randint(1, len(values) - 1)
    if f.kind == "date":
        return values[k], f"with {a_an(field_words(f))} before {values[k]}"
    unit = 100 if f.kind == "money" else 1
    cut = nice_between(values[k - 1] / unit, values[k] / unit)
    # "Under" is strict, so a seeded value as the threshold is still unambiguous.
    cut = values[k] if cut is None else int(cut * unit)
    return cut, f"with {field_words(f)} under {say_number(ctx, f, cut)}"


def _scope(ctx: ShapeContext, child, ref, parent, state: str):
    """(parents, the calls that find them, how the prompt names them)."""
    if parent.lifecycle and ctx.rng.random() < 0.5:
        pstate = pick(ctx, parent.lifecycle.states)
        parents = [r["id"] for r in ctx.rows(
            f"SELECT id FROM {parent.plural} WHERE status = ? ORDER BY id", pstate)]
        if 0 < len(parents) <= 40:
            return (parents, listing_calls(ctx, parent, {"status": pstate}),
                    f"every {noun(parent)} {in_state(ctx, pstate, False)}")
    parents = _named_parents(ctx, child, ref, state, 8)
    if not parents:
        return None
    names = [the_row(ctx, parent, p) for p in parents]
    return (parents, [c for p in parents for c in find_calls(ctx, parent, p)],
            and_list(names))


@shape("review_queue", long=True, tries=8)
def review_queue(ctx: ShapeContext) -> Draft | None:
    """Review every child in a state of some parents (those in a state, or named ones): one
    move for those under a threshold, another for the rest; report how many got the first."""
    options = [(c, r, p, s, a, b, f) for c, r, p in ref_pairs(ctx) for s, a, b in forks(c)
               for f in c.fields if f.required and f.kind in ("money", "int", "date")]
    child, ref, parent, state, hold, let_through, f = pick(ctx, options) or (None,) * 7
    if child is None:
        return None
    # Small amounts go through and large ones are held back; with dates, the old ones are.
    low_move, high_move = (hold, let_through) if f.kind == "date" else (let_through, hold)
    scope = _scope(ctx, child, ref, parent, state)
    if scope is None:
        return None
    parents, calls, named = scope
    queue = [r for p in parents for r in children(ctx, child, ref, p, state)]
    split = _split(ctx, f, queue) if len(queue) >= 6 else None
    if split is None:
        return None
    cut, under = split
    for p in parents:
        calls += listing_calls(ctx, child, {ref.name: p, "status": state})
    by_id = {r["id"]: r for r in queue}
    calls += [[f"{(low_move if by_id[i][f.name] < cut else high_move).verb}_{child.name}",
               {"id": i}] for i in sorted(by_id)]
    if len(calls) > MAX_CALLS:
        return None
    many = noun(child, True)
    ask = (f"Please go through the {many} {in_state(ctx, state)} of {named}. For each one "
           f"{under}, {act(low_move, 'it')}; "
           f"{act(high_move, 'the rest')}. "
           + pick(ctx, [f"When you're done, tell me how many are now {words(low_move.target)}.",
                        f"Then report how many of them ended up {words(low_move.target)}."]))
    why = opener(ctx, f"The {words(state)} queue has piled up and I want it cleared today.",
                 "We're catching up on a backlog before the end of the month.")
    low = sum(1 for r in queue if r[f.name] < cut)
    return Draft("review_queue", f"{why} {ask}", calls, {"type": "number", "value": low})


def _final_moves(entity) -> list:
    """Moves into a state no move leaves: what wrapping something up does."""
    sources = {s for t in entity.lifecycle.transitions for s in t.sources}
    return [t for t in single_moves(entity) if t.target not in sources]


def _child_moves(ctx: ShapeContext, child, ref, parent_id: str) -> list[tuple[str, Any]]:
    """(state, final move) pairs for the parent's children: one per state that has rows."""
    out = []
    for state in child.lifecycle.states:
        moves = [t for t in _final_moves(child) if state in t.sources]
        if moves and children(ctx, child, ref, parent_id, state, "id"):
            out.append((state, pick(ctx, moves)))
    return out


@shape("close_out", long=True, tries=8)
def close_out(ctx: ShapeContext) -> Draft | None:
    """Wrap up named parents: move their children of two states on (a different move per
    state), then move each parent itself, and report a total over the first group."""
    options = [(c, r, p) for c, r, p in ref_pairs(ctx) if p.lifecycle and _final_moves(p)]
    child, ref, parent = pick(ctx, options) or (None,) * 3
    if child is None:
        return None
    pmove = pick(ctx, _final_moves(parent))
    chosen, plan = [], None
    candidates = ctx.rows(f"SELECT id FROM {parent.plural} WHERE status IN "
                          f"({', '.join('?' for _ in pmove.sources)}) ORDER BY id",
                          *pmove.sources)
    ctx.rng.shuffle(candidates)
    for row in candidates:
        moves = _child_moves(ctx, child, ref, row["id"])
        if len(moves) < 2:
            continue
        plan = plan or ctx.rng.sample(moves, 2)
        if all(children(ctx, child, ref, row["id"], s, "id") for s, _ in plan):
            chosen.append(row["id"])
        if len(chosen) == 3:
            break
    if plan is None or not chosen:
        return None
    (s1, m1), (s2, m2) = plan
    # Neither move may feed the other's group, and the report names one target alone.
    if m1.target in (s2, m2.target) or m2.target == s1:
        return None
    calls: list[list[Any]] = []
    first: list[dict[str, Any]] = []
    for p in chosen:
        calls += find_calls(ctx, parent, p)
        group1 = children(ctx, child, ref, p, s1)
        group2 = children(ctx, child, ref, p, s2)
        first += group1
        calls += listing_calls(ctx, child, {ref.name: p, "status": s1})
        calls += listing_calls(ctx, child, {ref.name: p, "status": s2})
        calls += [[f"{m1.verb}_{child.name}", {"id": r["id"]}] for r in group1]
        calls += [[f"{m2.verb}_{child.name}", {"id": r["id"]}] for r in group2]
        calls.append([f"{pmove.verb}_{parent.name}", {"id": p}])
    if not 15 <= len(calls) <= MAX_CALLS:
        return None
    answer, report = _report(ctx, child, first, m1)
    names = [the_row(ctx, parent, p) for p in chosen]
    listed = and_list(names)
    many, mine = noun(child, True), its(parent)
    ask = (f"Please wrap up {listed}. For each, first {act(m1, f'{mine} {words(s1)} {many}')} and "
           f"{act(m2, f'{mine} {words(s2)} {many}')}; once that's done, "
           f"{act(pmove, f'the {noun(parent)} itself')}. {report}")
    why = opener(ctx, "We're closing the books on these before the quarter ends.",
                 "Management asked for these to be wrapped up this week.")
    return Draft("close_out", f"{why} {ask}", calls, answer)


def _report(ctx: ShapeContext, child, rows: list[dict[str, Any]], move) -> tuple[dict, str]:
    money = numbers(child, ("money",))
    if money and rows:
        f = money[0]
        total = sum(r[f.name] for r in rows)
        return ({"type": "money", "value": major(total), "currency": ctx.currency},
                f"Finally, tell me the total {field_words(f)} of the {noun(child, True)} you "
                f"moved to {words(move.target)}, in {ctx.currency}.")
    return ({"type": "number", "value": len(rows)},
            f"Finally, tell me how many {noun(child, True)} ended up {words(move.target)}.")


@shape("triage", long=True, tries=8)
def triage(ctx: ShapeContext) -> Draft | None:
    """Triage the children in a state of named parents: move on those on one side of a
    threshold, and for the rest set a field to a stated value; report how many were moved."""
    options = [(c, r, p, t, s, u, f) for c, r, p in ref_pairs(ctx) for t in single_moves(c)
               for s in t.sources if s not in c.lifecycle.frozen
               for u in updatable(ctx, c) if u.kind == "enum" and len(u.values) > 1
               for f in c.fields if f.required and f.kind in ("money", "int", "date")]
    child, ref, parent, move, state, tag, f = pick(ctx, options) or (None,) * 7
    if child is None:
        return None
    parents = _named_parents(ctx, child, ref, state, 10)
    queue = [r for p in parents for r in children(ctx, child, ref, p, state)]
    split = _split(ctx, f, queue) if len(queue) >= 8 else None
    if split is None:
        return None
    cut, under = split
    value = pick(ctx, tag.values)
    calls = [c for p in parents for c in find_calls(ctx, parent, p)]
    for p in parents:
        calls += listing_calls(ctx, child, {ref.name: p, "status": state})
    moved = [r for r in queue if r[f.name] < cut]
    calls += [[f"{move.verb}_{child.name}", {"id": r["id"]}] for r in moved]
    calls += [[f"update_{child.name}", {"id": r["id"], tag.name: value}]
              for r in queue if r[f.name] >= cut]
    if len(calls) > MAX_CALLS:
        return None
    names = and_list([the_row(ctx, parent, p) for p in parents])
    ask = (f"Please triage the {noun(child, True)} {in_state(ctx, state)} of {names}. "
           f"{capital(act(move, f'every one {under}'))}. For each of the others, set the "
           f"{field_words(tag)} to \"{value}\" instead. "
           + pick(ctx, [f"Tell me how many ended up {words(move.target)}.",
                        f"Then let me know how many you moved to {words(move.target)}."]))
    why = opener(ctx, "We're preparing for next week and need the list sorted out.",
                 "A backlog built up while the team was away.")
    return Draft("triage", f"{why} {ask}", calls, {"type": "number", "value": len(moved)},
                 [{"tool": f"update_{child.name}", "arguments": {tag.name: value}}])
