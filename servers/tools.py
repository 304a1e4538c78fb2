"""Tool declarations: name, description, input and output JSON Schemas, MCP annotations, code."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from .errors import EnvironmentDefinitionError
from .schema import Schema

__all__ = ["Annotations", "ToolSpec", "Toolset", "RESERVED_TOOL_NAMES"]

# The orchestrator's verbs. An agent must never be able to call one as if it were a tool.
RESERVED_TOOL_NAMES = frozenset({"reset", "step", "state", "verify", "close", "submit"})

ToolFn = Callable[..., dict[str, Any]]


@dataclass(frozen=True)
class Annotations:
    """MCP tool annotations: hints to clients about what a call does to the world."""

    read_only: bool = False
    destructive: bool = False
    idempotent: bool = False

    def to_mcp(self) -> dict[str, bool]:
        return {"readOnlyHint": self.read_only, "destructiveHint": self.destructive,
                "idempotentHint": self.idempotent, "openWorldHint": False}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    input_schema: Schema
    output_schema: Schema
    annotations: Annotations
    fn: ToolFn

    @property
    def kind(self) -> str:
        """``query`` for read-only tools, ``mutation`` otherwise (used by task synthesis)."""
        return "query" if self.annotations.read_only else "mutation"

    def describe(self) -> dict[str, Any]:
        """The tool as MCP lists it (camelCase keys, as on the wire)."""
        return {"name": self.name, "description": self.description,
                "inputSchema": self.input_schema, "outputSchema": self.output_schema,
                "annotations": self.annotations.to_mcp()}


# Schemas already checked in this process. Synthesized environments of one archetype declare
# the same schemas many times; checking each only once keeps compiling in milliseconds.
_CHECKED: set[str] = set()


def _check_schema(owner: str, schema: Schema) -> None:
    key = json.dumps(schema, sort_keys=True, default=str)
    if key not in _CHECKED:
        _check_new_schema(owner, schema)
        _CHECKED.add(key)
    if schema.get("type") != "object":
        raise EnvironmentDefinitionError(f"{owner}: schema must describe an object")


def _check_new_schema(owner: str, schema: Schema) -> None:
    try:
        _check_part(schema)
    except Exception as exc:  # jsonschema raises SchemaError; report it with the tool's name
        raise EnvironmentDefinitionError(f"{owner}: invalid JSON Schema: {exc}") from exc


def _check_part(schema: Any) -> None:
    """Check a schema against the 2020-12 meta-schema part by part, each distinct part once.

    A schema is valid when its own keywords are and each property's schema is; and a
    description, a title or a list of required names is valid whatever its words, when it has
    the right type. What is left repeats across tools (an ``id`` string, a ``limit`` integer, an
    object of properties), so a compiled server of 300 tools checks a few dozen parts instead
    of spending most of its build in the meta-schema (about 3 ms a check)."""
    if not isinstance(schema, dict):
        Draft202012Validator.check_schema(schema)
        return
    rest = dict(schema)
    for word in ("description", "title"):
        if isinstance(rest.get(word), str):
            del rest[word]
    required = rest.get("required")
    if isinstance(required, list) and all(isinstance(r, str) for r in required) \
            and len(set(required)) == len(required):
        del rest["required"]
    properties = rest.get("properties")
    if isinstance(properties, dict):
        for sub in properties.values():
            _check_part(sub)
        rest["properties"] = {}
    key = json.dumps(rest, sort_keys=True, default=str)
    if key not in _CHECKED:
        Draft202012Validator.check_schema(rest)
        _CHECKED.add(key)


class Toolset:
    """An ordered collection of tools, filled with the :meth:`tool` decorator."""

    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}

    def tool(self, *, description: str, input: Schema, output: Schema, read_only: bool = False,
             destructive: bool = False, idempotent: bool = False,
             name: str | None = None) -> Callable[[ToolFn], ToolFn]:
        """Declare the decorated function ``fn(ctx, **arguments) -> dict`` as a tool."""

        def register(fn: ToolFn) -> ToolFn:
            self.add(ToolSpec(
                name=name or fn.__name__, description=description, input_schema=input,
                output_schema=output, fn=fn,
                annotations=Annotations(read_only=read_only, destructive=destructive,
                                        idempotent=idempotent or read_only)))
            return fn

        return register

    def add(self, spec: ToolSpec) -> None:
        if spec.name in RESERVED_TOOL_NAMES:
            raise EnvironmentDefinitionError(f"tool name {spec.name!r} is reserved")
        if spec.name in self._tools:
            raise EnvironmentDefinitionError(f"duplicate tool {spec.name!r}")
        if spec.input_schema.get("additionalProperties") is not False:
            raise EnvironmentDefinitionError(f"{spec.name}: input schema must forbid extra keys")
        _check_schema(f"{spec.name} input", spec.input_schema)
        _check_schema(f"{spec.name} output", spec.output_schema)
        self._tools[spec.name] = spec

    def __iter__(self):
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str) -> ToolSpec | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)
