"""The environment runtime and the fleet: format, tool engine, MCP server, catalog."""

from .catalog import Catalog, default_catalog
from .context import ToolContext
from .environment import Environment, EnvironmentDefinition
from .errors import ErrorCode, RuntimeFault, ToolError, UnknownEnvironmentError, not_found
from .manifest import DataSource, Manifest, Rule, Taxonomy
from .runtime import Session, ToolResult
from .tools import Annotations, Toolset, ToolSpec

__all__ = [
    "Annotations", "Catalog", "DataSource", "Environment", "EnvironmentDefinition", "ErrorCode",
    "Manifest", "Rule", "RuntimeFault", "Session", "Taxonomy", "ToolContext", "ToolError",
    "ToolResult", "ToolSpec", "Toolset", "UnknownEnvironmentError", "default_catalog",
    "not_found",
]
