"""``agentworld import agent-world``: convert a release into imported environments.

Each environment becomes one folder under the output directory::

    <out>/aw-<id>/
        environment.json   manifest fields, source, tools (schemas + implementation source)
        rules.md           the release README, verbatim
        data/              the release's folder, copied: the template every session copies
        view.sqlite        the collections as tables (sqlite-utils), for browsing
        schema.sql         the view's CREATE statements: the template database's schema
        tasks.json         the release's questions, when present
    <out>/import-report.json

Importing only reads and parses: the implementations are checked with ``ast.parse`` (never
executed) and run later, only inside sandboxed workers.
"""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from ..tools import RESERVED_TOOL_NAMES
from . import view
from .parquet import ParquetQuestions
from .release import (
    ReleaseEnvironment,
    ReleaseError,
    ReleaseTool,
    find_environments,
    read_environment,
)

__all__ = ["FORMAT", "ImportReport", "EnvironmentReport", "import_release", "env_id_for"]

FORMAT = "agentworld-imported/1"
TOOL_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
# Calls that change files: a function that makes one (or uses one that does) is a mutation.
# Methods whose names are unambiguous; ``os.`` / ``shutil.`` functions; and ``open`` with a
# writing mode. ``replace``, ``remove`` and ``copy`` alone are not writes (``str.replace``,
# ``list.remove``, ``dict.copy`` are everywhere in read-only tools).
_WRITE_METHODS = frozenset({"write_text", "write_bytes", "touch", "mkdir", "makedirs",
                            "rmtree", "truncate", "dump", "writerow", "writerows"})
_WRITE_MODULES = {"os": frozenset({"remove", "unlink", "rename", "replace", "rmdir", "mkdir",
                                   "makedirs", "truncate", "removedirs", "renames"}),
                  "shutil": None}  # None: every function of the module


def env_id_for(number: str) -> str:
    return f"aw-{number}"


@dataclass
class EnvironmentReport:
    source_id: str
    env_id: str
    status: str = "imported"            # imported | failed
    reason: str = ""
    tools: int = 0
    tables: int = 0
    rows: int = 0
    tasks: int = 0
    renamed: dict[str, str] = field(default_factory=dict)
    refused_tools: dict[str, str] = field(default_factory=dict)
    # Tools whose schema allowed extra keys and now refuses them (additionalProperties: false).
    tightened: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    source: str
    out: str
    environments: list[EnvironmentReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def imported(self) -> list[EnvironmentReport]:
        return [e for e in self.environments if e.status == "imported"]

    @property
    def failed(self) -> list[EnvironmentReport]:
        return [e for e in self.environments if e.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "out": self.out, "imported": len(self.imported),
                "failed": len(self.failed), "notes": self.notes,
                "environments": [asdict(e) for e in self.environments]}

    def table(self) -> str:
        """A human-readable summary, one line per environment."""
        lines = [f"{'source':<9} {'env id':<12} {'status':<9} tools tables  rows tasks  notes"]
        for e in self.environments:
            notes = e.reason or "; ".join(
                [f"renamed {a}->{b}" for a, b in e.renamed.items()]
                + [f"refused {n}: {why}" for n, why in e.refused_tools.items()]
                + ([f"{len(e.tightened)} schemas made strict"] if e.tightened else []) + e.notes)
            lines.append(f"{e.source_id:<9} {e.env_id:<12} {e.status:<9} {e.tools:>5} "
                         f"{e.tables:>6} {e.rows:>5} {e.tasks:>5}  {notes[:160]}")
        lines.append(f"{len(self.imported)} imported, {len(self.failed)} failed -> {self.out}")
        return "\n".join(lines)


def _input_schema(tool: ReleaseTool, tightened: list[str]) -> dict[str, Any]:
    """The tool's parameters as our runtime needs them: an object schema that forbids extra keys.

    The release's functions take ``**_extra``, so an unknown key would be silently dropped
    there; refusing it here tells the agent instead (VALIDATION_ERROR), as for our own tools.
    """
    raw = tool.parameters
    if raw is None:
        raw = {"type": "object", "properties": {}}
    if not isinstance(raw, dict):
        raise ValueError("parameters is not a JSON Schema object")
    schema = json.loads(json.dumps(raw))
    if "type" not in schema and "properties" in schema:
        schema["type"] = "object"
    if schema.get("type") != "object":
        raise ValueError(f"parameters describe {schema.get('type')!r}, not an object")
    schema.setdefault("properties", {})
    if schema.get("additionalProperties") is not False:
        tightened.append(tool.name)
        schema["additionalProperties"] = False
    Draft202012Validator.check_schema(schema)
    return schema


def _function_name(tool: ReleaseTool) -> str:
    """The function the implementation defines for this tool (parsed, never run)."""
    if not tool.implementation.strip():
        raise ValueError("no implementation")
    try:
        tree = ast.parse(tool.implementation)
    except SyntaxError as exc:
        raise ValueError(f"implementation does not parse: {exc.msg} (line {exc.lineno})") from exc
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    if tool.name in names:
        return tool.name
    if len(names) == 1:
        return names[0]
    raise ValueError(f"cannot tell which function implements it (defines {names or 'none'})")


def _own_nodes(fn: ast.AST):
    """The nodes of a function's own body: nested functions and classes are left out, because
    defining a helper does nothing; only calling it does."""
    todo = list(ast.iter_child_nodes(fn))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))


