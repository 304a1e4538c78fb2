"""Comparing two JSON results of the same call, and saying why they differ.

Release tools stamp their replies with the clock and with ids minted per call, so two correct
runs differ there and nowhere else. :func:`differences` lists each differing leaf with a class:

* ``clock``: both sides are the same text once date-times are masked, or a number under a
  name that measures time (``latency_ms``, ``elapsed``, ``as_of`` ...);
* ``ids``: the same text once uuids, e-mail Message-IDs, long hex and long digit runs are
  masked;
* ``value``: anything else (a different number, word or record);
* ``shape``: a key on one side only, a list of another length, or another JSON type.

``clock`` and ``ids`` are the differences agentworld makes by design (its clock is the
session's, its ids are seeded); :func:`by_design` says whether a list holds only those.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["differences", "by_design", "BY_DESIGN", "summarise"]

BY_DESIGN = frozenset({"clock", "ids"})
_MAX = 200

_DATETIME = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{1,2} \w{3} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}"
    r"|\d{2}:\d{2}:\d{2}")
_IDS = re.compile(r"<[^<>@\s]+@[^<>\s]+>"  # an e-mail Message-ID, minted per message
                  r"|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
                  r"|(?<![0-9A-Za-z])[0-9A-Fa-f]{6,}(?![0-9A-Za-z])|\d{6,}"
                  r"|(?<=_)[0-9A-Za-z]{6,}(?![0-9A-Za-z])", re.IGNORECASE)
_TIME_KEY = re.compile(r"latency|elapsed|duration|took|_ms$|^ms$|timestamp|epoch|^ts$|_at$|"
                       r"as_of|^time$|_time$|^time_|uptime|seconds", re.IGNORECASE)


def _leaf_class(key: str, a: Any, b: Any) -> str:
    if isinstance(a, str) and isinstance(b, str):
        timeless_a, timeless_b = _DATETIME.sub("<t>", a), _DATETIME.sub("<t>", b)
        if timeless_a == timeless_b:
            return "clock"
        if _IDS.sub("<id>", timeless_a) == _IDS.sub("<id>", timeless_b):
            # Ids and times together (a message id with a timestamp in it) are still by design.
            return "ids" if _IDS.sub("<id>", a) == _IDS.sub("<id>", b) else "clock"
        return "value"
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) \
            and not isinstance(b, bool) and _TIME_KEY.search(key or ""):
        return "clock"
    if type(a) is not type(b) and not (isinstance(a, numbers) and isinstance(b, numbers)):
        return "shape"
    return "value"


def differences(a: Any, b: Any, path: str = "$", key: str = "") -> list[tuple[str, str]]:
    """``(path, class)`` of every leaf where ``a`` and ``b`` differ (at most 200)."""
    out: list[tuple[str, str]] = []
    _walk(a, b, path, key, out)
    return out


def _walk(a: Any, b: Any, path: str, key: str, out: list[tuple[str, str]]) -> None:
    if len(out) >= _MAX or a == b:
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append((f"{path}.{k}", "shape"))
            else:
                _walk(a[k], b[k], f"{path}.{k}", str(k), out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append((path, "shape"))
            return
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _walk(x, y, f"{path}[{i}]", key, out)
        return
    out.append((path, _leaf_class(key, a, b)))


def by_design(diffs: list[tuple[str, str]]) -> bool:
    """Whether every difference is one agentworld makes on purpose (clock, ids)."""
    return all(kind in BY_DESIGN for _, kind in diffs)


def summarise(diffs: list[tuple[str, str]]) -> list[str]:
    """The classes present, most telling first."""
    order = ("shape", "value", "clock", "ids")
    present = {kind for _, kind in diffs}
    return [kind for kind in order if kind in present]
