"""Database property schemas: checking values against them, reading rows, filtering, sorting."""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from agentworld.servers import ErrorCode, ToolError

__all__ = ["PROPERTY_OUT", "OPERATORS", "load_schema", "row_properties", "read_value",
           "check_values",
           "check_filter", "matches", "sort_rows"]

PROPERTY_OUT: dict[str, Any] = {"type": "object", "additionalProperties": {"anyOf": [
    {"type": "string", "maxLength": 2000}, {"type": "number"}, {"type": "boolean"},
    {"type": "null"}, {"type": "array", "items": {"type": "string", "maxLength": 100}}]}}

TEXT_TYPES = ("title", "rich_text", "url", "email")
_URL = re.compile(r"^https?://[^\s/$.?#][^\s]*$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")

# The filter operators each property type supports, as in Notion's query filters.
_TEXT_OPS = ("equals", "does_not_equal", "contains", "does_not_contain", "starts_with",
             "is_empty", "is_not_empty")
OPERATORS: dict[str, tuple[str, ...]] = {
    **{t: _TEXT_OPS for t in TEXT_TYPES},
    "number": ("equals", "does_not_equal", "greater_than", "less_than",
               "greater_than_or_equal_to", "less_than_or_equal_to", "is_empty", "is_not_empty"),
    "select": ("equals", "does_not_equal", "is_empty", "is_not_empty"),
    "status": ("equals", "does_not_equal", "is_empty", "is_not_empty"),
    "multi_select": ("contains", "does_not_contain", "is_empty", "is_not_empty"),
    "people": ("contains", "does_not_contain", "is_empty", "is_not_empty"),
    "date": ("equals", "before", "after", "on_or_before", "on_or_after", "is_empty",
             "is_not_empty"),
    "checkbox": ("equals", "does_not_equal"),
}
ALL_OPERATORS = tuple(sorted({op for ops in OPERATORS.values() for op in ops}))


def _bad(message: str, **details: Any) -> ToolError:
    return ToolError(ErrorCode.VALIDATION_ERROR, message, **details)


def load_schema(ctx, database_id: str) -> dict[str, dict[str, Any]]:
    """Property name -> {name, type, options}, in the database's column order."""
    props = {p["name"]: {**p, "options": []} for p in ctx.all(
        "SELECT name, type FROM database_properties WHERE database_id = ? ORDER BY position",
        (database_id,))}
    for opt in ctx.all("SELECT property_name, name, color, status_group FROM property_options "
                       "WHERE database_id = ? ORDER BY position", (database_id,)):
        props[opt["property_name"]]["options"].append(
            {"name": opt["name"], "color": opt["color"], "group": opt["status_group"]})
    return props


def title_property(schema: dict[str, dict[str, Any]]) -> str:
    return next(name for name, p in schema.items() if p["type"] == "title")


def row_properties(ctx, page: dict[str, Any]) -> dict[str, Any]:
    """Every property of a row page, empty ones as null (checkboxes as false)."""
    schema = load_schema(ctx, page["parent_database_id"])
    stored = {r["property_name"]: json.loads(r["value"]) for r in ctx.all(
        "SELECT property_name, value FROM property_values WHERE page_id = ?", (page["id"],))}
    return {name: read_value(p["type"], page["title"] if p["type"] == "title" else stored.get(name))
            for name, p in schema.items()}


def read_value(kind: str, value: Any) -> Any:
    """A stored value as tools show it: unset checkboxes are false, unset lists empty."""
    if kind == "checkbox":
        return bool(value)
    if kind in ("multi_select", "people"):
        return value or []
    return value


# -- writing values --------------------------------------------------------------------------
def check_values(ctx, schema: dict[str, dict[str, Any]],
                 values: dict[str, Any]) -> dict[str, Any]:
    """``values`` normalized for storage; VALIDATION_ERROR on any mismatch with the schema."""
    out = {}
    for name, value in values.items():
        prop = schema.get(name)
        if prop is None:
            raise _bad(f"unknown property {name!r}; this database has {sorted(schema)}",
                       property=name)
        out[name] = _check_value(ctx, prop, value)
    return out


def _check_value(ctx, prop: dict[str, Any], value: Any) -> Any:
    kind, name = prop["type"], prop["name"]
    if value is None:
        if kind in ("title", "checkbox"):
            raise _bad(f"property {name!r} ({kind}) cannot be cleared", property=name)
        return None
    checker = _CHECKERS[kind]
    return checker(ctx, prop, value)


def _want(ok: bool, prop: dict[str, Any], expected: str, value: Any) -> None:
    if not ok:
        raise _bad(f"property {prop['name']!r} is {prop['type']}: expected {expected}, "
                   f"got {value!r}", property=prop["name"], type=prop["type"])


def _check_text(ctx, prop, value):
    _want(isinstance(value, str), prop, "a string", value)
    if prop["type"] == "title":
        _want(bool(value.strip()), prop, "a non-empty title", value)
    if prop["type"] == "url":
        _want(bool(_URL.match(value)), prop, "an http(s) URL", value)
    if prop["type"] == "email":
        _want(bool(_EMAIL.match(value)), prop, "an email address", value)
    return value


