"""Views of an environment's tools for a model's prompt: full, compact (types only), and a
relevant-tools subset.

Catalog prompts that render every tool with its full schema run to about 4,900 tokens (median,
33 tools), beyond what a small model can use. A view keeps the prompt short in two ways:

* ``compact``: each tool keeps its name and the first sentence of its description; its input
  schema keeps only the types (``type``, ``items``, ``enum``, ``required``), no descriptions,
  formats or bounds;
* ``:N``: only the N tools most relevant to the task (the tools its reference solution uses
  first, then those whose names and descriptions share the most words with the task).

The hub names the relevance order in its reset info (``relevant_tools``), so every client (SFT,
TRL, OpenRLHF, evaluation) renders the same view from the same two inputs: the tool list and that
order. A view is spelled ``full``, ``compact``, ``full:N`` or ``compact:N``.

Note that the subset uses the reference solution: it is oracle-assisted retrieval, a curriculum
lever ("fewer tools shown"), not a claim about finding tools unaided.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import RuntimeFault

__all__ = ["ToolView", "ToolViewError", "parse_view", "compact_schema", "compact_tool",
           "relevant_tool_names", "task_tool_order", "apply_view", "FULL"]

_KEEP = ("type", "enum", "required")
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an and are as at be by do for from get give how in is it its list me "
                  "my new of on or set show the their this to what which with you your".split())


class ToolViewError(RuntimeFault, ValueError):
    """A tool view spec that cannot be read."""

    def __init__(self, spec: str) -> None:
        super().__init__(f"bad tool view {spec!r}: use full, compact, full:N or compact:N "
                         "(N a positive number of tools)")
        self.spec = spec


@dataclass(frozen=True)
class ToolView:
    """How tools are shown: ``compact`` schemas or not, and at most ``limit`` of them."""

    compact: bool = False
    limit: int | None = None

    def __str__(self) -> str:
        base = "compact" if self.compact else "full"
        return f"{base}:{self.limit}" if self.limit else base


FULL = ToolView()


def parse_view(spec: str | ToolView | None) -> ToolView:
    """A :class:`ToolView` from its spelling (None and ``""`` mean ``full``).

    Raises:
        ToolViewError: the spec is not ``full``, ``compact``, ``full:N`` or ``compact:N``.
    """
    if isinstance(spec, ToolView):
        return spec
    if not spec:
        return FULL
    base, colon, limit = str(spec).strip().partition(":")
    if base not in ("full", "compact") or (colon and not limit.isdigit()) or limit == "0":
        raise ToolViewError(str(spec))
    return ToolView(compact=base == "compact", limit=int(limit) if limit else None)


def compact_schema(schema: Any) -> Any:
    """A JSON Schema with only its types: ``type``, ``enum``, ``required``, and the same for
    ``properties`` and ``items`` (descriptions, formats, bounds and defaults dropped)."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {k: schema[k] for k in _KEEP if k in schema}
    if isinstance(schema.get("properties"), Mapping):
        out["properties"] = {k: compact_schema(v) for k, v in schema["properties"].items()}
    if "items" in schema:
        out["items"] = compact_schema(schema["items"])
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list):
            out[union] = [compact_schema(v) for v in schema[union]]
    return out


def _first_sentence(text: str) -> str:
    flat = " ".join(str(text or "").split())
    match = re.search(r"(?<=[.!?])\s", flat)
    return flat[:match.start()] if match else flat


def compact_tool(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An MCP tool (``name``, ``description``, ``inputSchema``) in the compact view."""
    return {"name": tool["name"], "description": _first_sentence(tool.get("description", "")),
            "inputSchema": compact_schema(tool.get("inputSchema") or {"type": "object"})}


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower().replace("_", " ")) if w not in _STOP}


def relevant_tool_names(tools: Sequence[Mapping[str, Any]], *, prompt: str,
                        used: Sequence[str] = ()) -> list[str]:
    """Every tool name, most relevant to the task first: the tools of its reference solution
    (``used``, in order of first use), then by words shared with the prompt, then in the
    environment's own order."""
    names = [t["name"] for t in tools]
    first = list(dict.fromkeys(n for n in used if n in names))
    asked = _words(prompt)

    def score(i: int) -> tuple[int, int]:
        tool = tools[i]
        name_words = _words(tool["name"])
        overlap = len(asked & name_words) * 2 + len(asked & _words(tool.get("description", "")))
        return (-overlap, i)
    rest = [names[i] for i in sorted(range(len(tools)), key=score) if names[i] not in first]
    return first + rest


def apply_view(tools: Sequence[Mapping[str, Any]], view: str | ToolView | None, *,
               relevant: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """The tools as ``view`` shows them, in the environment's order.

    ``relevant`` is the relevance order (the hub's ``relevant_tools``); without it a limited
    view keeps the first tools.

    Raises:
        ToolViewError: ``view`` cannot be read.
    """
    view = parse_view(view)
    chosen = list(tools)
    if view.limit is not None and view.limit < len(chosen):
        order = list(relevant) if relevant else [t["name"] for t in tools]
        keep = set(order[:view.limit])
        chosen = [t for t in chosen if t["name"] in keep]
    return [compact_tool(t) if view.compact else dict(t) for t in chosen]


_ORDERS: dict[tuple[str, str, str | None], list[str]] = {}
_ORDERS_MAX = 65536


def task_tool_order(env: Any, task: Any | None) -> list[str]:
    """:func:`relevant_tool_names` for a runtime environment and task (None: no task), cached
    per environment version and task: the hub puts it in every reset's info."""
    key = (env.id, env.manifest.version, task.id if task is not None else None)
    order = _ORDERS.get(key)
    if order is None:
        if len(_ORDERS) >= _ORDERS_MAX:
            _ORDERS.clear()
        tools = env.tool_list()
        order = _ORDERS[key] = relevant_tool_names(
            tools, prompt=task.prompt if task is not None else "",
            used=[n for n, _ in task.reference_calls] if task is not None else ())
    return list(order)
