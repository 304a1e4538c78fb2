"""A fast, conservative pre-check of JSON values against the JSON Schema subset tools use.

``jsonschema`` walks a value with a validator object per node: 9 ms for one seat map's output
(bench/latency.py), most of a step. :func:`compile_check` turns a schema into plain closures that
answer "certainly valid". They are stricter than the specification (an ``integer`` must be an
``int``, a keyword it does not know makes the whole schema uncompilable), so a False or an
uncompilable schema only means "ask jsonschema", which stays the single source of verdicts and
of error messages. A True is never wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["compile_check"]

Check = Callable[[Any], bool]

# Keywords with no effect on validity.
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$comment",
                          "deprecated", "readOnly", "writeOnly", "$schema", "$id"})
_TYPES: dict[str, Check] = {
    "string": lambda v: type(v) is str,
    "integer": lambda v: type(v) is int,
    "number": lambda v: type(v) is int or type(v) is float,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
}


class _Unsupported(Exception):
    pass


def compile_check(schema: Any) -> Check | None:
    """A checker for ``schema``, or None when it uses anything this module does not model."""
    try:
        return _compile(schema)
    except _Unsupported:
        return None


def _compile(schema: Any) -> Check:
    if schema is True:
        return lambda v: True
    if not isinstance(schema, dict):
        raise _Unsupported
    checks: list[Check] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        builder = _BUILDERS.get(key)
        if builder is None:
            raise _Unsupported
        if key in ("required", "additionalProperties"):
            continue  # folded into "properties" / checked below
        checks.append(builder(value, schema))
    if "additionalProperties" in schema and "properties" not in schema:
        checks.append(_properties({}, schema))
    if "required" in schema and "properties" not in schema:
        checks.append(_properties({}, schema))
    return _all(checks)


def _all(checks: list[Check]) -> Check:
    if len(checks) == 1:
        return checks[0]
    return lambda v: all(check(v) for check in checks)


def _type(value: Any, schema: dict) -> Check:
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or any(n not in _TYPES for n in names):
        raise _Unsupported
    tests = [_TYPES[n] for n in names]
    return lambda v: any(test(v) for test in tests)


def _properties(value: Any, schema: dict) -> Check:
    if not isinstance(value, dict):
        raise _Unsupported
    props = {name: _compile(sub) for name, sub in value.items()}
    required = schema.get("required", [])
    extra = schema.get("additionalProperties", True)
    if not isinstance(required, list):
        raise _Unsupported
    # True: any extra key; False: none; a schema: every extra value must match it.
    other = None if extra is True or extra is False else _compile(extra)
    closed = extra is False

    def check(v: Any) -> bool:
        if type(v) is not dict:
            return True  # "properties" says nothing about non-objects
        for name in required:
            if name not in v:
                return False
        for name, item in v.items():
            sub = props.get(name)
            if sub is None:
                if closed or (other is not None and not other(item)):
                    return False
            elif not sub(item):
                return False
        return True

    return check


def _items(value: Any, schema: dict) -> Check:
    sub = _compile(value)
    return lambda v: type(v) is not list or all(sub(item) for item in v)


def _bound(kind: type, test: Callable[[Any, Any], bool]) -> Callable[[Any, dict], Check]:
    def build(value: Any, schema: dict) -> Check:
        if type(value) not in (int, float):
            raise _Unsupported
        return lambda v: type(v) is not kind or test(v, value)
    return build


def _number_bound(test: Callable[[Any, Any], bool]) -> Callable[[Any, dict], Check]:
    def build(value: Any, schema: dict) -> Check:
        if type(value) not in (int, float):
            raise _Unsupported
        # bools are not numbers in JSON Schema; NaN fails every comparison (and falls back).
        return lambda v: type(v) not in (int, float) or test(v, value)
    return build


def _pattern(value: Any, schema: dict) -> Check:
    if not isinstance(value, str):
        raise _Unsupported
    try:
        search = re.compile(value).search
    except re.error as exc:
        raise _Unsupported from exc
    return lambda v: type(v) is not str or search(v) is not None


def _enum(value: Any, schema: dict) -> Check:
    if not isinstance(value, list) or any(
            e is not None and type(e) is not str for e in value):
        raise _Unsupported  # only strings and null: no 1 == 1.0 == True subtleties
    allowed = set(value)
    return lambda v: (v is None or type(v) is str) and v in allowed


def _any_of(value: Any, schema: dict) -> Check:
    if not isinstance(value, list) or not value:
        raise _Unsupported
    subs = [_compile(sub) for sub in value]
    return lambda v: any(sub(v) for sub in subs)


def _count(kind: type, low: bool) -> Callable[[Any, dict], Check]:
    def build(value: Any, schema: dict) -> Check:
        if type(value) is not int:
            raise _Unsupported
        if low:
            return lambda v: type(v) is not kind or len(v) >= value
        return lambda v: type(v) is not kind or len(v) <= value
    return build


def _property_names(value: Any, schema: dict) -> Check:
    sub = _compile(value)
    return lambda v: type(v) is not dict or all(sub(name) for name in v)


_BUILDERS: dict[str, Callable[[Any, dict], Check]] = {
    "type": _type,
    "properties": _properties,
    "required": _properties,
    "additionalProperties": _properties,
    "items": _items,
    "propertyNames": _property_names,
    "enum": _enum,
    "anyOf": _any_of,
    "pattern": _pattern,
    "minimum": _number_bound(lambda v, bound: v >= bound),
    "maximum": _number_bound(lambda v, bound: v <= bound),
    "minLength": _count(str, low=True),
    "maxLength": _count(str, low=False),
    "minItems": _count(list, low=True),
    "maxItems": _count(list, low=False),
    "minProperties": _count(dict, low=True),
    "maxProperties": _count(dict, low=False),
}