def _check_number(ctx, prop, value):
    _want(isinstance(value, int | float) and not isinstance(value, bool), prop, "a number",
          value)
    return value


def _check_checkbox(ctx, prop, value):
    _want(isinstance(value, bool), prop, "true or false", value)
    return value


def _option(prop: dict[str, Any], value: Any) -> str:
    names = [o["name"] for o in prop["options"]]
    _want(isinstance(value, str), prop, "an option name", value)
    if value not in names:
        raise _bad(f"{value!r} is not an option of {prop['type']} property {prop['name']!r}; "
                   f"options are {names}", property=prop["name"], options=names)
    return value


def _check_select(ctx, prop, value):
    return _option(prop, value)


def _check_multi(ctx, prop, value):
    _want(isinstance(value, list) and len(set(value)) == len(value), prop,
          "a list of distinct option names", value)
    return [_option(prop, v) for v in value]


def _check_date(ctx, prop, value):
    _want(isinstance(value, str) and _is_date(value), prop, "a date 'YYYY-MM-DD'", value)
    return value


def _check_people(ctx, prop, value):
    _want(isinstance(value, list) and len(set(value)) == len(value), prop,
          "a list of distinct member ids", value)
    for member_id in value:
        _want(isinstance(member_id, str) and ctx.scalar(
            "SELECT 1 FROM members WHERE id = ?", (member_id,)) is not None,
            prop, "ids of workspace members", member_id)
    return value


def _is_date(value: str) -> bool:
    try:
        return len(value) == 10 and date.fromisoformat(value) is not None
    except ValueError:
        return False


_CHECKERS = {"title": _check_text, "rich_text": _check_text, "url": _check_text,
             "email": _check_text, "number": _check_number, "checkbox": _check_checkbox,
             "select": _check_select, "status": _check_select, "multi_select": _check_multi,
             "date": _check_date, "people": _check_people}


# -- querying --------------------------------------------------------------------------------
def check_filter(ctx, schema: dict[str, dict[str, Any]], flt: dict[str, Any]) -> None:
    """VALIDATION_ERROR unless the filter's operator and value suit the property's type."""
    prop = schema.get(flt["property"])
    if prop is None:
        raise _bad(f"cannot filter on unknown property {flt['property']!r}",
                   property=flt["property"])
    allowed = OPERATORS[prop["type"]]
    if flt["operator"] not in allowed:
        raise _bad(f"operator {flt['operator']!r} does not apply to {prop['type']} property "
                   f"{prop['name']!r}; use one of {list(allowed)}", operators=list(allowed))
    value = flt.get("value")
    if flt["operator"] in ("is_empty", "is_not_empty"):
        if value is not None:
            raise _bad(f"operator {flt['operator']!r} takes no value")
        return
    if value is None:
        raise _bad(f"operator {flt['operator']!r} needs a value")
    kind = prop["type"]
    if kind == "people":
        _check_people(ctx, prop, [value])
        return
    # Text filters match fragments, so a url or email filter value need not be a full one.
    element = "rich_text" if kind in TEXT_TYPES else "select" if kind == "multi_select" else kind
    _CHECKERS[element](ctx, {**prop, "type": element}, value)


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == []


def matches(kind: str, op: str, stored: Any, operand: Any) -> bool:
    """Whether a row's stored value passes one filter (already checked by check_filter)."""
    if op == "is_empty":
        return _empty(stored)
    if op == "is_not_empty":
        return not _empty(stored)
    if kind == "checkbox":
        stored = bool(stored)
    if op == "does_not_equal":
        return stored != operand
    if op == "does_not_contain":
        return not matches(kind, "contains", stored, operand)
    if _empty(stored):
        return False
    if kind in TEXT_TYPES:
        stored, operand = stored.lower(), operand.lower()
    compare = {"equals": lambda: stored == operand,
               "contains": lambda: operand in stored,
               "starts_with": lambda: stored.startswith(operand),
               "greater_than": lambda: stored > operand, "after": lambda: stored > operand,
               "less_than": lambda: stored < operand, "before": lambda: stored < operand,
               "greater_than_or_equal_to": lambda: stored >= operand,
               "on_or_after": lambda: stored >= operand,
               "less_than_or_equal_to": lambda: stored <= operand,
               "on_or_before": lambda: stored <= operand}
    return compare[op]()


def sort_rows(rows: list[dict[str, Any]], prop: dict[str, Any],
              descending: bool) -> list[dict[str, Any]]:
    """Rows ordered by one property; empty values always last, as Notion shows them."""
    name = prop["name"]
    order = {o["name"]: i for i, o in enumerate(prop["options"])}

    def key(row: dict[str, Any]) -> Any:
        value = row["properties"][name]
        if prop["type"] in ("select", "status"):
            return order.get(value, len(order))
        if isinstance(value, list):
            return ", ".join(value).lower()
        return value.lower() if isinstance(value, str) else value

    filled = [r for r in rows if not _empty(r["properties"][name])]
    empty = [r for r in rows if _empty(r["properties"][name])]
    return sorted(filled, key=key, reverse=descending) + empty
