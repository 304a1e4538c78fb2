"""Stated values compared by what they mean, not by how they are spelled.

A verifier compares what the request dictated with what the episode left behind. Whether two
spellings are the same value depends on the value's type, which is read from the column and the
value itself:

* **instants** (ISO date-times) are the same moment: ``2026-03-05T13:45:00Z`` is
  ``2026-03-05T14:45:00+01:00``, and ``01:45`` is not ``13:45``;
* **numbers and amounts** are the same quantity: ``92`` is ``92.0``; an amount's currency is
  its own column, compared as a code;
* **case-blind codes**: hex colours (``#9467BD`` is ``#9467bd``), e-mail addresses, host names,
  and the columns that hold slugs, logins, currency and country codes or tickers, where the
  service itself ignores case; a hyphenated name elsewhere (a property named
  ``beacon-platform``) is text;
* **everything else** (titles, comments, states, enum values, ids) is exact, apart from
  surrounding white space and runs of spaces: ``Standard`` is not ``standard``.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from typing import Any

__all__ = ["kind_of", "same", "instant", "is_instant", "looks_generated", "leaves", "CASE_BLIND"]

_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_HEX = re.compile(r"^#?(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
_HOST = re.compile(r"^(?:[a-z0-9-]+\.)+[a-z]{2,}$")
_PLAIN_NUMBER = re.compile(r"^-?(?:0|[1-9]\d*)(?:\.\d+)?$")
# A value the system makes up: a hash, a generated id (prefix_ + hex), a uuid.
_GENERATED = re.compile(r"^(?:[0-9a-f]{7,64}|[a-z]{2,12}_[0-9a-f]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-"
                        r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$")
_CASE_BLIND_COLUMNS = frozenset({
    "slug", "handle", "login", "username", "user_name", "hostname", "host", "domain",
    "subdomain", "email", "email_address", "currency", "currency_code", "color", "colour",
    "hex", "hex_color", "country_code", "iata", "icao", "ticker", "symbol"})
CASE_BLIND = frozenset({"hex", "email", "slug", "code"})


def instant(value: Any) -> dt.datetime | None:
    """An ISO date-time as an aware UTC moment (a time without an offset is read as UTC)."""
    if not isinstance(value, str) or not _INSTANT.match(value.strip()):
        return None
    text = value.strip().replace(" ", "T", 1)
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    elif re.search(r"[+-]\d{4}$", text):
        text = text[:-2] + ":" + text[-2:]
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return moment.astimezone(dt.UTC)


def is_instant(value: Any) -> bool:
    return instant(value) is not None


def looks_generated(value: Any) -> bool:
    """Whether a string has the shape of something a system makes up (a hash, an id, a uuid)."""
    return isinstance(value, str) and bool(_GENERATED.match(value))


def kind_of(column: str, value: Any) -> str:
    """The type a value is compared as: instant, number, hex, email, slug, code or text."""
    if isinstance(value, bool) or value is None:
        return "exact"
    if isinstance(value, int | float):
        return "number"
    if not isinstance(value, str):
        return "exact"
    text = value.strip()
    last = column.rsplit(".", 1)[-1].lower()
    if instant(text) is not None:
        return "instant"
    if _HEX.match(text) and (text.startswith("#") or "colo" in last):
        return "hex"
    if _EMAIL.match(text):
        return "email"
    if last in _CASE_BLIND_COLUMNS or last.endswith(("_email", "_slug", "_login", "_currency",
                                                     "_host", "_hostname", "_domain")):
        return "code"
    if _HOST.match(text):
        return "slug"
    return "text"


def _text(value: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", value)).strip()


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return Decimal(str(value))
    if isinstance(value, str) and _PLAIN_NUMBER.match(value.strip()):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            return None
    return None


def same(expected: Any, actual: Any, *, column: str = "") -> bool:
    """Whether ``actual`` is the value ``expected`` states, compared by the expected value's
    type (see the module docs)."""
    kind = kind_of(column, expected)
    if kind == "number":
        got = _number(actual)
        return got is not None and abs(got - Decimal(str(expected))) < Decimal("1e-9")
    if not isinstance(actual, str) or not isinstance(expected, str):
        return expected == actual
    if kind == "instant":
        got = instant(actual)
        return got is not None and got == instant(expected)
    if kind == "hex":
        return actual.strip().lstrip("#").casefold() == expected.strip().lstrip("#").casefold()
    if kind in CASE_BLIND:
        return _text(actual).casefold() == _text(expected).casefold()
    return _text(actual) == _text(expected)


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar inside a reply or an argument set, in reading order (booleans and nulls
    aside): what a reply tells, whatever its nesting."""
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v)
    elif value is not None and not isinstance(value, bool):
        yield value
