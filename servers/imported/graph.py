"""Graph-based tasks for imported environments, made on request and stored.

Synthesis runs the environment's tools many times in the sandbox (seconds per environment), so
it never runs while an environment loads: ``agentworld import agent-world --tasks`` and
``agentworld tasks generate <id>`` call :func:`generate_imported_tasks`, which stores the task
set where the catalog reads it (the task store, ``paths.task_dir``).
"""

from __future__ import annotations

import json
from pathlib import Path

from .probe import probe_outputs

__all__ = ["generate_imported_tasks"]


def _probe_once(out: Path, env_ids: list[str], pool) -> None:
    """Observe the output shapes of environments not probed yet (they link the tool graph)."""
    from ..catalog import Catalog

    todo = [e for e in env_ids if not json.loads(
        (Path(out) / e / "environment.json").read_text(encoding="utf-8")).get("probed")]
    if not todo:
        return
    catalog = Catalog(modules={}, import_dirs=[out], sandbox=pool)
    try:
        for env_id in todo:
            probe_outputs(Path(out) / env_id, catalog.load(env_id))
    finally:
        catalog.close()


def generate_imported_tasks(out: Path, env_ids: list[str], task_dir: Path, *,
                            pool=None) -> dict[str, int]:
    """Generate (or read back, when already stored) the graph tasks of the imported
    environments ``env_ids`` in ``out``; returns the number of tasks per environment."""
    from ..catalog import Catalog
    from ..taskgen.run import tasks_for
    from ..taskgen.store import TaskStore

    _probe_once(out, env_ids, pool)
    catalog = Catalog(modules={}, import_dirs=[out], sandbox=pool)
    store = TaskStore(task_dir)
    try:
        return {env_id: len(tasks_for(catalog, env_id, store)) for env_id in env_ids}
    finally:
        catalog.close()
