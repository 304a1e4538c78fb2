"""An environment: a manifest, a schema with seed data, and tools; loaded once, sessions many."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from jsonschema import Draft202012Validator

from .context import ToolContext
from .database import Template
from .errors import EnvironmentDefinitionError
from .manifest import Manifest
from .tasks import Task
from .template_cache import TemplateCache
from .tools import Toolset, ToolSpec

__all__ = ["EnvironmentDefinition", "Environment", "SessionHooks"]


class SessionHooks(Protocol):
    """Setup and teardown around every session, for environments whose tools run elsewhere.

    ``open`` runs when a session starts (after its database is cloned) and may keep per-session
    state in ``ctx.extra``; ``close`` runs once when it ends. An exception from ``open`` fails
    the session's creation. Tools reach that state through the ``ctx`` they are called with.
    """

    def open(self, ctx: ToolContext) -> None: ...

    def close(self, ctx: ToolContext) -> None: ...


@dataclass(frozen=True)
class EnvironmentDefinition:
    """Everything that defines an environment, as data plus the tools' code."""

    manifest: Manifest
    schema_sql: str
    seed: Callable[[sqlite3.Connection], None]
    tools: Toolset
    tasks: tuple[Task, ...] = ()
    session_hooks: SessionHooks | None = None

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

    def __init__(self, definition: EnvironmentDefinition, *, cache: TemplateCache | None = None,
                 cache_key: str | None = None) -> None:
        """``cache`` and ``cache_key`` keep the built template on disk: the key must change
        whenever the schema or the seed data would."""
        self.definition = definition
        self._cache, self._cache_key = (cache, cache_key) if cache_key else (None, None)
        self.manifest: Manifest = definition.manifest
        self.tools: Toolset = definition.tools
        self.input_validators = {t.name: Draft202012Validator(t.input_schema) for t in self.tools}
        self.output_validators = {t.name: Draft202012Validator(t.output_schema) for t in self.tools}
        self._template: Template | None = None
        self._lock = threading.Lock()
        self._task_source: Callable[[], tuple[Task, ...]] | None = None
        self._tasks_lock = threading.Lock()
        self._more_tasks: tuple[Task, ...] | None = None

    @property
    def id(self) -> str:
        return self.manifest.id

    @property
    def template(self) -> Template:
        if self._template is None:
            with self._lock:
                if self._template is None:
                    self._template = self._load_or_build()
        return self._template

    def _load_or_build(self) -> Template:
        if self._cache is not None:
            image = self._cache.load(self.id, self._cache_key)
            if image is not None:
                return Template.from_image(image)
        template = Template(self.definition.schema_sql, self.definition.seed)
        if self._cache is not None:
            self._cache.store(self.id, self._cache_key, template.image)
        return template

    def attach_tasks(self, source: Callable[[], tuple[Task, ...]]) -> None:
        """Add tasks kept outside the definition (generated ones), loaded on first use."""
        self._task_source, self._more_tasks = source, None

    @property
    def tasks(self) -> tuple[Task, ...]:
        if self._task_source is None:
            return self.definition.tasks
        if self._more_tasks is None:
            # Its own lock: generating tasks builds the template, which takes self._lock.
            with self._tasks_lock:
                if self._more_tasks is None:
                    self._more_tasks = tuple(self._task_source())
        return self.definition.tasks + self._more_tasks

    def task(self, task_id: str) -> Task | None:
        return next((t for t in self.tasks if t.id == task_id), None)

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
