"""Small builders for the JSON Schemas of tool inputs and outputs.

Environments declare schemas as plain JSON Schema (draft 2020-12) dicts; these helpers only keep
the declarations short and make the safe choices the default: every string has a ``maxLength``,
every object forbids unknown keys.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "string",
    "text",
    "identifier",
    "integer",
    "number",
    "boolean",
    "enum",
    "date",
    "datetime",
    "array",
    "obj",
    "nullable",
    "page_of",
]

Schema = dict[str, Any]


def _with(schema: Schema, description: str | None) -> Schema:
    if description:
        schema["description"] = description
    return schema


def string(description: str | None = None, *, max_length: int = 200, min_length: int = 0,
           pattern: str | None = None) -> Schema:
    schema: Schema = {"type": "string", "maxLength": max_length}
    if min_length:
        schema["minLength"] = min_length
    if pattern:
        schema["pattern"] = pattern
    return _with(schema, description)


def text(description: str | None = None, *, max_length: int = 20_000) -> Schema:
    """Free text such as a comment body: longer than a name, still bounded."""
    return string(description, max_length=max_length)


def identifier(description: str | None = None) -> Schema:
    return string(description, max_length=64, min_length=1)


def integer(description: str | None = None, *, minimum: int | None = None,
            maximum: int | None = None) -> Schema:
    schema: Schema = {"type": "integer"}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return _with(schema, description)


def number(description: str | None = None, *, minimum: float | None = None,
           maximum: float | None = None) -> Schema:
    schema: Schema = {"type": "number"}
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return _with(schema, description)


def boolean(description: str | None = None) -> Schema:
    return _with({"type": "boolean"}, description)


def enum(values: list[str] | tuple[str, ...], description: str | None = None) -> Schema:
    return _with({"type": "string", "enum": list(values)}, description)


def date(description: str | None = None) -> Schema:
    return string(description, max_length=10, pattern=r"^\d{4}-\d{2}-\d{2}$")


def datetime(description: str | None = None) -> Schema:
    return string(description, max_length=32, pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")


def array(items: Schema, description: str | None = None, *, max_items: int = 100,
          min_items: int = 0) -> Schema:
    schema: Schema = {"type": "array", "items": items, "maxItems": max_items}
    if min_items:
        schema["minItems"] = min_items
    return _with(schema, description)


def obj(properties: dict[str, Schema], required: list[str] | tuple[str, ...] | None = None,
        description: str | None = None) -> Schema:
    """An object that forbids unknown keys. ``required`` defaults to every property."""
    req = list(properties) if required is None else list(required)
    unknown = set(req) - set(properties)
    if unknown:
        raise ValueError(f"required names unknown properties: {sorted(unknown)}")
    schema: Schema = {"type": "object", "properties": properties, "required": req,
                      "additionalProperties": False}
    return _with(schema, description)


def nullable(schema: Schema) -> Schema:
    """The same schema, also accepting JSON null (for optional columns in outputs)."""
    out = dict(schema)
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def page_of(item: Schema, key: str) -> Schema:
    """Output of a paged listing: the items under ``key`` plus a cursor for the next page."""
    return obj({key: array(item, max_items=1000),
                "next_cursor": nullable(string("Pass as `cursor` to get the next page.")),
                "total": integer("How many items match in all.", minimum=0)})
