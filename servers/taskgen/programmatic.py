"""Programmatic tasks for synthesized environments: problems with real control flow.

Each template is a small program over the archetype's declaration (which entity has which
lifecycle, references and numbers): it queries the template database for a situation worth
asking about, computes the answer and the required end state, and writes the reference
solution (the calls a careful agent makes, paging included). The verifier checks the end state
and the answer over (initial database, final database, answer).
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from typing import Any

from agentworld.servers.world.compile import CompiledEnvironment
from agentworld.servers.world.spec import Entity

from .record import TaskRecord

__all__ = ["programmatic_tasks", "TEMPLATES"]

PAGE = 100


def _words(name: str) -> str:
    return name.replace("_", " ")


def _page_calls(tool: str, filters: dict[str, Any], total: int) -> list[list[Any]]:
    calls = []
    for offset in range(0, max(total, 1), PAGE):
        args = {**filters, "limit": PAGE}
        if offset:
            args["cursor"] = str(offset)
        calls.append([tool, args])
    return calls


def _label(db: sqlite3.Connection, entity: Entity, row_id: str) -> str:
    return db.execute(f"SELECT {entity.label} FROM {entity.plural} WHERE id = ?",
                      (row_id,)).fetchone()[0]


def _refs(entity: Entity):
    return [f for f in entity.fields if f.kind == "ref"]


def _looked_up(entity: Entity, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "called", "tool": f"search_{entity.plural}", "arguments": arguments,
            "points": 1, "name": f"looked up the {_words(entity.plural)}"}


def _bulk_transition(c: CompiledEnvironment, db, rng: random.Random, long: bool):
    """Move every row of one state with a date before a cut-off along a transition."""
    options = [(e, t) for e in c.archetype.entities if e.lifecycle
               for t in e.lifecycle.transitions if len(t.sources) == 1
               and any(f.kind == "date" and f.required for f in e.fields)]
    if not options:
        return None
    entity, t = rng.choice(options)
    date_field = rng.choice([f for f in entity.fields if f.kind == "date" and f.required])
    source = t.sources[0]
    dates = sorted(r[0] for r in db.execute(
        f"SELECT {date_field.name} FROM {entity.plural} WHERE status = ?", (source,)))
    low, high = (13, 30) if long else (2, 6)
    if len(dates) < low:
        return None
    k = rng.randint(low, min(high, len(dates)))
    cutoff = dates[k - 1]
    # Every row dated on or before the cut-off: ties included, so count again.
    targets = [r[0] for r in db.execute(
        f"SELECT id FROM {entity.plural} WHERE status = ? AND {date_field.name} <= ? "
        f"ORDER BY id", (source, cutoff))]
    total = db.execute(f"SELECT COUNT(*) FROM {entity.plural} WHERE status = ?",
                       (source,)).fetchone()[0]
    noun = _words(entity.plural)
    prompt = (f"{_words(t.verb).capitalize()} every {source} {_words(entity.name)} whose "
              f"{_words(date_field.name)} is on or before {cutoff} (and no other). Then report "
              f"how many {noun} you changed.")
    calls = _page_calls(f"search_{entity.plural}", {"status": source}, total)
    calls += [[f"{t.verb}_{entity.name}", {"id": i}] for i in targets]
    checks = [{"kind": "row_values", "table": entity.plural, "match": {"id": i},
               "expect": {"status": t.target}, "points": 1, "name": f"{i} {t.target}"}
              for i in targets]
    checks += [{"kind": "answer_includes", "values": [len(targets)], "points": 2,
                "name": "answer: how many"},
               {"kind": "count_changed", "table": entity.plural, "expected": len(targets),
                "points": 1, "guard": True, "name": f"no other {noun} changed"}]
    return prompt, calls, checks, str(len(targets))


def _sum_of_field(c: CompiledEnvironment, db, rng: random.Random, long: bool):
    """Total a number over the rows of one referred parent in one state."""
    options = [(e, f, r) for e in c.archetype.entities if e.lifecycle
               for f in e.fields if f.kind in ("money", "int") and f.required
               for r in _refs(e)]
    if not options:
        return None
    entity, number, ref = rng.choice(options)
    parent = c.archetype.entity(ref.ref)
    state = rng.choice(entity.lifecycle.states)
    groups = db.execute(
        f"SELECT {ref.name}, COUNT(*), SUM({number.name}) FROM {entity.plural} WHERE status = ? "
        f"GROUP BY {ref.name} HAVING COUNT(*) >= 2 AND SUM({number.name}) > 1 ORDER BY 1",
        (state,)).fetchall()
    if not groups:
        return None
    parent_id, count, total = rng.choice(groups)
    unit = " (in cents)" if number.kind == "money" else ""
    prompt = (f"What is the total {_words(number.name)}{unit} of all {state} "
              f"{_words(entity.plural)} of {_words(parent.name)} "
              f'"{_label(db, parent, parent_id)}" ({parent_id})? Answer with the number.')
    calls = _page_calls(f"search_{entity.plural}", {ref.name: parent_id, "status": state}, count)
    checks = [{"kind": "answer_includes", "values": [total], "points": 1, "name": "answer: total"},
              _looked_up(entity, {ref.name: parent_id})]
    return prompt, calls, checks, str(total)


def _update_the_largest(c: CompiledEnvironment, db, rng: random.Random, long: bool):
    """Find the row with the largest number among a parent's rows and move it on."""
    options = [(e, f, r, t) for e in c.archetype.entities if e.lifecycle
               for f in e.fields if f.kind in ("money", "int") and f.required
               for r in _refs(e) for t in e.lifecycle.transitions if len(t.sources) == 1]
    if not options:
        return None
    entity, number, ref, t = rng.choice(options)
    parent = c.archetype.entity(ref.ref)
    source = t.sources[0]
    rows = db.execute(
        f"SELECT {ref.name}, id, {number.name} FROM {entity.plural} WHERE status = ? "
        f"ORDER BY {ref.name}, {number.name} DESC, id", (source,)).fetchall()
    by_parent: dict[str, list] = {}
    for parent_id, row_id, value in rows:
        by_parent.setdefault(parent_id, []).append((row_id, value))
    # A clear winner: at least two rows, and no tie for the largest value.
    eligible = [(p, rs) for p, rs in sorted(by_parent.items())
                if len(rs) >= 2 and rs[0][1] != rs[1][1]]
    if not eligible:
        return None
    parent_id, candidates = rng.choice(eligible)
    winner = candidates[0][0]
    prompt = (f"Among the {source} {_words(entity.plural)} of {_words(parent.name)} "
              f'"{_label(db, parent, parent_id)}" ({parent_id}), find the one with the highest '
              f"{_words(number.name)} and {_words(t.verb)} it. Change nothing else.")
    calls = _page_calls(f"search_{entity.plural}", {ref.name: parent_id, "status": source},
                        len(candidates))
    calls.append([f"{t.verb}_{entity.name}", {"id": winner}])
    checks = [{"kind": "row_values", "table": entity.plural, "match": {"id": winner},
               "expect": {"status": t.target}, "points": 2, "name": f"{winner} {t.target}"},
              {"kind": "count_changed", "table": entity.plural, "expected": 1, "points": 1,
               "guard": True, "name": "only that one changed"}]
    return prompt, calls, checks, None


