"""The records a mined server's surface is made of: tools and their parameters."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Param", "MinedTool", "Problem", "Surface"]


@dataclass
class Param:
    """One tool parameter as declared: JSON-schema type, requiredness, enum, default.

    ``description`` is the author's text; it is kept in memory for build time and never written
    to the pinned snapshot.
    """

    name: str
    type: str = "any"                 # string, integer, number, boolean, array, object, null, any
    required: bool = True
    enum: list[Any] | None = None
    items: str | None = None          # the element type of an array
    default: Any = None
    description: str | None = None

    def facts(self) -> dict[str, Any]:
        """The parameter without the author's words: what the snapshot stores."""
        out: dict[str, Any] = {"name": self.name, "type": self.type, "required": self.required}
        if self.enum is not None:
            out["enum"] = self.enum
        if self.items:
            out["items"] = self.items
        return out


@dataclass
class MinedTool:
    """One tool: its name, its parameters (``None`` when the schema is not a literal)."""

    name: str
    params: list[Param] | None
    source: str                       # "decorator" or "tool-literal"
    member: str                       # the archive member it was read from
    description: str | None = None
    hints: dict[str, bool] = field(default_factory=dict)   # readOnlyHint, destructiveHint, ...

    def facts(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "source": self.source}
        out["params"] = None if self.params is None else [p.facts() for p in self.params]
        if self.hints:
            out["hints"] = dict(sorted(self.hints.items()))
        return out


@dataclass(frozen=True)
class Problem:
    """Something skipped while mining, with a stable code for counting."""

    member: str
    code: str        # syntax-error, too-large, not-utf8, deep-schema, recursive-schema, ...
    detail: str = ""


@dataclass
class Surface:
    """Everything statically read from one package."""

    tools: list[MinedTool] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
