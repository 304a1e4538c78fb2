"""Reading the Agent-World release format (data only: nothing here runs the release's code).

A release folder holds ``environment_mix/`` (or is that folder itself) with, per environment:

* ``<id>/``: the JSON collections (each file a list of row objects) and ``README.md`` (schema,
  lifecycle states, business rules); ``<id>`` is seven digits;
* ``<id>_step4_checkpoint.json``: ``data.ToolDesignAgent.tool_schemas[]``, each ``{name,
  description, parameters, implementation}``, and a top-level ``metadata`` block (``name``,
  ``description``, ``taxonomy`` with ``L1_name``, ``L2_name``, ``L3_name``, and counts);
* ``questions/<id>.json``: ``{env_id, name, tasks: [{task, reference_answer, grading_rubric:
  {success_criteria, verified_tool_chain}}]}``; the same tasks are in ``questions.parquet``,
  read when an environment has no JSON file. Older bundles had ``<id>_questions.json`` (a list
  or the same dict) or ``data.questions`` in the checkpoint; both are still read.

Data files other than JSON (CSV, ``.eml``, ``.py``) are copied with the folder: tools open them.

Metadata, first match wins per field: the checkpoint's ``metadata`` block, then the older
``data.ThemeAgent``, ``data.meta`` and ``data.metadata`` blocks (``category`` or ``domain``,
``subcategory``, ``theme``, ``title`` or ``name``, ``description``); a missing title is the
README's first heading, a missing description its first paragraph.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .parquet import ParquetQuestions

__all__ = ["ReleaseEnvironment", "ReleaseTool", "ReleaseQuestion", "ReleaseError",
           "find_environments", "read_environment"]

ENV_ID = re.compile(r"^\d{7}$")
MAX_COLLECTION_BYTES = 64 << 20


class ReleaseError(Exception):
    """One environment of the release cannot be read; the message says why."""


@dataclass(frozen=True)
class ReleaseTool:
    name: str
    description: str
    parameters: Any
    implementation: str


@dataclass(frozen=True)
class ReleaseQuestion:
    task: str
    reference_answer: str
    grading_rubric: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "reference_answer": self.reference_answer,
                "grading_rubric": self.grading_rubric}


@dataclass(frozen=True)
class ReleaseEnvironment:
    number: str
    folder: Path
    readme: str
    collections: dict[str, Any]          # file stem -> parsed JSON
    tools: list[ReleaseTool]
    meta: dict[str, str]
    questions: list[ReleaseQuestion] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _mix_dir(path: Path) -> Path:
    nested = path / "environment_mix"
    return nested if nested.is_dir() else path


def find_environments(path: Path) -> list[tuple[str, Path]]:
    """The ``(id, folder)`` of every environment in a release, by id."""
    mix = _mix_dir(path)
    if not mix.is_dir():
        raise ReleaseError(f"{path} is not a folder")
    found = {p.name for p in mix.iterdir() if p.is_dir() and ENV_ID.match(p.name)}
    found |= {p.name.split("_", 1)[0] for p in mix.glob("*_step4_checkpoint.json")
              if ENV_ID.match(p.name.split("_", 1)[0])}
    return [(number, mix) for number in sorted(found)]


def _load_json(path: Path, what: str) -> Any:
    if path.stat().st_size > MAX_COLLECTION_BYTES:
        raise ReleaseError(f"{what} is larger than {MAX_COLLECTION_BYTES >> 20} MiB")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReleaseError(f"{what} is not valid JSON: {exc}") from exc


def _tools(checkpoint: Any) -> list[ReleaseTool]:
    try:
        raw = checkpoint["data"]["ToolDesignAgent"]["tool_schemas"]
    except (KeyError, TypeError) as exc:
        raise ReleaseError("checkpoint has no data.ToolDesignAgent.tool_schemas") from exc
    if not isinstance(raw, list):
        raise ReleaseError("data.ToolDesignAgent.tool_schemas is not a list")
    tools = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise ReleaseError(f"tool_schemas[{i}] has no name")
        tools.append(ReleaseTool(
            name=item["name"], description=str(item.get("description") or ""),
            parameters=item.get("parameters"),
            implementation=str(item.get("implementation") or "")))
    return tools


def _release_metadata(checkpoint: Any) -> dict[str, str]:
    """The top-level ``metadata`` block of a released checkpoint, in our field names."""
    block = checkpoint.get("metadata") if isinstance(checkpoint, dict) else None
    if not isinstance(block, dict):
        return {}
    tax = block.get("taxonomy") if isinstance(block.get("taxonomy"), dict) else {}
    return {"category": tax.get("L1_name"), "subcategory": tax.get("L2_name"),
            "theme": tax.get("L3_name"), "title": block.get("name"),
            "description": block.get("description")}


def _meta(checkpoint: Any, readme: str) -> dict[str, str]:
    data = checkpoint.get("data") if isinstance(checkpoint, dict) else None
    older = [data.get(key) for key in ("ThemeAgent", "meta", "metadata")] if isinstance(
        data, dict) else []
    sources = [_release_metadata(checkpoint)] + [s for s in older if isinstance(s, dict)]
    aliases = {"category": ("category", "domain"), "subcategory": ("subcategory",),
               "theme": ("theme",), "title": ("title", "name"), "description": ("description",)}
    meta: dict[str, str] = {}
    for key, names in aliases.items():
        meta[key] = next((str(s[n]).strip() for s in sources for n in names
                          if isinstance(s.get(n), str | int | float) and str(s[n]).strip()), "")
    heading = re.search(r"^#\s+(.+)$", readme, re.MULTILINE)
    paragraph = next((p.strip() for p in re.split(r"\n\s*\n", readme)
                      if p.strip() and not p.lstrip().startswith("#")), "")
    meta["title"] = meta["title"] or (heading.group(1).strip() if heading else "")
    meta["description"] = meta["description"] or paragraph[:500]
    return meta


def _question_list(raw: Any, where: str) -> list[Any] | None:
    """The task list of a questions document: a list, or a dict with ``tasks`` (or
    ``questions``)."""
    if raw is None:
        return None
    if isinstance(raw, dict):
        raw = raw.get("tasks", raw.get("questions"))
        if raw is None:
            raise ReleaseError(f"{where} has no tasks list")
    if not isinstance(raw, list):
        raise ReleaseError(f"{where}: questions are not a list (nor a dict with a tasks list)")
    return raw


def _answer_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _questions(mix: Path, number: str, checkpoint: Any,
               parquet: ParquetQuestions | None = None) -> list[ReleaseQuestion]:
    raw: list[Any] | None = None
    for path in (mix / "questions" / f"{number}.json", mix / f"{number}_questions.json"):
        if path.is_file():
            raw = _question_list(_load_json(path, path.name), path.name)
            break
    if raw is None and parquet is not None:
        raw = parquet.tasks(number)
    if raw is None and isinstance(checkpoint, dict) and isinstance(checkpoint.get("data"), dict):
        raw = _question_list(checkpoint["data"].get("questions"), "data.questions")
    out = []
    for i, q in enumerate(raw or []):
        if not isinstance(q, dict) or not q.get("task") or "reference_answer" not in q:
            raise ReleaseError(f"question {i} lacks task or reference_answer")
        out.append(ReleaseQuestion(str(q["task"]), _answer_text(q["reference_answer"]),
                                   q.get("grading_rubric")))
    return out


def read_environment(mix: Path, number: str,
                     parquet: ParquetQuestions | None = None) -> ReleaseEnvironment:
    """Read one environment. Raises ReleaseError with the reason when it cannot.

    ``parquet`` supplies the questions of an environment that has no questions JSON file."""
    folder = mix / number
    checkpoint_path = mix / f"{number}_step4_checkpoint.json"
    if not folder.is_dir():
        raise ReleaseError(f"data folder {number}/ is missing")
    if not checkpoint_path.is_file():
        raise ReleaseError(f"{checkpoint_path.name} is missing")
    checkpoint = _load_json(checkpoint_path, checkpoint_path.name)
    readme_path = folder / "README.md"
    readme = readme_path.read_text(encoding="utf-8", errors="replace") if readme_path.is_file() \
        else ""
    warnings = [] if readme else ["no README.md: the environment has no rules text"]
    collections = {}
    for path in sorted(folder.glob("*.json")):
        collections[path.stem] = _load_json(path, f"{number}/{path.name}")
    others = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                    if p.is_file() and p.name != "README.md"
                    and not (p.parent == folder and p.suffix == ".json"))
    if others:
        warnings.append(f"data files kept for the tools but not viewed as tables: {others}")
    return ReleaseEnvironment(
        number=number, folder=folder, readme=readme, collections=collections,
        tools=_tools(checkpoint), meta=_meta(checkpoint, readme),
        questions=_questions(mix, number, checkpoint, parquet), warnings=warnings)