def _count_in_state(c: CompiledEnvironment, db, rng: random.Random, long: bool):
    options = [(e, r) for e in c.archetype.entities if e.lifecycle for r in _refs(e)]
    if not options:
        return None
    entity, ref = rng.choice(options)
    parent = c.archetype.entity(ref.ref)
    state = rng.choice(entity.lifecycle.states)
    groups = db.execute(
        f"SELECT {ref.name}, COUNT(*) FROM {entity.plural} WHERE status = ? GROUP BY {ref.name} "
        f"HAVING COUNT(*) >= 2 ORDER BY 1", (state,)).fetchall()
    if not groups:
        return None
    parent_id, count = rng.choice(groups)
    prompt = (f"How many {state} {_words(entity.plural)} does {_words(parent.name)} "
              f'"{_label(db, parent, parent_id)}" ({parent_id}) have? Answer with the number.')
    calls = _page_calls(f"search_{entity.plural}", {ref.name: parent_id, "status": state}, count)
    checks = [{"kind": "answer_includes", "values": [count], "points": 1, "name": "answer: count"},
              _looked_up(entity, {ref.name: parent_id})]
    return prompt, calls, checks, str(count)


TEMPLATES: dict[str, Callable] = {"bulk_transition": _bulk_transition, "sum": _sum_of_field,
                                  "largest": _update_the_largest, "count": _count_in_state}


def programmatic_tasks(compiled: CompiledEnvironment, db: sqlite3.Connection,
                       rng: random.Random, *, count: int, long: bool = False,
                       start: int = 0) -> list[TaskRecord]:
    """Up to ``count`` tasks (``long``: only those whose solution takes 15 or more calls)."""
    out: list[TaskRecord] = []
    names = ["bulk_transition"] if long else list(TEMPLATES)
    for _ in range(count * 8):
        if len(out) >= count:
            break
        name = rng.choice(names)
        made = TEMPLATES[name](compiled, db, rng, long)
        if made is None:
            continue
        prompt, calls, checks, answer = made
        if long and len(calls) < 15:
            continue
        if any(r.prompt == prompt for r in out):
            continue
        n = len(calls)
        out.append(TaskRecord(
            id=f"{compiled.card.id}/{'long' if long else 'prog'}-{start + len(out):03d}",
            env_id=compiled.card.id, kind="programmatic", prompt=prompt, checks=checks,
            reference_calls=calls, reference_answer=answer, max_steps=max(2 * n + 5, 20),
            difficulty="hard" if n >= 10 else "medium" if n >= 3 else "easy",
            metadata={"template": name, "calls": n}))
    return out
