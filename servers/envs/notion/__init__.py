"""Notion: a company workspace of pages, blocks, databases, comments and sharing.

``DEFINITION`` is the environment; ``EXAMPLE_CALLS`` is a replayable tour of every tool.
"""

from __future__ import annotations

from pathlib import Path

from agentworld.servers import EnvironmentDefinition

from . import tools_blocks, tools_collab, tools_databases, tools_pages  # noqa: F401  (register)
from .common import tools
from .examples import EXAMPLE_CALLS
from .manifest import MANIFEST
from .seed import seed

__all__ = ["DEFINITION", "EXAMPLE_CALLS"]

DEFINITION = EnvironmentDefinition(
    manifest=MANIFEST,
    schema_sql=Path(__file__).with_name("schema.sql").read_text(encoding="utf-8"),
    seed=seed,
    tools=tools,
)
