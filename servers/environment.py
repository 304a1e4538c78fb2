"""An environment: a manifest, a schema with seed data, and tools; loaded once, sessions many."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator

from .database import Template
from .errors import EnvironmentDefinitionError
from .manifest import Manifest
from .tasks import Task
from .tools import Toolset, ToolSpec

__all__ = ["EnvironmentDefinition", "Environment"]


@dataclass(frozen=True)
class EnvironmentDefinition:
    """Everything that defines an environment, as data plus the tools' code."""

    manifest: Manifest
    schema_sql: str
    seed: Callable[[sqlite3.Connection], None]
    tools: Toolset
    tasks: tuple[Task, ...] = ()

    def __post_init__(self) -> None:
        unknown = {t for rule in self.manifest.rules for t in rule.tools} - set(self.tools.names())
        if unknown:
            raise EnvironmentDefinitionError(
                f"{self.manifest.id}: rules name unknown tools {sorted(unknown)}")
        ids = [task.id for task in self.tasks]
        if len(ids) != len(set(ids)):
            raise EnvironmentDefinitionError(f"{self.manifest.id}: duplicate task ids")


class Environment:
    """A loaded environment: compiled validators and a lazily built template database.

    Thread-safe: the template is built once even when many sessions start at the same time.
    """

    def __init__(self, definition: EnvironmentDefinition) -> None:
        self.definition = definition
        self.manifest: Manifest = definition.manifest
        self.tools: Toolset = definition.tools
        self.input_validators = {t.name: Draft202012Validator(t.input_schema) for t in self.tools}
        self.output_validators = {t.name: Draft202012Validator(t.output_schema) for t in self.tools}
        self._template: Template | None = None
        self._lock = threading.Lock()

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def template(self) -> Template:
        if self._template is None:
            with self._lock:
                if self._template is None:
                    self._template = Template(self.definition.schema_sql, self.definition.seed)
        return self._template

    @property
    def tasks(self) -> tuple[Task, ...]:
        return self.definition.tasks

    def task(self, task_id: str) -> Task | None:
        return next((t for t in self.definition.tasks if t.id == task_id), None)

    def warm(self) -> Environment:
        """Build the template database now rather than on the first session."""
        _ = self.template
        return self

    def tool(self, name: str) -> ToolSpec | None:
        return self.tools.get(name)

    def tool_list(self) -> list[dict[str, Any]]:
        return [t.describe() for t in self.tools]

    @property
    def content_hash(self) -> str:
        """A digest of everything a session can observe: version, schema, tools, seed data."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update(self.manifest.version.encode())
        digest.update(self.definition.schema_sql.encode())
        digest.update(json.dumps(self.tool_list(), sort_keys=True).encode())
        digest.update(self.template.hash.encode())
        return digest.hexdigest()

    def describe(self) -> dict[str, Any]:
        """Manifest, content hash and tools: what `agentworld show` and the hub return."""
        return {**self.manifest.to_dict(), "content_hash": self.content_hash,
                "tools": self.tool_list()}
