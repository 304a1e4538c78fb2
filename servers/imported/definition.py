"""Imported environments as ordinary :class:`EnvironmentDefinition` objects.

Loading reads JSON and SQL text only; no release code runs in this process. The definition's
tools forward to a :class:`WorkerPool`, its session hooks give every session a private folder,
and its template database is the SQLite view of the data folder, so verifiers, the diagnosis
and task synthesis see an imported environment exactly like one of ours.

Graph-based task synthesis sees an imported environment like any other: ``definition.tools``
(schemas, and ``kind`` query/mutation from what each tool's code does), the template database
(``Environment.template``) and sessions whose view follows every call. It runs at import time
(``agentworld import agent-world --tasks``) or through ``agentworld tasks generate``, never
while an environment loads.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

from ..environment import EnvironmentDefinition
from ..errors import EnvironmentDefinitionError
from ..manifest import DataSource, Manifest, Rule, Taxonomy
from ..tools import Annotations, Toolset, ToolSpec
from . import view
from .backend import FolderBackend
from .convert import FORMAT
from .pool import WorkerPool
from .tasks import question_tasks

__all__ = ["ImportedDirectory", "load_definition", "OUTPUT_SCHEMA"]

# Release tools declare no output schema; any JSON object is accepted (junk is refused earlier,
# and a list or scalar reaches the runtime wrapped as {"result": value}).
OUTPUT_SCHEMA = {"type": "object"}
_ENV_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def _read_doc(folder: Path) -> dict[str, Any]:
    try:
        doc = json.loads((folder / "environment.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EnvironmentDefinitionError(f"{folder}: unreadable environment.json") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("id") != folder.name:
        raise EnvironmentDefinitionError(f"{folder}: not an imported environment ({FORMAT})")
    return doc


def _version(doc: dict[str, Any], backend: FolderBackend) -> str:
    # The code and the data are part of what a session observes, so they are in the version
    # (and through it in Environment.content_hash).
    digest = hashlib.blake2b(digest_size=6)
    for tool in doc["tools"]:
        digest.update(tool["implementation"].encode())
    for name, data in backend.template_files().items():
        digest.update(name.encode() + b"\0" + data)
    return f"{doc.get('version', '1.0.0')}+{digest.hexdigest()}"


def _manifest(doc: dict[str, Any], folder: Path, version: str) -> Manifest:
    tax = doc["taxonomy"]
    source = doc.get("source", {})
    return Manifest(
        id=doc["id"], version=version, title=doc["title"], description=doc["description"],
        taxonomy=Taxonomy(tax["l1"], tax["l2"], tax["l3"]),
        # The README (schema, lifecycle, business rules) is one rule in prose: the MCP server
        # hands it to the agent as instructions. Refusals of an unknown kind map to this code.
        rules=(Rule("release-readme", (folder / "rules.md").read_text(encoding="utf-8"), (),
                    "PRECONDITION_FAILED"),),
        data_sources=(DataSource(f"{source.get('release', 'release')} {source.get('id', '')}",
                                 source.get("licence", "unknown"),
                                 "Imported from the release: data, tools and rules as given."),),
        tags=("imported",))


def _toolset(doc: dict[str, Any], backend: FolderBackend) -> Toolset:
    tools = Toolset()
    for t in doc["tools"]:
        tools.add(ToolSpec(
            name=t["name"], description=t["description"], input_schema=t["input_schema"],
            output_schema=t.get("output_schema") or OUTPUT_SCHEMA,
            annotations=Annotations(read_only=t["read_only"], idempotent=t["read_only"]),
            fn=backend.tool_fn(t["name"], t["function"], t["implementation"])))
    return tools


def _seed(backend: FolderBackend):
    def seed(conn: sqlite3.Connection) -> None:
        files = backend.template_files()
        for table, name in backend.tables.items():
            data = files.get(name)
            rows = view.collection_rows(json.loads(data)) if data is not None else []
            view.replace_table(conn, table, rows)

    return seed


def load_definition(folder: Path, *, pool: WorkerPool,
                    sessions_dir: Path | None = None) -> EnvironmentDefinition:
    """The definition of the imported environment in ``folder``.

    Raises EnvironmentDefinitionError if the folder is not one the importer wrote.
    """
    folder = Path(folder)
    doc = _read_doc(folder)
    backend = FolderBackend(env_id=doc["id"], data_dir=folder / "data",
                            tables=doc.get("tables", {}), pool=pool, sessions_dir=sessions_dir)
    tasks_path = folder / "tasks.json"
    questions = json.loads(tasks_path.read_text()) if tasks_path.is_file() else []
    definition = EnvironmentDefinition(
        manifest=_manifest(doc, folder, _version(doc, backend)),
        schema_sql=(folder / "schema.sql").read_text(), seed=_seed(backend),
        tools=_toolset(doc, backend), tasks=question_tasks(doc["id"], questions, doc["tools"]),
        session_hooks=backend)
    return definition


class ImportedDirectory:
    """The imported environments under some directories, for :class:`Catalog`.

    Ids come from scanning the directories once (a folder whose ``environment.json`` names
    it); a requested id is looked up among them, never turned into a path, so a request can
    only ever reach an environment that the importer wrote there.
    """

    def __init__(self, dirs: list[Path], *, pool: WorkerPool | None = None,
                 sessions_dir: Path | None = None) -> None:
        self.dirs = [Path(d) for d in dirs]
        self._pool = pool
        self._own_pool = pool is None
        self.sessions_dir = sessions_dir
        self._found: dict[str, Path] | None = None
        self._lock = threading.Lock()

    @property
    def pool(self) -> WorkerPool:
        with self._lock:
            if self._pool is None:
                self._pool = WorkerPool()
            return self._pool

    def close(self) -> None:
        """Stop the worker pool, if this directory made it (a given pool is the giver's)."""
        with self._lock:
            if self._own_pool and self._pool is not None:
                self._pool.close()
                self._pool = None

    def _scan(self) -> dict[str, Path]:
        if self._found is None:
            found: dict[str, Path] = {}
            for root in self.dirs:
                if not root.is_dir():
                    continue
                for folder in sorted(root.iterdir()):
                    if (_ENV_ID.match(folder.name) and folder.name not in found
                            and (folder / "environment.json").is_file()):
                        found[folder.name] = folder
            self._found = found
        return self._found

    def ids(self) -> list[str]:
        return sorted(self._scan())

    def __contains__(self, env_id: object) -> bool:
        return isinstance(env_id, str) and env_id in self._scan()

    def definition(self, env_id: str) -> EnvironmentDefinition:
        return load_definition(self._scan()[env_id], pool=self.pool,
                               sessions_dir=self.sessions_dir)
