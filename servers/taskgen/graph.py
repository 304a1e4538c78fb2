"""The tool dependency graph of an environment, read from its tool schemas alone.

An edge ``a -> b`` means an output of ``a`` can feed an input of ``b``: the same key (``email``
to ``email``), or an object's ``id`` to an ``<object>_id`` input (``reservation.id`` to
``reservation_id``), or to the ``id`` input of a tool about that object (``get_reservation``).
Tools are labelled query (read-only) or mutation. This works for any environment: hand-built,
synthesized or imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentworld.servers.tools import ToolSpec
from agentworld.servers.words import singular

__all__ = ["ToolNode", "ToolGraph", "provided_tokens", "server_prefix", "subject_words"]


def provided_tokens(schema: dict[str, Any], parent: str = "", depth: int = 0) -> set[str]:
    """Input names an output of this shape can satisfy."""
    tokens: set[str] = set()
    if depth > 6 or not isinstance(schema, dict):
        return tokens
    if schema.get("type") == "array" or "items" in schema:
        return provided_tokens(schema.get("items", {}), parent, depth + 1)
    for key, sub in (schema.get("properties") or {}).items():
        if key == "id":
            # A bare id only means something together with what it identifies.
            if parent:
                tokens |= {f"{parent}_id", f"id@{parent}"}
            continue
        tokens.add(key)
        tokens |= provided_tokens(sub, singular(key), depth + 1)
    return tokens


def server_prefix(names: list[str]) -> str:
    """The word a server puts before most of its tool names (``fintable_`` in
    ``fintable_list_rules``), with its underscore and in lower case; ``""`` when there is none.
    A request names the act, not the server."""
    from agentworld.servers.world.mined.model import common_first_words

    for word in sorted(common_first_words(names)):
        if sum(n.lower().startswith(word + "_") for n in names) >= max(3, 0.6 * len(names)):
            return word + "_"
    return ""


# Words a tool name puts around its noun that a request would not say: list_my_announcements
# lists announcements ("Find the my announcements" reads wrong), get_all_users gets users, and
# create_page_rule_tool creates a page rule.
_QUALIFIERS = frozenset({"my", "all", "tool"})


def subject_words(rest: str) -> str:
    """A tool name's part after its verb, without the qualifiers a request would not say."""
    kept = [w for w in rest.split("_") if w and w.lower() not in _QUALIFIERS]
    return "_".join(kept) or rest


def _noun(name: str) -> str:
    """What a tool is about: ``get_reservation`` -> ``reservation``."""
    parts = name.split("_", 1)
    return singular(subject_words(parts[1])) if len(parts) == 2 else name


@dataclass
class ToolNode:
    spec: ToolSpec
    noun: str
    name: str                         # the tool's name without its server's prefix
    kind: str                         # "query" or "mutation"
    required: tuple[str, ...]
    optional: tuple[str, ...]
    provides: set[str] = field(default_factory=set)

    def accepts(self, token: str) -> bool:
        needs = (set(self.required) | set(self.optional)) - {"id", "limit", "cursor"}
        return token in needs or (token == f"id@{self.noun}" and "id" in self.required)


@dataclass
class ToolGraph:
    nodes: dict[str, ToolNode]
    edges: dict[str, set[str]]

    @classmethod
    def of(cls, tools) -> ToolGraph:
        nodes = {}
        tools = list(tools)
        prefix = server_prefix([spec.name for spec in tools])
        for spec in tools:
            props = spec.input_schema.get("properties", {})
            required = tuple(spec.input_schema.get("required", []))
            name = spec.name[len(prefix):] if prefix and spec.name.lower().startswith(
                prefix) and len(spec.name) > len(prefix) else spec.name
            nodes[spec.name] = ToolNode(
                spec=spec, noun=_noun(name), name=name, kind=spec.kind, required=required,
                optional=tuple(p for p in props if p not in required),
                provides=provided_tokens(spec.output_schema))
        edges = {name: {other for other, node in nodes.items() if other != name
                        and any(node.accepts(t) for t in nodes[name].provides)}
                 for name in nodes}
        return cls(nodes, edges)

    def describe(self) -> dict[str, Any]:
        return {"tools": {n: {"kind": v.kind, "noun": v.noun} for n, v in self.nodes.items()},
                "edges": {n: sorted(e) for n, e in self.edges.items()}}
