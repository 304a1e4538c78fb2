"""Arguments that only change how a reply looks: a sort, an order, a format, a field list.

They never change what a task asks for, so no check requires them and the audit drops them from
a solution as an equivalent one (the tool's defaults instead of the reference's choice).
"""

from __future__ import annotations

import re
from typing import Any

from agentworld.servers.tools import ToolSpec

__all__ = ["presentation_args", "is_presentation"]

_NAMES = frozenset({
    "sort", "sort_by", "sortby", "sort_order", "sort_direction", "sort_field", "order",
    "order_by", "orderby", "direction", "format", "output_format", "response_format",
    "fields", "select", "verbose", "pretty", "view", "output", "detail", "details",
    "include_details", "expand", "locale_format", "date_format", "markdown", "as_markdown"})
_SAYS = re.compile(
    r"presentation option|does not change which records|sort(?:ed)? (?:order|by)|order of the "
    r"(?:results|records|items)|field to sort|format of the (?:reply|response|output)|output "
    r"format|response format|how (?:the )?results are (?:shown|displayed|formatted)", re.I)


def is_presentation(name: str, schema: dict[str, Any]) -> bool:
    """Whether an argument only shapes the reply (by its name or its own description)."""
    return name.lower() in _NAMES or bool(_SAYS.search(str(schema.get("description", ""))))


def presentation_args(spec: ToolSpec) -> set[str]:
    """The tool's optional arguments that only shape its reply."""
    schema = spec.input_schema
    required = set(schema.get("required", ()))
    return {name for name, sub in (schema.get("properties") or {}).items()
            if name not in required and is_presentation(name, sub if isinstance(sub, dict)
                                                        else {})}
