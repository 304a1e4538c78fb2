"""JSON on the hub's hot path: orjson, strict, with errors a client can act on.

orjson parses and encodes several times faster than the standard library, and it already follows
RFC 8259 where ``json`` does not: ``NaN``, ``Infinity`` and numbers that overflow a double are
refused. Its error messages are terse ("unexpected character"), so on the error path only the
input is parsed again to say what was wrong in words.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

__all__ = ["BadJson", "loads", "dumps", "dumps_str", "Fragment"]

Fragment = orjson.Fragment  # pre-encoded JSON, embedded as is (a cached tool list)

_OPTIONS = orjson.OPT_NON_STR_KEYS
_NON_FINITE = re.compile(r"(?<![\w\"])-?(?:NaN|Infinity)(?![\w\"])")


class BadJson(ValueError):
    """A body or message that is not strict JSON; ``str()`` ("not valid JSON: ...") says why."""


class _Constant(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)


def _explain(raw: bytes | str) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes | bytearray) else raw
    try:
        json.loads(text, parse_constant=_refuse_constant)
    except _Constant as exc:
        return (f"not valid JSON: {exc} is not a JSON number, JSON numbers must be finite "
                "(send null or a string instead)")
    except json.JSONDecodeError as exc:
        return f"not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        return "not valid JSON: nested too deeply"
    if _NON_FINITE.search(text):
        return "not valid JSON: NaN and Infinity are not JSON numbers"
    return "not valid JSON: a number is too large for a double (it would be Infinity)"


def loads(raw: bytes | str) -> Any:
    """Parse strict JSON. Raises :class:`BadJson` with a readable reason."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise BadJson(_explain(raw)) from None


def dumps(value: Any) -> bytes:
    """Compact UTF-8 JSON. Values orjson cannot encode (integers past 64 bits, which tools may
    return) fall back to the standard library, so a reply is never lost to the encoder. A
    :data:`Fragment` is only for values that never need the fallback."""
    try:
        return orjson.dumps(value, option=_OPTIONS)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


def dumps_str(value: Any) -> str:
    return dumps(value).decode()
