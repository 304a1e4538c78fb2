"""Reading an agent's final reply as typed statements, before anything is checked.

This module knows only English, never the database: it cuts a reply into clauses, tells clearly
labelled context ("next cheapest: ...", "the other three stay open") from the statement that
answers, and finds what a careful reviewer would hold the agent to:

* **hedges** on an answer ("about 7", "probably X", "I'm not sure");
* **weekdays** next to a date ("Tuesday, 2026-03-09");
* **quoted text** the reply says it wrote or found.

Completed acts are read by :mod:`.acts`; what the state says about each statement is
decided in :mod:`.facts`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..answers import date_spans

__all__ = ["Clause", "clauses", "answer_text", "hedges", "weekday_mismatches", "quotes"]


@dataclass(frozen=True)
class Clause:
    text: str
    context: bool        # clearly labelled context, not the answer itself


# ---- clauses and context -----------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z#\"'(\[\d*-])|\n+|;\s*|\s+[-\u2013\u2014]\s+")
_PAREN = re.compile(r"\(([^()]*)\)")
_CONTEXT_START = re.compile(
    r"^(?:and |but |while |whereas |also,? |though |although )?(?:"
    r"for (?:comparison|reference|context)|by comparison|compared (?:with|to)|note|n\.b\.|fyi|"
    r"by the way|btw|next|the next|other|the other|others|the others|the rest|the remaining|"
    r"remaining|runner[- ]up|the runner[- ]up|second|the second|previously|originally|earlier|"
    r"before (?:that|the change)|excluded|excluding|skipped|not included|except|besides|"
    r"aside from|apart from|in contrast|unlike|alternatively|alternatives?|otherwise|for the "
    r"record|context|already)\b", re.I)
_LABEL = re.compile(r"^\s*([A-Za-z][\w '\-/]{0,40}):\s")
_CONTEXT_LABEL = re.compile(r"\b(?:next|other|second|runner|previous|prior|old|before|"
                            r"comparison|reference|context|excluded|excluding|skipped|also|"
                            r"alternative|else|remaining|rest|not included)\b", re.I)


# What the reply says it left alone is about other records than the answer.
_LEFT_ALONE = re.compile(
    r"\b(?:stays?|stayed|remains?|remained|left (?:alone|open|as|untouched|unchanged|in place)|"
    r"skipped|untouched|unchanged|not (?:merged|changed|touched|included|counted|eligible|"
    r"affected|eligible)|(?:i|we) (?:did not|didn't|have not|haven't|left)|blocked|"
    r"ineligible|excluded)\b", re.I)


def _is_context(text: str) -> bool:
    stripped = text.strip().lstrip("*-\u2022 ").strip()
    if _CONTEXT_START.match(stripped) or _LEFT_ALONE.search(stripped):
        return True
    label = _LABEL.match(stripped)
    return bool(label and _CONTEXT_LABEL.search(label.group(1)))


def clauses(reply: str) -> list[Clause]:
    """The reply cut at sentence ends, semicolons, dashes and line breaks; a parenthesis that
    opens with a context label is a clause of its own."""
    out: list[Clause] = []
    for sentence in _SENTENCE_END.split(reply or ""):
        if not sentence or not sentence.strip():
            continue
        rest = sentence
        for inner in _PAREN.findall(sentence):
            if _is_context(inner):
                out.append(Clause(inner.strip(), True))
                rest = rest.replace(f"({inner})", " ")
        rest = re.sub(r"\s+([.,;:!?])", r"\1", re.sub(r"\s+", " ", rest)).strip()
        if rest.strip(" .,"):
            out.append(Clause(rest, _is_context(rest)))
    return out


def answer_text(reply: str) -> str:
    """The reply without its labelled context: where an answer's value is read from."""
    return " ".join(c.text for c in clauses(reply) if not c.context)


# ---- hedges ------------------------------------------------------------------------------

_APPROXIMATOR = (r"(?:\b(?:about|around|approximately|approx\.?|roughly|nearly|almost|close "
                 r"to|circa|at least|at most|more than|less than|fewer than|upwards of|in the "
                 r"region of|somewhere around)|~|\u2248)\s*")
_APPROXIMATE = re.compile(_APPROXIMATOR + r"[$\u20ac\u00a3]?\s*(\d[\d,]*(?:\.\d+)?)", re.I)
_APPROXIMATE_AFTER = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:or so|give or take|-?ish)\b",
                                re.I)
_UNCERTAIN = re.compile(
    r"\b(?:probably|possibly|perhaps|maybe|presumably|i think|i believe|i guess|i suspect|"
    r"i assume|i'm not sure|i am not sure|not (?:entirely |completely |100% )?sure|unsure|"
    r"not certain|uncertain|can(?:no|')t be (?:sure|certain)|could not confirm|couldn't "
    r"confirm|can(?:no|')t confirm|(?:it|that|this|which|the answer|the total|the count) "
    r"(?:might|may|could) be|seems? to be|seems? like|appears? to be|looks like|if i'm not "
    r"mistaken|if i am not mistaken|my best guess|best guess|i estimate)\b", re.I)


def hedges(text: str, value: object = None) -> list[str]:
    """The hedging phrases of ``text`` (an answer's clauses). An approximation ("about 7")
    counts when it qualifies ``value`` (the expected number), or any number when no value is
    given; a word of doubt ("probably", "I'm not sure") always counts."""
    found = []
    for pattern in (_APPROXIMATE, _APPROXIMATE_AFTER):
        for m in pattern.finditer(text):
            if value is None or _same_number(m.group(1), value):
                found.append(m.group(0))
    found += [m.group(0) for m in _UNCERTAIN.finditer(text.replace("\u2019", "'"))]
    return found


def _same_number(text: str, value: object) -> bool:
    try:
        return abs(float(text.replace(",", "")) - float(value)) < 0.005  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


# ---- weekdays ----------------------------------------------------------------------------

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY = re.compile(r"\b(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|rsday|"
                      r"urday|sday)?\b\.?", re.I)


def _weekday_index(word: str) -> int | None:
    word = word.lower().rstrip(".")
    for i, name in enumerate(_WEEKDAYS):
        if name.startswith(word[:3]) and (word == name or len(word) <= 5):
            return i
    return None


def weekday_mismatches(text: str) -> list[str]:
    """Each "weekday + date" pair whose weekday is not that date's ("Tuesday, 2026-03-09" when
    the 9th is a Monday). A weekday belongs to the date within a few characters of it."""
    out = []
    spans = date_spans(text)
    for m in _WEEKDAY.finditer(text):
        day = _weekday_index(m.group(1))
        if day is None:
            continue
        near = [(iso, s, e) for iso, s, e in spans
                if 0 <= s - m.end() <= 6 or 0 <= m.start() - e <= 3]
        for iso, s, e in near:
            if dt.date.fromisoformat(iso).weekday() != day:
                out.append(text[min(s, m.start()):max(e, m.end())])
    return out


# ---- quotes ------------------------------------------------------------------------------

_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{12,300})[\"\u201d]")


def quotes(text: str) -> list[str]:
    """Text the reply puts in double quotes (12 characters or more: a title, a comment)."""
    return [q.strip() for q in _QUOTED.findall(text or "")]
