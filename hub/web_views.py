"""What the web page reads, shaped from the catalog and the live sessions: plain functions that
run in worker threads (they may build templates, generate tasks, compile environments).

Nothing here changes an environment or a session: the page plays episodes through the same
session routes that agents use.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from agentworld.servers import Catalog, Environment
from agentworld.servers.tasks import Task

from .episode import Episode

__all__ = ["catalog_listing", "environment_card", "task_list", "table_preview",
           "trajectory_record", "provenance", "MAX_PREVIEW_ROWS"]

MAX_PREVIEW_ROWS = 50
_MAX_CELL_CHARS = 2_000  # a preview, not an export: long texts are cut

# The catalog's kinds, as the page names where an environment came from.
_PROVENANCE = {"hand-built": "reference", "synthesized": "synthesized", "imported": "imported",
               "added": "added"}


def provenance(kind: str | None) -> str:
    return _PROVENANCE.get(kind or "", kind or "unknown")


def measured_tool_counts() -> dict[str, int]:
    """The world's tool counts as its builds measured them when they wrote their indexes (the
    domain packs' ``pools/world_report.json``, the mined servers' ``pools/mined.json``), so that
    no environment is compiled only to be counted. Empty for an index that is missing or not in
    the shape expected."""
    from agentworld.servers.world.data import DATA_DIR
    from agentworld.servers.world.registry import mined_entries

    counts: dict[str, int] = {}
    try:
        per_env = json.loads((DATA_DIR / "world_report.json").read_text(encoding="utf-8")).get(
            "environments")
    except (OSError, ValueError, AttributeError):
        per_env = None
    if isinstance(per_env, dict):
        counts.update({env_id: facts["tools"] for env_id, facts in per_env.items()
                       if isinstance(facts, dict) and isinstance(facts.get("tools"), int)})
    counts.update({env_id: e["tools"] for env_id, e in mined_entries().items()
                   if isinstance(e.get("tools"), int)})
    return counts


def _tool_count(catalog: Catalog, summary: dict[str, Any], known: dict[str, int],
                measured: dict[str, int]) -> int | None:
    """The environment's number of tools when it is cheap to know: given by the catalog's
    summary, counted when it was loaded, measured by the world's pipeline, or held by a
    definition that needs no compiling (compiling the whole world to count takes minutes)."""
    given = summary.get("tools", summary.get("tool_count"))
    if isinstance(given, int):
        return given
    env_id = summary["id"]
    if env_id in known:
        return known[env_id]
    if catalog.is_synthesized(env_id):
        return measured.get(env_id)
    known[env_id] = len(catalog.definition(env_id).tools.names())
    return known[env_id]


def catalog_listing(catalog: Catalog, known_counts: dict[str, int]) -> list[dict[str, Any]]:
    """One light row per environment, for a page that filters all of them in the browser."""
    summaries = catalog.summaries()
    measured = measured_tool_counts() if any(catalog.is_synthesized(s["id"])
                                             for s in summaries) else {}
    rows = []
    for s in summaries:
        tax = s.get("taxonomy") or {}
        label = s.get("provenance")  # a summary may name it; else the catalog's kind does
        rows.append({"id": s["id"], "title": s.get("title", s["id"]),
                     "description": s.get("description", ""), "l1": tax.get("l1", ""),
                     "l2": tax.get("l2", ""), "l3": tax.get("l3", ""),
                     "provenance": provenance(label if isinstance(label, str) else s.get("kind")),
                     "tools": _tool_count(catalog, s, known_counts, measured)})
    return rows


def environment_card(env: Environment, origin: str) -> dict[str, Any]:
    """Manifest, provenance, tools and rules: the environment page without its data or tasks.
    ``origin`` is the listing's provenance (reference, synthesized, imported, ...); a
    manifest's own ``provenance`` block, where it has one, is kept as it is."""
    return {**env.manifest.to_dict(), "origin": origin, "tools": env.tool_list(),
            "content_hash": env.content_hash}


def _split(task: Task) -> str:
    return str(task.metadata.get("split") or "train")


def rubric_checks(task: Task | None) -> list[dict[str, Any]]:
    """The task's checks by name with their points, without what they compare against (a
    player must not read the expected answer off the page)."""
    if task is None:
        return []
    rubric = task.metadata.get("rubric")
    if not isinstance(rubric, list):
        return []
    return [{"name": str(c.get("name", c.get("kind", "check"))), "kind": c.get("kind"),
             "points": c.get("points", 1), "guard": bool(c.get("guard", False))}
            for c in rubric if isinstance(c, dict)]


def task_list(env: Environment) -> list[dict[str, Any]]:
    """Every task with its split, kind, difficulty and rubric outline."""
    return [{"id": t.id, "prompt": t.prompt, "kind": t.kind, "split": _split(t),
             "difficulty": t.metadata.get("difficulty"), "max_steps": t.max_steps,
             "checks": rubric_checks(t)} for t in env.tasks]


def _cell(value: Any) -> Any:
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    if isinstance(value, str) and len(value) > _MAX_CELL_CHARS:
        return value[:_MAX_CELL_CHARS] + "…"
    return value


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def table_preview(env: Environment, rows: int) -> list[dict[str, Any]]:
    """The first ``rows`` rows of every table of the database a fresh session starts from (a
    clone of the template, closed afterwards)."""
    db: sqlite3.Connection = env.template.clone()
    try:
        names = [r[0] for r in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        tables = []
        for name in names:
            cursor = db.execute(f"SELECT * FROM {_quoted(name)} LIMIT ?", (rows,))
            columns = [d[0] for d in cursor.description]
            data = [[_cell(v) for v in row] for row in cursor.fetchall()]
            count = db.execute(f"SELECT COUNT(*) FROM {_quoted(name)}").fetchone()[0]
            tables.append({"name": name, "columns": columns, "count": count, "rows": data})
        return tables
    finally:
        db.close()


def _step(tool: str, arguments: dict[str, Any], ok: bool, output: Any) -> dict[str, Any]:
    error = output.get("error") if isinstance(output, dict) and not ok else None
    code = error.get("code") if isinstance(error, dict) else None
    return {"tool": tool, "arguments": arguments, "ok": ok, "error_code": code, "output": output}


def trajectory_record(episode: Episode, steps: Sequence[Any]) -> dict[str, Any]:
    """A session's episode in the arena's trajectory shape (``trainer/arena/records.py``
    ``EpisodeRecord``), plus the rubric outline, so one viewer reads both."""
    verdict = episode.verdict
    task = episode.task
    tax = episode.env.manifest.taxonomy
    return {"env_id": episode.env.id, "task_id": task.id if task else None,
            "l1": tax.l1, "l2": tax.l2, "prompt": episode.prompt,
            "reference_tools": [name for name, _ in task.reference_calls] if task else [],
            "steps": [_step(s.tool, s.arguments, s.ok, s.output) for s in steps],
            "submitted": episode.terminated, "answer": episode.answer,
            "truncated": episode.truncated, "finished": episode.done,
            "reward": verdict.reward if verdict else 0.0,
            "passed": verdict.passed if verdict else False,
            "score": verdict.score if verdict else None,
            "components": dict(verdict.components) if verdict else {},
            "max_steps": episode.max_steps, "checks": rubric_checks(task),
            "source": "session"}
