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
# Calls that change files: a function that makes one (or calls one that does) is a mutation.
_WRITE_CALLS = frozenset({"dump", "write", "write_text", "write_bytes", "writelines", "replace",
                          "rename", "remove", "unlink", "rmtree", "move", "copy", "copyfile",
                          "mkdir", "makedirs", "truncate", "touch"})


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

    @property
    def imported(self) -> list[EnvironmentReport]:
        return [e for e in self.environments if e.status == "imported"]

    @property
    def failed(self) -> list[EnvironmentReport]:
        return [e for e in self.environments if e.status == "failed"]

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "out": self.out, "imported": len(self.imported),
                "failed": len(self.failed),
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
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    if tool.name in names:
        return tool.name
    if len(names) == 1:
        return names[0]
    raise ValueError(f"cannot tell which function implements it (defines {names or 'none'})")


def _writes_directly(node: ast.AST) -> bool:
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in _WRITE_CALLS:
            return True
        if name == "open":
            modes = [a for a in call.args[1:2]] + [k.value for k in call.keywords
                                                    if k.arg == "mode"]
            if any(isinstance(m, ast.Constant) and isinstance(m.value, str)
                   and set(m.value) & set("wax+") for m in modes):
                return True
    return False


def _read_only(source: str, function: str) -> bool:
    """Whether the tool's function can never write: no write in it, nor in any function of
    its source that it calls (a static hint for MCP's readOnlyHint and task synthesis)."""
    tree = ast.parse(source)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    seen, todo = set(), [function]
    while todo:
        name = todo.pop()
        if name in seen or name not in defs:
            continue
        seen.add(name)
        if _writes_directly(defs[name]):
            return False
        todo.extend(n.id for n in ast.walk(defs[name]) if isinstance(n, ast.Name))
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
            out.append({"name": name, "release_name": tool.name,
                        "description": tool.description or f"{tool.name} (no description)",
                        "input_schema": schema,
                        "read_only": _read_only(tool.implementation, function),
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
        if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
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
        questions = [{"task": q.task, "reference_answer": q.reference_answer,
                      "grading_rubric": q.grading_rubric} for q in env.questions]
        (staging / "tasks.json").write_text(json.dumps(questions, indent=1, ensure_ascii=False))
        if target.exists():
            shutil.rmtree(target)
        staging.rename(target)  # a half-written environment is never visible
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _import_one(mix: Path, number: str, out: Path) -> EnvironmentReport:
    report = EnvironmentReport(source_id=number, env_id=env_id_for(number))
    try:
        env = read_environment(mix, number)
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
    for number, mix in find_environments(path):
        report.environments.append(_import_one(mix, number, out))
    (out / "import-report.json").write_text(json.dumps(report.to_dict(), indent=1))
    return report