def _writing_mode(modes: list[ast.AST]) -> bool:
    # A mode computed at run time may write.
    return any(not isinstance(m, ast.Constant) or (isinstance(m.value, str)
               and bool(set(m.value) & set("wax+"))) for m in modes)


def _is_write(call: ast.Call) -> bool:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id == "open" and _writing_mode(
            call.args[1:2] + [k.value for k in call.keywords if k.arg == "mode"])
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value.id if isinstance(func.value, ast.Name) else None
    if owner in _WRITE_MODULES:
        names = _WRITE_MODULES[owner]
        return names is None or func.attr in names
    if func.attr == "open":  # Path.open(mode), io.open(path, mode), codecs.open(path, mode)
        first = 1 if owner in ("io", "codecs") else 0
        return _writing_mode(call.args[first:first + 1]
                             + [k.value for k in call.keywords if k.arg == "mode"])
    if func.attr == "unlink":
        return not call.args  # Path.unlink()
    return func.attr in _WRITE_METHODS


def _writes_directly(fn: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and _is_write(n) for n in _own_nodes(fn))


def _functions(tree: ast.AST) -> dict[str, list[ast.AST]]:
    """Every function the source defines, at any depth, by name (names may repeat)."""
    found: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.setdefault(node.name, []).append(node)
    return found


