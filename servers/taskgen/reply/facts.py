"""The reply held against the episode's final state: a deterministic, typed claim reader.

:mod:`.text` finds the statements; this module decides each against what the episode left
behind (the initial and final databases and the calls the agent made). A statement is a
contradiction when the state plainly disagrees with it:

* ``weekday``: a weekday that is not its date's;
* ``unknown_code``: a record id or code, in the shape of the service's own (``C4UU26``,
  ``pax_1008``, ``#241``), that no record, reply or prompt holds;
* ``wrong_record``: a write's reply that gives an existing record as the one it made;
* ``no_such_action``: a completed act that no successful call and no change of the state did
  ("I also emailed all 14 invitees" when nothing was sent);
* ``wrong_count``: the number of records an act names, when no reading of the changes gives it;
* ``wrong_state``: a named record (or "you", the acting user) said to be in a state, role or
  level it is not in, before or after the episode;
* ``quote``: quoted text that nothing in the state, the replies or the request contains;
* ``unknown_amount`` / ``unknown_date``: an amount of money or a date that no reply, no
  changed record, no request and no expected answer shows ("next cheapest: $480" when the
  next fare is $490). A total the reply adds up itself ("$2,795 in total") is undecided.

Anything else that states a fact (a number, an amount or a date it cannot place) is
*undecided*: it is reported for an optional LLM judge and never changes the reward.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from agentworld.servers.tasks import Step
from agentworld.servers.words import singular, words

from ..answers import date_spans, normal_text, total_spans
from ..values import leaves
from .acts import GENERIC_VERBS, actions
from .state import (
    EpisodeState,
    code_shapes,
    columns,
    exists,
    in_database,
    is_state_column,
    mentions,
    tables,
)
from .states import attribute_claims, count_claims, pair_claims, state_claims
from .text import clauses, quotes, weekday_mismatches

__all__ = ["Finding", "Reading", "read_reply"]

_ACTOR = (re.compile(r"\bacting as ([\w.@-]+)", re.I),
          re.compile(r"\(member id ([\w-]+)\)", re.I),
          re.compile(r"\buser id ([\w-]+)", re.I))
_FACT = re.compile(r"\d")


@dataclass(frozen=True)
class Finding:
    kind: str
    quote: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "quote": self.quote, "why": self.why}


@dataclass
class Reading:
    contradictions: list[Finding] = field(default_factory=list)
    undecided: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.contradictions


# ---- what the state holds ----------------------------------------------------------------

def _codes(state: EpisodeState, text: str) -> list[Finding]:
    out = []
    homes: dict[str, list[tuple[str, str]]] = {}
    for table, column, pattern in code_shapes(state.initial, state.template_key):
        for token in set(pattern.findall(text)):
            homes.setdefault(token, []).append((table, column))
    for token, places in homes.items():
        if state.heard(token) or any(exists(db, table, column, token)
                                     for table, column in places
                                     for db in (state.final, state.initial)):
            continue
        table, column = places[0]
        out.append(Finding("unknown_code", token,
                           f"no {singular(table)} {column} {token} exists"))
    for number in set(re.findall(r"(?<![\w&])#(\d{1,7})\b", text)):
        if state.heard(number) or _number_exists(state, int(number)):
            continue
        out.append(Finding("unknown_code", f"#{number}", f"no record is numbered {number}"))
    return out


# "Your booking reference is C4UU26", "created it with id X": the reply gives the code of the
# record it made.
_NAMES_A_RECORD = re.compile(r"\b(?:reference|confirmation|locator|number|id|code|pnr|"
                             r"booking|ticket)\b\s*(?:is|was|:|#|=)|\bwith (?:the )?(?:id|code)"
                             r"\b|\b(?:new|created) \w+(?: \w+)? (?:is )?[\w-]*\d", re.I)


def _wrong_record(state: EpisodeState, text: str) -> list[Finding]:
    """A write's reply that gives as the record it made one that exists but was not made
    ("your booking reference is E3GBGW" when the booking made is C4UU26)."""
    if not _NAMES_A_RECORD.search(text):
        return []
    state.touched()
    out: list[Finding] = []
    for table, column, pattern in code_shapes(state.initial, state.template_key):
        made = state._created.get(table)
        if not made:
            continue
        for token in set(pattern.findall(text)) - {f.quote for f in out}:
            if re.search(r"(?<![\w-])" + re.escape(token) + r"(?![\w-])", state.prompt, re.I):
                continue
            ours = {str(r.get(column)).casefold() for r in made}
            if token.casefold() not in ours and exists(state.final, table, column, token):
                out.append(Finding("wrong_record", token,
                                   f"{token} is not the {singular(table)} this episode made "
                                   f"({', '.join(sorted(ours)[:3])})"))
    return out


def _number_exists(state: EpisodeState, number: int) -> bool:
    numbered = [t for t in tables(state.final)
                if any(c[0] == "number" for c in columns(state.final, t))]
    if not numbered:
        return True  # nothing is numbered: "#3" is not a record's number here
    return any(exists(db, t, "number", number) for db in (state.initial, state.final)
               for t in numbered)


def _table_for(state: EpisodeState, noun: str) -> list[str]:
    """The tables a counted noun names ("pull requests" -> pulls, "issues" -> issues)."""
    names = tables(state.final)
    tokens = [singular(w) for w in re.findall(r"[a-z]+", noun.lower())]
    tokens = ["pull" if t in ("pr", "prs") else t for t in tokens]
    wanted = set(tokens) | {"_".join(tokens[i:j]) for i in range(len(tokens))
                            for j in range(i + 2, len(tokens) + 1)}
    return [t for t in names if singular(t) in wanted or "_".join(
        singular(w) for w in t.split("_")) in wanted]


def _changed_to(state: EpisodeState, stems: tuple[str, ...]) -> bool:
    """Whether a changed row raised a flag, or took a state, that the act names (``closed`` to
    1, ``status`` to "archived")."""
    state.touched()
    for pairs in state.changes.values():
        for old, new in pairs:
            for column, value in new.items():
                if value == old.get(column):
                    continue
                named = any(st in column.lower() for st in stems)
                if named and value in (1, "1", "true"):
                    return True
                if is_state_column(column) and isinstance(value, str) and any(
                        st in value.lower() for st in stems):
                    return True
    return False


def _plausible_counts(state: EpisodeState, noun: str, stems: tuple[str, ...]) -> set[int]:
    """Every count of records of ``noun`` the changes allow: rows of its table that changed,
    parents that changed rows refer to, calls of the tools that do the act, and the distinct
    records those calls named. Empty when the noun is no table and no call does the act."""
    touched = state.touched()
    calls = [s for s in state.writes() if any(st in s.tool.lower() for st in stems)]
    counts = set()
    names = _table_for(state, noun)
    if len(names) == 1:
        table = names[0]
        counts.add(len(touched.get(table, {})))
        ref = {singular(table) + "_id", singular(table) + "_key", singular(table)}
        for other, rows in touched.items():
            if other == table:
                continue
            for column in ref:
                parents = {r.get(column) for r in rows.values() if r.get(column) is not None}
                if parents:
                    counts.add(len(parents))
    elif names:
        return set()
    if calls:
        counts.add(len(calls))
        targets = {json_key(s.arguments) for s in calls}
        counts.add(len(targets))
    return counts


def json_key(arguments: dict[str, Any]) -> str:
    """The identifying arguments of a call, as one text (what record it acts on)."""
    ids = {k: v for k, v in arguments.items() if k == "id" or k.endswith(("_id", "number",
                                                                         "pnr", "key"))}
    return repr(sorted(ids.items(), key=lambda kv: kv[0])) if ids else repr(
        sorted(arguments.items(), key=lambda kv: kv[0]))


# Specific acts that say little where the service has no such step ("I saved your changes"):
# any write supports them there.
_BENIGN = frozenset({"saved", "completed", "finished", "submitted", "recorded", "logged"})


def _name_words(name: str) -> list[str]:
    return [singular(w) for w in words(name)]


def _noun_forms(noun: str) -> tuple[str, str]:
    """(compound, head) of a noun phrase: "backup schedule" -> backup_schedule, schedule."""
    parts = [singular(w) for w in re.findall(r"[a-z]+", noun.lower())]
    parts = ["pull" if p in ("pr", "prs") else p for p in parts] or [""]
    return "_".join(parts[-2:]), parts[-1]


def _names(name: str, form: str) -> bool:
    """Whether a table or tool name says ``form`` (a word, or words joined by _)."""
    said = "_".join(_name_words(name))
    return re.search(r"(?:^|_)" + re.escape(form) + r"(?:_|$)", said) is not None


def _involved(state: EpisodeState, form: str) -> bool:
    """Whether the episode did anything to records of ``form``: a write tool named for them,
    a change of their table, or a changed or created row that refers to one."""
    if any(_names(s.tool, form) for s in state.writes()):
        return True
    touched = state.touched()
    if any(_names(t, form) for t in touched):
        return True
    return any(row.get(f"{form}_id") is not None for rows in touched.values()
               for row in rows.values())


def _acted_on(state: EpisodeState, noun: str, tools: Sequence[str]) -> bool | None:
    """None when the service knows no records of ``noun`` (the act cannot be checked on it);
    else whether the episode did something to one."""
    compound, head = _noun_forms(noun)
    known = [f for f in dict.fromkeys((compound, head)) if f and any(
        _names(n, f) for n in list(tools) + tables(state.final))]
    if not known:
        return None
    return _involved(state, known[0])


def _did(state: EpisodeState, act, tools: Sequence[str]) -> bool:
    writes, touched = state.writes(), state.touched()
    if act.verb in GENERIC_VERBS:
        return bool(writes or touched)
    if any(st in s.tool.lower() for s in writes for st in act.stems) or any(
            st in t.lower() for t in touched for st in act.stems) or _changed_to(
            state, act.stems):
        return True
    service = [n.lower() for n in list(tools) + tables(state.final)]
    return act.verb in _BENIGN and bool(writes or touched) and not any(
        st in n for n in service for st in act.stems)


def _actions(state: EpisodeState, text: str, tools: Sequence[str]) -> list[Finding]:
    out = []
    for act in actions(text):
        if not _did(state, act, tools):
            out.append(Finding("no_such_action", act.quote,
                               f"nothing was {act.verb}: no call or change does that"))
            continue
        untouched = [o for o in act.objects if _acted_on(state, o, tools) is False]
        if untouched:
            out.append(Finding("no_such_action", act.quote,
                               f"{act.verb}, but nothing was done to any {untouched[0]}"))
            continue
        if act.count is not None and act.noun:
            counts = _plausible_counts(state, act.noun, act.stems)
            if counts and act.count not in counts:
                out.append(Finding("wrong_count", act.quote,
                                   f"{act.count} {act.noun.split()[0]} {act.verb}, but the "
                                   f"changes show {sorted(counts)}"))
    return out


_MONEY = re.compile(r"(?:[$\u20ac\u00a3]\s?(\d[\d,]*(?:\.\d+)?)|(\d[\d,]*(?:\.\d+)?)\s?"
                    r"(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|dollars?|euros?|pounds?)\b)")
# "$35 per bag", "an average of $120": figures the reply worked out, not ones it was shown.
_PER = re.compile(r"[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?\s?(?:[A-Z]{3}\s)?(?:each|per \w+|apiece|"
                  r"on average)|\b(?:average|mean) (?:of )?[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?",
                  re.I)


def _numbers_seen(state: EpisodeState, expected: Sequence[Any]) -> set[Decimal]:
    """Every number the episode showed or asked for, also read as cents and as major units."""
    said = [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", state.prompt)]
    values = [step.output for step in state.trajectory] + [
        step.arguments for step in state.trajectory] + [
        r for rows in state.touched().values() for r in rows.values()] + list(expected) + said
    out: set[Decimal] = set()
    for value in leaves(values):
        text = str(value).strip()
        if re.fullmatch(r"-?\d+(?:\.\d+)?", text):
            number = Decimal(text)
            out.update({number, number / 100, number * 100})
    return out


def _dates_seen(state: EpisodeState, expected: Sequence[Any]) -> set[str]:
    out = {iso for iso, _, _ in date_spans(state.prompt)}
    for value in list(state.said()) + [str(e) for e in expected]:
        found = re.match(r"(\d{4}-\d{2}-\d{2})", value)
        if found:
            out.add(found.group(1))
    for rows in state.touched().values():
        for row in rows.values():
            out |= {str(v)[:10] for v in row.values() if isinstance(v, str)
                    and re.match(r"\d{4}-\d{2}-\d{2}", v)}
    return out


def _ungrounded(state: EpisodeState, text: str, expected: Sequence[Any]) -> list[Finding]:
    """Amounts and dates the reply states that nothing it was shown, changed or asked holds.
    A figure the reply labels as a total or an average it worked out is left undecided."""
    out = []
    summed = [m.span() for m in total_spans(text)] + [m.span() for m in _PER.finditer(text)]
    seen = None
    for m in _MONEY.finditer(text):
        if any(a <= m.start() < b or a < m.end() <= b for a, b in summed):
            continue
        raw = (m.group(1) or m.group(2)).replace(",", "")
        seen = _numbers_seen(state, expected) if seen is None else seen
        if Decimal(raw) not in seen:
            out.append(Finding("unknown_amount", m.group(0),
                               f"no reply, record or request shows {m.group(0).strip()}"))
    dates = None
    for iso, start, end in date_spans(text):
        dates = _dates_seen(state, expected) if dates is None else dates
        if iso not in dates:
            out.append(Finding("unknown_date", text[start:end],
                               f"no reply, record or request shows {iso}"))
    return out


def _quotes(state: EpisodeState, text: str) -> list[Finding]:
    out = []
    for quote in quotes(text):
        needle = normal_text(quote)
        if needle in normal_text(state.prompt) or any(needle in s for s in state.said()) or \
                in_database(state.final, quote):
            continue
        out.append(Finding("quote", quote, "nothing in the state, the replies or the request "
                                           "says this"))
    return out


def _actor(prompt: str) -> str | None:
    for pattern in _ACTOR:
        found = pattern.search(prompt)
        if found:
            return found.group(1).rstrip(".,:;")
    return None


def read_reply(reply: str | None, *, initial: sqlite3.Connection, final: sqlite3.Connection,
               trajectory: Sequence[Step], prompt: str = "", skip_tables: Sequence[str] = (),
               skip_columns: Sequence[str] = (), template_key: str | None = None,
               expected: Sequence[Any] = (), tools: Sequence[str] = (),
               counted: Sequence[str] = ()) -> Reading:
    """Every contradiction between the reply and the state, and the statements it could not
    decide (see the module docs). ``expected`` are the task's answer values (a total the
    reply gives as its answer is no unknown amount); ``tools`` are the environment's tool names
    (what the service can do at all); ``counted`` what a "how many" question counts."""
    reading = Reading()
    if not reply or not reply.strip():
        return reading
    reply = reply[:8000].replace("\u2019", "'")
    state = EpisodeState(initial, final, trajectory, prompt, skip_tables, skip_columns,
                         template_key)
    actor = _actor(prompt)
    scoped = bool(mentions(state, prompt))
    for mismatch in weekday_mismatches(reply):
        reading.contradictions.append(Finding("weekday", mismatch,
                                              "the weekday is not that date's"))
    reading.contradictions += _codes(state, reply)
    reading.contradictions += _quotes(state, reply)
    for clause in clauses(reply):
        found = _actions(state, clause.text, tools) + _ungrounded(state, clause.text, expected)
        found += [Finding("wrong_state", q, why) for q, why in
                  state_claims(state, clause.text, actor)
                  + count_claims(state, clause.text, counted, scoped)
                  + attribute_claims(state, clause.text)]
        found += [Finding("wrong_record", q, why) for q, why in pair_claims(state, clause.text)]
        if not clause.context:
            found += _wrong_record(state, clause.text)
        reading.contradictions += found
        if not found and _FACT.search(clause.text):
            reading.undecided.append(clause.text)
    return reading
