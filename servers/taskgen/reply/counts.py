"""Numbers of records a reply states: "across 6 confirmed reservations", "the analytics show 37
workflows", "already has 12 matching texts".

A number written before a noun that names a table of the service must be a count the episode
could have read or made: how many rows the table holds (before or after), how many hold each
value of a state-like column (in all, or under one parent), how many a reply listed (and how
many of those hold each value), a total a reply gave, how many the episode changed, created or
removed, or a number the request or the expected answer states. Anything else is a count the
reply made up.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from agentworld.servers.words import singular

from .state import EpisodeState, columns, named_keys, tables

__all__ = ["count_grounding", "reply_counts"]

_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten "
                                     "eleven twelve thirteen fourteen fifteen sixteen seventeen "
                                     "eighteen nineteen twenty".split())}
_NUMBER_NOUN = re.compile(r"(?<![\w#.$,/-])(?<!ending )(?<!ending in )(\d{1,4}|"
                          + "|".join(_WORDS) + r")((?:\s+[a-z][\w-]*){1,3})", re.I)
_TOTAL_KEYS = re.compile(r"total|count|size|num|number|matches|results|length", re.I)


def count_grounding(state: EpisodeState, text: str, expected: Sequence[Any]
                    ) -> list[tuple[str, str]]:
    """(quote, why) for each count of records ``text`` states that nothing supports."""
    out = []
    names = {singular(t): t for t in tables(state.final)}
    for m in _NUMBER_NOUN.finditer(text):
        # "12 matching texts": the first plural of the next words that names a table.
        following = m.group(2).casefold().split()
        following = following[:next((i for i, w in enumerate(following) if w in _WORDS),
                                    len(following))]
        table = next((names[singular(w)] for w in following
                      if w.endswith("s") and singular(w) in names), None)
        if table is None:
            continue
        raw = m.group(1).casefold()
        claimed = _WORDS[raw] if raw in _WORDS else int(raw)
        if claimed not in _plausible(state, table, expected, text):
            out.append((m.group(0), f"no count of {table} the episode read or made is "
                                    f"{claimed}"))
    return out


def _plausible(state: EpisodeState, table: str, expected: Sequence[Any], text: str
               ) -> set[int]:
    """The counts the sentence could mean; counts of rows in a state only for the states it
    names ("6 confirmed reservations": how many are confirmed, not how many fly economy)."""
    said = " " + re.sub(r"[^a-z0-9]+", " ", text.casefold().replace("_", " ")) + " "
    counts: set[int] = set()
    # Counts under one parent only for the parents the request, the reply or a call named:
    # every passenger's confirmed bookings would allow almost any number.
    named = named_keys(state, state.prompt) | {str(v) for s in state.trajectory
                                               for v in s.arguments.values()}
    for db in (state.initial, state.final):
        counts |= _table_counts(db, table, named, said)
    for step in state.trajectory:
        if step.ok:
            counts |= reply_counts(step.output, said)
    touched = state.touched()
    counts.add(len(touched.get(table, {})))
    counts.add(len(state.created().get(table, [])))
    ref = f"{singular(table)}_id"
    for rows in touched.values():
        parents = {r.get(ref) for r in rows.values() if r.get(ref) is not None}
        counts.add(len(parents))
        # "14 to-dos across 7 pages": how many parents of each kind the changed rows have.
        for column in {c for r in rows.values() for c in r if c.endswith("_id")}:
            counts.add(len({r.get(column) for r in rows.values() if r.get(column)}))
    counts.add(len(state.writes()))
    for value in expected:
        if isinstance(value, int) and not isinstance(value, bool):
            counts.add(value)
    counts |= {int(n) for n in re.findall(r"(?<![\d.])\d{1,4}(?![\d.])", state.prompt)}
    return counts


def _table_counts(db, table: str, parents_named: set[str], said: str) -> set[int]:
    """The table's size, and how many of its rows hold each value the sentence names of a
    state-like column, in all and under each parent named."""
    out = {db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]}
    cols = [c[0] for c in columns(db, table)]
    parents = [c for c in cols if c.endswith("_id")][:4]
    for column in cols:
        distinct = db.execute(f'SELECT COUNT(DISTINCT "{column}") FROM "{table}"').fetchone()[0]
        if column.endswith(("_at", "id")) or not 1 <= distinct <= 15:
            continue
        out |= {n for value, n in db.execute(
            f'SELECT "{column}", COUNT(*) FROM "{table}" GROUP BY "{column}"')
            if _named(value, said)}
        for parent in parents:
            out |= {n for key, value, n in db.execute(
                f'SELECT "{parent}", "{column}", COUNT(*) FROM "{table}" '
                f'GROUP BY "{parent}", "{column}"')
                if str(key) in parents_named and _named(value, said)}
    for parent in parents:
        out |= {n for key, n in db.execute(
            f'SELECT "{parent}", COUNT(*) FROM "{table}" GROUP BY "{parent}"')
            if str(key) in parents_named}
    return out


def _named(value: Any, said: str) -> bool:
    text = re.sub(r"[^a-z0-9]+", " ", str(value).casefold()).strip()
    return bool(text) and f" {text} " in said


def reply_counts(value: Any, said: str = "") -> set[int]:
    """How many records a reply listed (and how many of them hold each value the sentence
    names, when one is given), and every total it gave."""
    out: set[int] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, int) and not isinstance(item, bool) and _TOTAL_KEYS.search(key):
                out.add(item)
            out |= reply_counts(item, said)
    elif isinstance(value, list):
        out.add(len(value))
        rows = [v for v in value if isinstance(v, dict)]
        for key in {k for r in rows for k in r}:
            tally = Counter(str(r.get(key)) for r in rows)
            if len(tally) <= 15:
                out |= {n for v, n in tally.items() if not said or _named(v, said)}
        for item in value:
            out |= reply_counts(item, said)
    return out
