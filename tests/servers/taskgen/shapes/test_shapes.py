"""Every shape over a sample covering each top-level category: the reference solution replays on a
fresh session, the stated answer is what the tools' own replies say, the prompt hides the answer
and reads as prose, long-horizon drafts are long and varied, and a draw is repeatable."""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

from agentworld.servers import Session
from agentworld.servers.taskgen.shapes import LONG_SHAPES, SHAPES, ShapeContext

from .conftest import Made

MONEY = 100


def _replay(m: Made) -> list[dict[str, Any]]:
    session = Session(m.env, seed=0)
    try:
        results = [session.call(name, args) for name, args in m.draft.calls]
    finally:
        session.close()
    bad = [(c, r.error) for c, r in zip(m.draft.calls, results, strict=True) if not r.ok]
    assert not bad, (m.compiled.card.id, m.name, bad[:2])
    return [r.data for r in results]


def _listed(m: Made, data: list[dict[str, Any]], plural: str | None = None) -> list[dict]:
    """Rows returned by the search calls (of one table, or of the last searched table)."""
    searched = [(n, d) for (n, _), d in zip(m.draft.calls, data, strict=True)
                if n.startswith("search_")]
    plural = plural or searched[-1][0].removeprefix("search_")
    return [row for n, d in searched if n == f"search_{plural}" for row in d[plural]]


def _pages(m: Made, data: list[dict[str, Any]]) -> list[list[dict]]:
    """Rows of each listing (consecutive pages of one filtered search), in call order."""
    out: list[list[dict]] = []
    for (name, args), d in zip(m.draft.calls, data, strict=True):
        if name.startswith("search_") and "query" not in args:
            rows = d[name.removeprefix("search_")]
            if args.get("cursor"):
                out[-1] += rows
            else:
                out.append(list(rows))
    return out


def _sums(rows: list[dict]) -> set[float]:
    """Every total a number column of ``rows`` gives, in stored and in major units."""
    keys = {k for r in rows for k, v in r.items() if isinstance(v, int) and not isinstance(v, bool)}
    totals = {sum(r[k] or 0 for r in rows) for k in keys}
    return totals | {round(t / MONEY, 2) for t in totals}


def _leaders(rows: list[dict]) -> set[str]:
    """The parent id that leads ``rows`` by count, or by the total of a number column, for
    each reference column."""
    out = set()
    numbers = {k for k, v in rows[0].items() if isinstance(v, int) and not isinstance(v, bool)}
    for ref in (k for k in rows[0] if k.endswith("_id")):
        out.add(Counter(r[ref] for r in rows).most_common(1)[0][0])
        for k in numbers:
            totals: Counter = Counter()
            for r in rows:
                totals[r[ref]] += r[k] or 0
            out.add(totals.most_common(1)[0][0])
    return out


def _check_answer(m: Made, data: list[dict[str, Any]]) -> None:
    answer, shape = m.draft.answer, m.name
    value = answer["value"]
    moves = Counter(n for n, a in m.draft.calls if not n.startswith(("search_", "get_")))
    if shape == "count":
        assert value == len(_pages(m, data)[-1])
    elif shape == "total":
        assert value in _sums(_pages(m, data)[-1])
    elif shape == "list_labels":
        column = answer["domain"]["column"]
        assert value == sorted(r[column] for r in _pages(m, data)[-1])
    elif shape == "earliest_latest":
        rows, column = _pages(m, data)[-1], answer.get("domain", {}).get("column")
        dates = [k for k, v in rows[0].items() if isinstance(v, str)
                 and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)]
        if answer["type"] == "date":
            assert value in {pick(r[k] for r in rows if r[k]) for k in dates for pick in (min, max)}
        else:
            winners = {r[column] for k in dates for pick in (min, max)
                       for r in [pick(rows, key=lambda r, k=k: r[k] or "")]}
            assert value in winners
    elif shape == "compare_parents" and answer["type"] == "text":
        rows = _pages(m, data)[-1]
        got = data[-1][m.draft.calls[-1][0].removeprefix("get_")]
        assert got[answer["domain"]["column"]] == value
        assert got["id"] in _leaders(rows)
    elif shape == "compare_parents":
        one, two = _pages(m, data)[-2:]
        assert value in {len(one) - len(two)} | {x - y for x in _sums(one) for y in _sums(two)}
    elif shape == "follow_refs":
        got = data[-1][m.draft.calls[-1][0].removeprefix("get_")]
        assert got[answer["domain"]["column"]] == value
    elif shape in ("fix_policy",):
        assert value == sum(moves.values())
    elif shape == "review_queue":
        assert value in moves.values()
    elif shape == "triage":
        assert value == sum(n for tool, n in moves.items() if not tool.startswith("update_"))
    elif shape == "close_out":
        assert answer["type"] == "money" or value in moves.values()
    else:
        raise AssertionError(f"no independent check for {shape}")


