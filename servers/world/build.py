"""``agentworld build``: build world templates into the on-disk cache, in parallel, with a
progress bar, and report the time and the peak memory it took."""

from __future__ import annotations

import os
import resource
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from agentworld.servers.environment import Environment
from agentworld.servers.template_cache import TemplateCache

from .progress import Progress
from .registry import cache_key, compiled, world_ids

__all__ = ["build_templates", "world_environment"]


def world_environment(env_id: str, cache_dir: Path | None) -> Environment:
    """A world environment, its template cached under ``cache_dir`` when one is given."""
    definition = compiled(env_id).definition
    if cache_dir is None:
        return Environment(definition)
    return Environment(definition, cache=TemplateCache(cache_dir), cache_key=cache_key(env_id))


def _build_one(job: tuple[str, str]) -> dict[str, Any]:
    env_id, cache_dir = job
    started = time.perf_counter()
    env = world_environment(env_id, Path(cache_dir)).warm()
    return {"env_id": env_id, "seconds": time.perf_counter() - started,
            "bytes": env.template.size_bytes, "tools": len(env.tools)}


def build_templates(cache_dir: Path, *, ids: list[str] | None = None, workers: int | None = None,
                    progress: bool = True) -> dict[str, Any]:
    """Build (or find in the cache) every template named by ``ids`` (default: the world)."""
    ids = world_ids() if ids is None else ids
    workers = workers or os.cpu_count() or 1
    bar = Progress(len(ids), "build", enabled=progress)
    started = time.perf_counter()
    results = []
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for result in pool.map(_build_one, [(i, str(cache_dir)) for i in ids], chunksize=4):
            results.append(result)
            bar.advance()
    elapsed = time.perf_counter() - started
    # ru_maxrss is in KiB on Linux: the largest single process, parent or worker.
    peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
               resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return {"environments": len(results), "seconds": round(elapsed, 1), "workers": workers,
            "peak_rss_mib": round(peak / 1024, 1),
            "template_bytes": sum(r["bytes"] for r in results),
            "tools": sum(r["tools"] for r in results),
            "slowest": sorted(results, key=lambda r: -r["seconds"])[:3]}
