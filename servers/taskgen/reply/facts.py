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
from typing import Any

from agentworld.servers.tasks import Step

from ..answers import normal_text
from .codes import code_claims, record_claims
from .counts import count_grounding
from .deeds import deed_claims
from .findings import Finding, Reading
from .grounding import grounding_claims
from .state import (
    EpisodeState,
    in_database,
    mentions,
)
from .states import attribute_claims, count_claims, state_claims, superlative_claims
from .text import clauses, quotes, weekday_mismatches

__all__ = ["Finding", "Reading", "read_reply"]

_ACTOR = (re.compile(r"\bacting as ([\w.@-]+)", re.I),
          re.compile(r"\(member id ([\w-]+)\)", re.I),
          re.compile(r"\buser id ([\w-]+)", re.I))
_FACT = re.compile(r"\d")
# A sentence about the record the one before it named.
_PRONOUN = re.compile(r"^\s*(?:it|its|it's|they|their|this|that)\b", re.I)


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
    reading.contradictions += code_claims(state, reply)
    reading.contradictions += _quotes(state, reply)
    last = None
    for clause in clauses(reply):
        found = deed_claims(state, clause.text, tools) + grounding_claims(
            state, clause.text, expected)
        named = mentions(state, clause.text)
        about = clause.text
        if last and not named and _PRONOUN.match(clause.text):
            about = f"{last}: {clause.text}"      # "...; its bill amount is now $3,406.73"
        found += [Finding("wrong_state", q, why) for q, why in
                  state_claims(state, about, actor)
                  + count_claims(state, clause.text, counted, scoped)
                  + attribute_claims(state, about)
                  + superlative_claims(state, clause.text)]
        last = named[-1][1] if named else last
        found += [Finding("wrong_count", q, why) for q, why in
                  count_grounding(state, clause.text, expected)]
        found += record_claims(state, clause.text, context=clause.context)
        reading.contradictions += found
        if not found and _FACT.search(clause.text):
            reading.undecided.append(clause.text)
    return reading
