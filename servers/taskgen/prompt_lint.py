"""The prompt lint: drafts a person could not act on are dropped before they become tasks.

A draft fails when

* a step is unspecified: an argument its reference solution needs is neither stated by the
  prompt nor returned by an earlier call (every argument of a write; a read's identifiers and
  required arguments; ``specified.py``);
* it asks for a count of something it does not name ("Tell me how many there are in all");
* it states impossible data: an end before its start, a maximum below its minimum, in the
  reference arguments or in the prompt's own ranges ("from 2026-03-09 to 2026-03-02").
"""

from __future__ import annotations

import re
from typing import Any

from agentworld.servers import Environment, Session
from agentworld.servers.words import words

from .answers import date_spans
from .specified import unspecified_in
from .values import instant

__all__ = ["lint_draft", "unnamed_count", "impossible_ranges"]

_UNNAMED_COUNT = re.compile(
    r"\bhow many (?:there are|are there|in all|in total|it (?:has|lists|returns|found|"
    r"holds)|they are|results?)\b", re.I)
_START = {"start", "starts", "from", "since", "begin", "begins", "check_in", "checkin",
          "departure", "depart", "open", "opens", "valid_from", "min", "minimum", "earliest",
          "after", "first", "low", "lower"}
_END = {"end", "ends", "to", "until", "till", "check_out", "checkout", "return", "close",
        "closes", "valid_to", "valid_until", "max", "maximum", "latest", "before", "last",
        "high", "upper"}
_NOISE = {"date", "time", "at", "on", "datetime", "day", "ts", "timestamp", "utc", "iso"}
_RANGE_WORDS = re.compile(r"^\s*(?:to|and|through|thru|until|till|-|\u2013|\u2014)\s*$", re.I)


def unnamed_count(prompt: str) -> str:
    found = _UNNAMED_COUNT.search(prompt)
    return f"asks {found.group(0)!r} without naming what to count" if found else ""


def _shape(key: str) -> tuple[str, tuple[str, ...]]:
    """("start"/"end"/"", the key's other words) of an argument name."""
    parts = [w for w in words(key) if w not in _NOISE]
    joined = "_".join(parts)
    for side, vocabulary in (("start", _START), ("end", _END)):
        for word in sorted(vocabulary, key=len, reverse=True):
            wanted = word.split("_")
            for i in range(len(parts) - len(wanted) + 1):
                if parts[i:i + len(wanted)] == wanted:
                    return side, tuple(parts[:i] + parts[i + len(wanted):])
    return "", (joined,)


def _comparable(value: Any) -> tuple[str, float] | None:
    """(family, value): numbers compare with numbers, moments and dates with each other."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return "number", float(value)
    moment = instant(value)
    if moment is None and isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        moment = instant(value + "T00:00:00Z")
    return ("time", moment.timestamp()) if moment is not None else None


def impossible_ranges(args: dict[str, Any], prompt: str = "") -> str:
    """The first end before its start (or maximum below its minimum) in ``args`` or in a range
    the prompt writes out; "" when there is none."""
    flat = {k: v for k, v in args.items() if not isinstance(v, dict | list)}
    for value in args.values():
        if isinstance(value, dict):
            found = impossible_ranges(value)
            if found:
                return found
    starts, ends = {}, {}
    for key, value in flat.items():
        side, rest = _shape(key)
        point = _comparable(value)
        if side and point is not None:
            (starts if side == "start" else ends)[rest] = (key, value, point)
    for rest, (skey, svalue, spoint) in starts.items():
        if rest in ends:
            ekey, evalue, epoint = ends[rest]
            if epoint[0] == spoint[0] and epoint[1] < spoint[1]:
                return f"{ekey}={evalue!r} comes before {skey}={svalue!r}"
    spans = date_spans(prompt)
    for (first, _, end), (second, start, _) in zip(spans, spans[1:], strict=False):
        if _RANGE_WORDS.match(prompt[end:start]) and second < first:
            return f"the range {first} to {second} ends before it starts"
    return ""


def lint_draft(env: Environment, prompt: str, calls: list[list[Any]], *, seed: int = 0) -> str:
    """The first reason ``prompt`` with its reference ``calls`` is not a request a person could
    act on, or ""."""
    found = unnamed_count(prompt)
    if found:
        return found
    for _, args in calls:
        found = impossible_ranges(args if isinstance(args, dict) else {})
        if found:
            return found
    found = impossible_ranges({}, prompt)
    if found:
        return found
    session = Session(env, seed=seed)
    try:
        replies = [session.call(name, args).payload() for name, args in calls]
    finally:
        session.close()
    missing = unspecified_in(env, prompt, calls, replies)
    return f"unspecified: {missing[0]}" if missing else ""