def test_enough_shapes_are_registered():
    assert len(SHAPES) >= 12 and len(LONG_SHAPES) >= 2
    assert not set(SHAPES) & set(LONG_SHAPES)


def test_every_shape_draws_in_the_sample(made):
    assert set(SHAPES) | set(LONG_SHAPES) <= {m.name for m in made}


def test_reference_calls_replay_and_answers_match_the_data(made):
    checked = 0
    for m in made:
        data = _replay(m)
        if m.draft.answer is not None:
            _check_answer(m, data)
            checked += 1
    assert checked >= 20


def test_answers_are_single_normalised_values(made):
    for m in made:
        a = m.draft.answer
        if a is None:
            continue
        assert a["type"] in ("number", "money", "date", "text", "id", "list"), a
        if a["type"] == "money":
            assert a["currency"] and isinstance(a["value"], (int, float))
        if a["type"] in ("text", "list"):
            assert set(a["domain"]) == {"table", "column"}
        if a["type"] == "list":
            assert len(a["value"]) == len(set(a["value"])) >= 2


def _answer_strings(value: Any) -> list[str]:
    values = value if isinstance(value, list) else [value]
    out = []
    for v in values:
        if isinstance(v, float) and v == int(v):
            v = int(v)
        out.append(str(v))
    return out


def test_no_prompt_contains_its_answer(made):
    for m in made:
        if m.draft.answer is None:
            continue
        for text in _answer_strings(m.draft.answer["value"]):
            assert not re.search(rf"(?<![\w.,]){re.escape(text)}(?![\w]|[.,]\d)",
                                 m.draft.prompt), (m.name, text, m.draft.prompt)


def test_prompts_read_as_prose(made):
    for m in made:
        prose = re.sub(r'"[^"]*"|\([a-z_]{3}_\d+\)', "", m.draft.prompt)
        assert "_" not in prose, (m.name, m.draft.prompt)
        assert m.draft.prompt[0].isupper() and m.draft.prompt.rstrip()[-1] in ".?", m.draft.prompt
        assert "  " not in m.draft.prompt and " ." not in m.draft.prompt, m.draft.prompt


def test_stated_options_are_what_the_reference_passes(made):
    seen = 0
    for m in made:
        for option in m.draft.options:
            seen += 1
            assert any(name == option["tool"] and all(args.get(k) == v for k, v in
                                                     option["arguments"].items())
                       for name, args in m.draft.calls), (m.name, option)
    assert seen


def _entity_of(m: Made, tool: str) -> str:
    for e in m.compiled.archetype.entities:
        names = {f"search_{e.plural}", f"get_{e.name}", f"create_{e.name}",
                 f"update_{e.name}"} | {f"{t.verb}_{e.name}" for t in
                                         (e.lifecycle.transitions if e.lifecycle else ())}
        if tool in names:
            return e.name
    raise AssertionError(tool)


def test_long_horizon_drafts_are_long_varied_and_span_entities(made):
    longs = [m for m in made if m.name in LONG_SHAPES]
    assert len(longs) >= 10
    distinct = []
    for m in longs:
        tools = {name for name, _ in m.draft.calls}
        assert len(m.draft.calls) >= 15 and len(tools) >= 3, (m.name, tools)
        assert len({_entity_of(m, t) for t in tools}) >= 2
        assert max(Counter(n for n, _ in m.draft.calls).values()) < len(m.draft.calls) - 2
        distinct.append(len(tools))
    assert sum(distinct) / len(distinct) >= 4


def test_a_draw_is_repeatable(hotel):
    env, c = hotel
    for name, fn in {**SHAPES, **LONG_SHAPES}.items():
        drafts = []
        for _ in range(2):
            db = env.template.clone()
            drafts.append(fn(ShapeContext(c, db, random.Random(3), long=name in LONG_SHAPES)))
            db.close()
        assert drafts[0] == drafts[1], name


def test_a_decision_with_a_note_leaves_the_stated_comment():
    from agentworld.servers import Environment
    from agentworld.servers.world.registry import compiled, pack_cards

    ids = sorted(c.id for c in pack_cards().values() if "comments" in c.features)
    for env_id in random.Random(0).sample(ids, 30):
        c = compiled(env_id)
        env = Environment(c.definition)
        db = env.template.clone()
        draft = SHAPES["decide_with_note"](ShapeContext(c, db, random.Random(env_id)))
        db.close()
        note = [args for name, args in (draft.calls if draft else []) if name == "add_comment"]
        if not note:
            continue
        session = Session(env, seed=0)
        assert all(session.call(name, args).ok for name, args in draft.calls)
        table = f"{c.archetype.primary}_comments"
        bodies = [r[0] for r in session.db.execute(f"SELECT body FROM {table}")]
        assert note[0]["body"] in bodies and f'"{note[0]["body"]}"' in draft.prompt
        return
    raise AssertionError("no decision with a note in 30 environments with comment threads")
