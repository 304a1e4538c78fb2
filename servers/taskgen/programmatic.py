"""Programmatic tasks for synthesized environments: requests with real control flow.

Each shape (``shapes/``) is a small program over the environment's declaration that finds a
situation in the template database and writes the request, the reference solution and the
expected answer. The rubric is assembled from the reference solution's effect (``assemble.py``),
so every shape gets the same exact checks and whole-database guard.
"""

from __future__ import annotations

import random
import sqlite3

from agentworld.servers import Environment
from agentworld.servers.world.compile import CompiledEnvironment

from .assemble import TaskRejected, assemble
from .record import TaskRecord
from .shapes import LONG_SHAPES, SHAPES
from .shapes._base import ShapeContext

__all__ = ["programmatic_tasks"]


def programmatic_tasks(env: Environment, compiled: CompiledEnvironment, db: sqlite3.Connection,
                       rng: random.Random, *, count: int, long: bool = False,
                       start: int = 0) -> list[TaskRecord]:
    """Up to ``count`` tasks, as many different shapes as the environment supports (``long``:
    only long-horizon shapes, 15+ calls)."""
    shapes = LONG_SHAPES if long else SHAPES
    ctx = ShapeContext(compiled, db, rng, long=long)
    out: list[TaskRecord] = []
    order = list(shapes)
    if not order:
        return out
    rng.shuffle(order)
    for attempt in range(count * 6):
        if len(out) >= count:
            break
        name = order[attempt % len(order)]
        draft = shapes[name](ctx)
        if draft is None or any(r.prompt == draft.prompt for r in out):
            continue
        if long and len(draft.calls) < 15:
            continue
        number = start + len(out)
        try:
            record = assemble(
                env, id=f"{compiled.card.id}/{'long' if long else 'prog'}-{number:03d}",
                kind="programmatic", prompt=draft.prompt, calls=draft.calls,
                answer=draft.answer, options=draft.options,
                difficulty="hard" if long else None,
                metadata={"template": draft.shape, "calls": len(draft.calls),
                          "tools": sorted({c[0] for c in draft.calls})})
        except (TaskRejected, ValueError):
            continue
        out.append(record)
    return out
