"""Generating task sets for many environments: parallel, with a progress bar, resumable."""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from agentworld.servers.world.progress import Progress

from .generate import generate_tasks
from .store import TaskStore

__all__ = ["tasks_for", "generate_all", "reference_records"]


def reference_records(env_id: str) -> list:
    """Hand-written tasks of a reference environment (none for other environments)."""
    try:
        from .reference import REFERENCE_TASKS
    except ImportError:
        return []
    builder = REFERENCE_TASKS.get(env_id)
    return builder() if builder else []


def tasks_for(catalog, env_id: str, store: TaskStore | None = None, rewrite=None) -> list:
    """An environment's task records: from the store, else generated (and stored)."""
    if store is not None:
        cached = store.load(env_id)
        if cached is not None:
            return cached
    env = catalog.load(env_id)
    compiled = None
    if catalog.is_synthesized(env_id):
        from agentworld.servers.world.registry import compiled as compile_world

        compiled = compile_world(env_id)
    own = reference_records(env_id)
    records, report = generate_tasks(env, compiled=compiled, existing=own, rewrite=rewrite)
    if store is not None:
        store.save(env_id, records, report)
    return records


_CATALOG = None


def _generate_one(job: tuple[str, str, str | None, dict | None]) -> dict[str, Any]:
    env_id, task_dir, cache_dir, llm = job
    global _CATALOG
    if _CATALOG is None:
        from agentworld.servers.catalog import Catalog

        _CATALOG = Catalog(world=True, cache_dir=cache_dir)
    store = TaskStore(task_dir)
    rewrite = None
    if llm:
        from .llm_text import LLMRewriter

        rewrite = LLMRewriter(**llm)
    records = tasks_for(_CATALOG, env_id, store, rewrite=rewrite)
    return {"env_id": env_id, "tasks": len(records)}


def generate_all(env_ids: list[str], task_dir: Path, *, cache_dir: Path | None = None,
                 workers: int | None = None, progress: bool = True,
                 llm: dict[str, str] | None = None) -> dict[str, Any]:
    """``llm`` ({endpoint, model}) words graph tasks through an OpenAI-compatible endpoint."""
    store = TaskStore(task_dir)
    todo = [env_id for env_id in env_ids if not store.has(env_id)]
    bar = Progress(len(todo), "tasks", enabled=progress)
    done = []
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        jobs = [(env_id, str(task_dir), str(cache_dir) if cache_dir else None, llm)
                for env_id in todo]
        for result in pool.map(_generate_one, jobs, chunksize=2):
            done.append(result)
            bar.advance()
    return {"generated": len(done), "already_done": len(env_ids) - len(todo),
            "tasks": sum(r["tasks"] for r in done)}