def _read_only(source: str, function: str) -> bool:
    """Whether the tool can never write, judged by what its code does, not what it defines.

    A function writes when its own body calls a write (``json.dump``, ``open(..., "w")``, ...)
    or uses a function that writes (the release's tools all define a ``_save`` helper; only
    those that call it write). Names are resolved loosely (any function of that name in the
    source), which errs towards "writes". A static hint for MCP's readOnlyHint and for task
    synthesis: query or mutation.
    """
    defs = _functions(ast.parse(source))
    seen: set[int] = set()
    todo = list(defs.get(function, []))
    while todo:
        fn = todo.pop()
        if id(fn) in seen:
            continue
        seen.add(id(fn))
        if _writes_directly(fn):
            return False
        for node in _own_nodes(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                todo.extend(defs.get(node.id, []))
    return True


def _tool_name(name: str, taken: set[str], report: EnvironmentReport) -> str:
    if not name or len(name) > 64 or set(name) - TOOL_NAME_CHARS:
        raise ValueError("name must be 1-64 letters, digits, '_' or '-'")
    if name in RESERVED_TOOL_NAMES:
        new = f"{name}_tool"
        while new in taken:
            new += "_"
        report.renamed[name] = new
        return new
    return name


def _convert_tools(env: ReleaseEnvironment, report: EnvironmentReport) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    taken = {t.name for t in env.tools}
    seen: set[str] = set()
    for tool in env.tools:
        try:
            if tool.name in seen:
                raise ValueError("duplicate tool name")
            seen.add(tool.name)
            function = _function_name(tool)
            tightened: list[str] = []
            schema = _input_schema(tool, tightened)
            name = _tool_name(tool.name, taken, report)
            report.tightened.extend(tightened)
            read_only = _read_only(tool.implementation, function)
            out.append({"name": name, "release_name": tool.name,
                        "description": tool.description or f"{tool.name} (no description)",
                        "input_schema": schema, "read_only": read_only,
                        "kind": "query" if read_only else "mutation",
                        "function": function, "implementation": tool.implementation})
        except Exception as exc:  # one bad tool is refused, the environment still imports
            report.refused_tools[tool.name] = str(exc)[:300]
    return out


def _tables(env: ReleaseEnvironment, report: EnvironmentReport) -> dict[str, list[dict]]:
    tables = {}
    for stem, value in env.collections.items():
        if not view.TABLE_NAME.match(stem):
            report.notes.append(f"{stem}.json: name is not a table name; not viewed")
            continue
        if view.keyed(value):
            report.notes.append(f"{stem}.json: objects by key; viewed as rows with _key")
        elif not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
            report.notes.append(f"{stem}.json: not a list of objects; viewed as rows anyway")
        tables[stem] = view.collection_rows(value)
    return tables


def _manifest(env: ReleaseEnvironment, env_id: str) -> dict[str, Any]:
    meta = env.meta
    return {"format": FORMAT, "id": env_id, "version": "1.0.0",
            "title": meta["title"] or f"Agent-World environment {env.number}",
            "description": meta["description"] or "An environment of the Agent-World release.",
            "taxonomy": {"l1": meta["category"] or "Uncategorized",
                         "l2": meta["subcategory"] or "Uncategorized",
                         "l3": meta["theme"] or meta["title"] or env.number},
            "source": {"release": "Agent-World", "id": env.number, "licence": "MIT"}}


def _write(env: ReleaseEnvironment, target: Path, manifest: dict, tools: list,
           tables: dict) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        shutil.copytree(env.folder, staging / "data", symlinks=False)
        (staging / "rules.md").write_text(env.readme, encoding="utf-8")
        view.write_view(staging / "view.sqlite", tables)
        (staging / "schema.sql").write_text(view.schema_sql(staging / "view.sqlite"))
        doc = {**manifest, "tables": {name: f"{name}.json" for name in tables}, "tools": tools}
        (staging / "environment.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False))
        questions = [q.to_dict() for q in env.questions]
        (staging / "tasks.json").write_text(json.dumps(questions, indent=1, ensure_ascii=False))
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)  # a half-written environment is never visible
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _import_one(mix: Path, number: str, out: Path,
                parquet: ParquetQuestions | None) -> EnvironmentReport:
    report = EnvironmentReport(source_id=number, env_id=env_id_for(number))
    try:
        env = read_environment(mix, number, parquet)
        report.notes.extend(env.warnings)
        tools = _convert_tools(env, report)
        if not tools:
            raise ReleaseError("no usable tools")
        tables = _tables(env, report)
        _write(env, out / report.env_id, _manifest(env, report.env_id), tools, tables)
        report.tools, report.tables, report.tasks = len(tools), len(tables), len(env.questions)
        report.rows = sum(len(rows) for rows in tables.values())
    except (ReleaseError, OSError, ValueError) as exc:
        report.status, report.reason = "failed", str(exc)[:300]
    return report


def import_release(path: str | Path, out: str | Path) -> ImportReport:
    """Import every environment of a release into ``out``; writes ``import-report.json``.

    Raises ReleaseError if ``path`` is not a release at all; a broken environment is reported,
    never raised.
    """
    path, out = Path(path), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = ImportReport(source=str(path), out=str(out))
    parquets: dict[Path, ParquetQuestions | None] = {}
    for number, mix in find_environments(path):
        if mix not in parquets:
            parquets[mix] = ParquetQuestions.beside(mix)
        report.environments.append(_import_one(mix, number, out, parquets[mix]))
    for parquet in parquets.values():
        if parquet is not None and parquet.error:
            report.notes.append(parquet.error)
    (out / "import-report.json").write_text(json.dumps(report.to_dict(), indent=1))
    return report
