"""Random JSON values that satisfy a JSON Schema, for :meth:`ToolCallSpace.sample`.

Covers the subset of draft 2020-12 that tool schemas use (servers/schema.py and the reference
environments): ``type`` (also a list), ``const``, ``enum``, ``anyOf``/``oneOf``, string lengths and
``pattern``, numeric bounds, arrays, objects with ``properties``/``required``/
``additionalProperties``. Callers validate what comes back and retry, so a keyword this module
does not know only costs a retry, never an invalid sample.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["sample_value", "Unsupported", "DATE_PATTERN", "DATETIME_PATTERN"]

# The two patterns servers/schema.py uses for dates; sampled as real calendar values, because a
# regex walk would give "9731-84-52", which passes the schema but no tool can use.
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
DATETIME_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}"

_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_PRINTABLE = [chr(c) for c in range(32, 127)]
_EXTRA_CHARS = 12  # how far past minLength (or a repeat's minimum) a sample may grow
_EXTRA_ITEMS = 3


class Unsupported(ValueError):
    """The schema uses something this sampler cannot satisfy (e.g. a regex look-ahead)."""


def _pick(rng: np.random.Generator, options: list[Any] | tuple[Any, ...]) -> Any:
    return options[int(rng.integers(len(options)))]


def _between(rng: np.random.Generator, low: int, high: int) -> int:
    return int(rng.integers(low, high + 1))


def _date(rng: np.random.Generator) -> str:
    # Day 1-28 keeps every month valid.
    return f"{_between(rng, 2020, 2030):04d}-{_between(rng, 1, 12):02d}-{_between(rng, 1, 28):02d}"


def _datetime(rng: np.random.Generator) -> str:
    return (f"{_date(rng)}T{_between(rng, 0, 23):02d}:{_between(rng, 0, 59):02d}:"
            f"{_between(rng, 0, 59):02d}Z")


# -- regular expressions ---------------------------------------------------------------------------
def _regex_parser():
    # Python's own regex parser gives the pattern as a tree to walk; it is private (re._parser)
    # but has been stable for a decade, and any failure here only falls back to a retry.
    import re._constants as c
    import re._parser as p

    return p, c


def _category_chars(category, c) -> list[str]:
    table = {c.CATEGORY_DIGIT: "0123456789", c.CATEGORY_SPACE: " ",
             c.CATEGORY_WORD: _ALPHABET + "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"}
    if category in table:
        return list(table[category])
    negated = {c.CATEGORY_NOT_DIGIT: c.CATEGORY_DIGIT, c.CATEGORY_NOT_SPACE: c.CATEGORY_SPACE,
               c.CATEGORY_NOT_WORD: c.CATEGORY_WORD}
    if category in negated:
        excluded = set(_category_chars(negated[category], c)) | {"\t", "\n", "\r", "\f", "\v"}
        return [ch for ch in _PRINTABLE if ch not in excluded]
    raise Unsupported(f"regex category {category}")


def _class_chars(items, c) -> list[str]:
    chosen: set[str] = set()
    negate = False
    for op, arg in items:
        if op is c.NEGATE:
            negate = True
        elif op is c.LITERAL:
            chosen.add(chr(arg))
        elif op is c.RANGE:
            chosen.update(chr(x) for x in range(arg[0], min(arg[1], 0x2FF) + 1))
        elif op is c.CATEGORY:
            chosen.update(_category_chars(arg, c))
        else:
            raise Unsupported(f"regex class item {op}")
    if negate:
        return [ch for ch in _PRINTABLE if ch not in chosen]
    return sorted(chosen)


def _walk(rng: np.random.Generator, nodes, c) -> str:
    out: list[str] = []
    for op, arg in nodes:
        if op is c.LITERAL:
            out.append(chr(arg))
        elif op is c.NOT_LITERAL:
            out.append(_pick(rng, [ch for ch in _ALPHABET if ord(ch) != arg]))
        elif op is c.ANY:
            out.append(_pick(rng, _ALPHABET))
        elif op is c.IN:
            out.append(_pick(rng, _class_chars(arg, c)))
        elif op is c.CATEGORY:
            out.append(_pick(rng, _category_chars(arg, c)))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            low, high, sub = arg
            high = low + _EXTRA_CHARS if high is c.MAXREPEAT else min(high, low + _EXTRA_CHARS)
            out.extend(_walk(rng, sub, c) for _ in range(_between(rng, low, high)))
        elif op is c.SUBPATTERN:
            out.append(_walk(rng, arg[-1], c))
        elif op is c.BRANCH:
            out.append(_walk(rng, _pick(rng, arg[1]), c))
        elif op is c.AT:
            continue  # anchors match positions, not characters
        else:
            raise Unsupported(f"regex construct {op}")
    return "".join(out)


def _from_pattern(rng: np.random.Generator, pattern: str) -> str:
    if pattern == DATE_PATTERN:
        return _date(rng)
    if pattern == DATETIME_PATTERN:
        return _datetime(rng)
    parser, constants = _regex_parser()
    try:
        tree = parser.parse(pattern)
    except re.error as exc:
        raise Unsupported(f"pattern {pattern!r}: {exc}") from exc
    return _walk(rng, tree, constants)


# -- JSON values -----------------------------------------------------------------------------------
def _string(rng: np.random.Generator, schema: dict[str, Any]) -> str:
    if "pattern" in schema:
        return _from_pattern(rng, schema["pattern"])
    low = int(schema.get("minLength", 0))
    high = min(int(schema.get("maxLength", low + _EXTRA_CHARS)), low + _EXTRA_CHARS)
    return "".join(_pick(rng, _ALPHABET) for _ in range(_between(rng, low, max(low, high))))


def _bounds(schema: dict[str, Any], integral: bool) -> tuple[float, float]:
    step = 1 if integral else 1e-6
    low, high = schema.get("minimum"), schema.get("maximum")
    if "exclusiveMinimum" in schema:
        low = max(schema["exclusiveMinimum"] + step, low if low is not None else -np.inf)
    if "exclusiveMaximum" in schema:
        high = min(schema["exclusiveMaximum"] - step, high if high is not None else np.inf)
    # Unbounded sides get a small range near zero (or near the one bound given).
    if low is None:
        low = 0 if high is None or high >= 0 else high - 100
    if high is None:
        high = low + 100
    return low, high


def _integer(rng: np.random.Generator, schema: dict[str, Any]) -> int:
    low, high = _bounds(schema, integral=True)
    low, high = int(np.ceil(low)), int(np.floor(high))
    if low > high:
        raise Unsupported("empty integer range")
    return _between(rng, low, high)


def _number(rng: np.random.Generator, schema: dict[str, Any]) -> float:
    low, high = _bounds(schema, integral=False)
    if low > high:
        raise Unsupported("empty number range")
    return float(round(rng.uniform(low, high), 2)) if high - low > 0.02 else float(low)


def _array(rng: np.random.Generator, schema: dict[str, Any], depth: int) -> list[Any]:
    low = int(schema.get("minItems", 0))
    high = min(int(schema.get("maxItems", low + _EXTRA_ITEMS)), low + _EXTRA_ITEMS)
    items = schema.get("items", {})
    values = [sample_value(rng, items, depth + 1) for _ in range(_between(rng, low, high))]
    if schema.get("uniqueItems"):
        unique: list[Any] = []
        for value in values:
            if value not in unique:
                unique.append(value)
        values = unique
    return values


def _object(rng: np.random.Generator, schema: dict[str, Any], depth: int) -> dict[str, Any]:
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    out: dict[str, Any] = {}
    for name, sub in properties.items():
        # Optional properties appear half the time, so both shapes of a call get exercised.
        if name in required or rng.random() < 0.5:
            out[name] = sample_value(rng, sub, depth + 1)
    extra = schema.get("additionalProperties", True)
    if isinstance(extra, dict) and not properties:
        for _ in range(_between(rng, int(schema.get("minProperties", 0)), 2)):
            out[_string(rng, {"minLength": 1, "maxLength": 8})] = sample_value(rng, extra,
                                                                               depth + 1)
    missing = required - set(out)
    if missing:
        raise Unsupported(f"required properties without a schema: {sorted(missing)}")
    return out


_TYPES = {"string": _string, "integer": _integer, "number": _number}


def sample_value(rng: np.random.Generator, schema: Any, depth: int = 0) -> Any:
    """A random JSON value meant to satisfy ``schema``. Raises :class:`Unsupported`."""
    if depth > 12:
        raise Unsupported("schema nests too deeply")
    if schema is True or schema == {}:
        return _string(rng, {})
    if not isinstance(schema, dict):
        raise Unsupported("schema is not an object")
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return _pick(rng, list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return sample_value(rng, _pick(rng, schema[key]), depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        # Prefer a real value over null, which rarely makes an interesting call.
        real = [k for k in kind if k != "null"]
        kind = _pick(rng, real) if real else "null"
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind in _TYPES:
        return _TYPES[kind](rng, schema)
    if kind == "boolean":
        return bool(rng.integers(2))
    if kind == "null":
        return None
    if kind == "array":
        return _array(rng, schema, depth)
    if kind == "object":
        return _object(rng, schema, depth)
    raise Unsupported(f"type {kind!r}")
