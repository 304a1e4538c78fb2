"""The reply held against the episode's final state: a deterministic, typed claim reader.

:mod:`.reply_text` finds the statements; this module decides each against what the episode left
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
from agentworld.servers.words import singular

from .answers import date_spans, normal_text, total_spans
from .reply_state import (
    EpisodeState,
    code_shapes,
    columns,
    exists,
    in_database,
    is_state_column,
    linking_rows,
    named_keys,
    named_rows,
    state_tables,
    tables,
)
from .reply_text import GENERIC_VERBS, actions, clauses, quotes, weekday_mismatches
from .values import leaves

__all__ = ["Finding", "Reading", "read_reply"]

_ACTOR = (re.compile(r"\bacting as ([\w.@-]+)", re.I),
          re.compile(r"\(member id ([\w-]+)\)", re.I),
          re.compile(r"\buser id ([\w-]+)", re.I))
_YOU = re.compile(r"\b(?:you|your|you're|you've)\b", re.I)
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


_NAMES_A_RECORD = re.compile(r"\b(?:reference|confirmation|locator|number|id|code|pnr|"
                             r"booking|ticket)\b\s*(?:is|was|:|#|=)", re.I)


def _wrong_record(state: EpisodeState, text: str) -> list[Finding]:
    """A write's reply that gives as the record it made one that exists but was not made
    ("your booking reference is E3GBGW" when the booking made is C4UU26)."""
    if not (_NAMES_A_RECORD.search(text) or actions(text)):
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


def _plausible_counts(state: EpisodeState, table: str, stems: tuple[str, ...]) -> set[int]:
    touched = state.touched()
    counts = {len(touched.get(table, {}))}
    ref = {singular(table) + "_id", singular(table) + "_key", singular(table)}
    for other, rows in touched.items():
        if other == table:
            continue
        for column in ref:
            parents = {r.get(column) for r in rows.values() if r.get(column) is not None}
            if parents:
                counts.add(len(parents))
    counts.add(sum(1 for s in state.writes() if any(st in s.tool.lower() for st in stems)))
    return counts


def _actions(state: EpisodeState, text: str) -> list[Finding]:
    out = []
    touched = state.touched()
    for act in actions(text):
        done = (act.verb in GENERIC_VERBS and bool(touched)) or any(
            st in s.tool.lower() for s in state.writes() for st in act.stems) or any(
            st in t.lower() for t in touched for st in act.stems) or _changed_to(
            state, act.stems)
        if not done:
            out.append(Finding("no_such_action", act.quote,
                               f"nothing was {act.verb}: no call or change does that"))
            continue
        if act.count is None or not act.noun:
            continue
        tables = _table_for(state, act.noun)
        if len(tables) == 1:
            counts = _plausible_counts(state, tables[0], act.stems)
            if act.count not in counts:
                out.append(Finding("wrong_count", act.quote,
                                   f"{act.count} {act.noun.split()[0]} {act.verb}, but the "
                                   f"changes show {sorted(counts)}"))
    return out


_COPULA = re.compile(r"(?:\b(?:is|are|was|were|be|been|being|stays?|remains?|still|now|set to|"
                     r"as|at|to|an?|the)\s+)$")


def _forms(value: str, domain: Sequence[str]) -> list[str]:
    """How a reply may name a state: in full ("can edit"), or by a word of it that no other
    state of the column has ("edit access")."""
    words_of = {v: normal_text(v).split() for v in domain}
    mine = words_of[value]
    others = {w for v, ws in words_of.items() if v != value for w in ws}
    return [" ".join(mine)] + [w for w in {mine[0], mine[-1]} if len(mine) > 1
                               and w not in others and len(w) >= 3]


def _predicated(value: str, folded: str) -> bool:
    """Whether ``folded`` says something *is* ``value`` ("is closed", "at can edit", "an
    admin", "edit access"), not that someone did it ("I closed")."""
    for m in re.finditer(r"(?<![\w-])" + re.escape(value) + r"(?![\w-])", folded):
        before, after = folded[max(0, m.start() - 40):m.start()], folded[m.end():m.end() + 12]
        if _COPULA.search(before) or re.match(r"\s+(?:access|level|role|permission|rights?|"
                                              r"status|state)\b", after):
            return True
    return False


def _states(state: EpisodeState, text: str, actor: str | None) -> list[Finding]:
    """A record named in ``text`` (or "you", the acting user) said to be in a state, role or
    level it is in neither before nor after; a grant between named records (a page shared
    with a member) said to be at a level it is not."""
    if re.search(r"\b(?:not|n't|no longer|never|instead|rather than|unlike)\b|n't\b", text,
                 re.I):
        return []
    folded = " " + normal_text(text) + " "
    out = []
    you = actor is not None and _YOU.search(text) is not None
    keys: set[str] | None = None
    for table, label, states in state_tables(state.initial, state.template_key):
        mentioned = {c: [v for v in vals if any(_predicated(form, folded)
                                                for form in _forms(v, vals))]
                     for c, vals in states.items()}
        mentioned = {c: v for c, v in mentioned.items() if v}
        if not mentioned:
            continue
        groups = named_rows(state, table, label, text, actor if you else None) if label \
            else {}
        if not groups:
            keys = named_keys(state, text) | ({actor} if you else set()) if keys is None \
                else keys
            linked = linking_rows(state, table, keys, at_least=2) if keys else []
            if not linked and keys:
                # "Shared the pages with Giulia at can edit": the grants this episode made
                # that link a named record.
                linked = [r for r in state.touched().get(table, {}).values()
                          if any(str(v) in keys for v in r.values())]
            groups = {f"the {singular(table)} of the records named": linked} if linked else {}
        for name, rows in groups.items():
            # A name several records share ("flight MW131" runs every day) is true of the
            # statement when any of them fits it.
            for column, values in mentioned.items():
                have = {normal_text(r[column]) for r in rows if r.get(column) is not None}
                if have and not have & {normal_text(v) for v in values}:
                    out.append(Finding("wrong_state", text.strip(),
                                       f"{singular(table)} {name!r} has {column} "
                                       f"{'/'.join(sorted(have))}, not {'/'.join(values)}"))
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
               expected: Sequence[Any] = ()) -> Reading:
    """Every contradiction between the reply and the state, and the statements it could not
    decide (see the module docs). ``expected`` are the task's answer values (a total the
    reply gives as its answer is no unknown amount)."""
    reading = Reading()
    if not reply or not reply.strip():
        return reading
    reply = reply[:8000].replace("\u2019", "'")
    state = EpisodeState(initial, final, trajectory, prompt, skip_tables, skip_columns,
                         template_key)
    actor = _actor(prompt)
    for mismatch in weekday_mismatches(reply):
        reading.contradictions.append(Finding("weekday", mismatch,
                                              "the weekday is not that date's"))
    reading.contradictions += _codes(state, reply)
    reading.contradictions += _quotes(state, reply)
    for clause in clauses(reply):
        found = _actions(state, clause.text) + _states(state, clause.text, actor) + \
            _ungrounded(state, clause.text, expected)
        if not clause.context:
            found += _wrong_record(state, clause.text)
        reading.contradictions += found
        if not found and _FACT.search(clause.text):
            reading.undecided.append(clause.text)
    return reading
