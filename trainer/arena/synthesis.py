"""Task synthesis for the arena: fresh evaluation tasks, and training tasks aimed at what the
diagnosis found weak.

Both draw candidates from the task generator's own pieces (graph walks, programmatic templates)
and keep only those that pass its quality gates. Targeting is by selection and length: longer
walks, and candidates whose reference solution calls the tools that failed (or the tools of the
business rules that were broken) come first. Seeds are per round and per purpose, and prompts
already used elsewhere are excluded, so an evaluation task is never one the policy trained on.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from agentworld.servers.taskgen.gates import check_gates
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.servers.taskgen.graph_tasks import graph_task
from agentworld.servers.taskgen.programmatic import programmatic_tasks
from agentworld.servers.taskgen.record import TaskRecord

from .world import ArenaWorld

__all__ = ["Focus", "synthesize", "touches", "family_share", "focused_graph"]


@dataclass(frozen=True)
class Focus:
    """What targeted tasks should exercise in one environment (from the guidelines)."""

    tools: tuple[str, ...] = ()
    min_calls: int = 4
    long: bool = True                 # also ask for the long (15+ calls) programmatic template
    max_calls: int | None = None      # an easier curriculum: solutions this short at most
    reasons: tuple[str, ...] = field(default=(), compare=False)


def _on_target(record: TaskRecord, focus: Focus) -> bool:
    """Calls a focus tool, in a solution as long as the focus asks (or as short)."""
    n = len(record.reference_calls)
    long_enough = n <= focus.max_calls if focus.max_calls is not None else n >= focus.min_calls
    return bool(touches(record, focus.tools)) and long_enough


def touches(record: TaskRecord, tools: Collection[str]) -> list[str]:
    """The focus tools a task's reference solution calls, in order, without repeats."""
    called = [name for name, _ in record.reference_calls]
    return list(dict.fromkeys(name for name in called if name in tools))


def _programmatic(world: ArenaWorld, env_id: str, rng: random.Random, long: bool,
                  tools: Collection[str] = ()) -> TaskRecord | None:
    """One programmatic task; with focus ``tools``, one that calls them where any of a few
    drawn does (a shape that edits records is what a weak ``update_`` family needs)."""
    compiled = world.compiled(env_id)
    env = world.load(env_id)
    db = env.template.clone()
    try:
        made = programmatic_tasks(env, compiled, db, rng, count=3 if tools else 1, long=long)
    finally:
        db.close()
    if not made:
        return None
    record = next((r for r in made if touches(r, tools)), made[0])
    n = len(record.reference_calls)
    record.id = f"{env_id}/candidate"
    record.max_steps = max(record.max_steps, 2 * n + 5, 20)
    record.difficulty = "hard" if n >= 10 else "medium" if n >= 3 else "easy"
    record.metadata = {**record.metadata, "calls": n}
    return record


def focused_graph(graph: ToolGraph, tools: Collection[str]) -> ToolGraph:
    """The tool graph without the writes that are not in focus: a walk on it reads freely but
    only ever writes with the focus tools (the generator's walk weights writes up in a chain's
    second half, so most walks end on one). The graph itself when no focus tool is a write."""
    # In the graph's own order: a walk draws from the nodes as listed, so an order that
    # followed string hashing would make synthesis differ from one process to the next.
    keep = [n for n, node in graph.nodes.items() if node.kind == "query" or n in tools]
    if not any(graph.nodes[n].kind != "query" for n in keep):
        return graph
    kept = set(keep)
    return ToolGraph({n: graph.nodes[n] for n in keep},
                     {n: graph.edges[n] & kept for n in keep})


def _candidates(world: ArenaWorld, env_id: str, rng: random.Random, graph: ToolGraph,
                focus: Focus | None, attempts: int) -> list[TaskRecord]:
    env = world.load(env_id)
    # Long walks on the focused graph dead-end more often (a repeat, an empty page), so targeted
    # walks range from 3 calls up, with more attempts; the long programmatic template and the
    # ranking (longest first) supply the longer chains.
    lo, hi = (3, focus.min_calls + 2) if focus else (3, 7)
    if focus and focus.max_calls is not None:
        lo, hi = 1, max(1, focus.max_calls)        # an easier curriculum: short walks
    walk_graph = focused_graph(graph, focus.tools) if focus else graph
    every = 6 if focus else 3
    out: list[TaskRecord] = []
    for i in range(attempts):
        if i % every == every - 1:
            record = _programmatic(world, env_id, rng, bool(focus and focus.long and i % 2),
                                   focus.tools if focus else ())
        else:
            record = graph_task(env, walk_graph, rng, length=rng.randint(lo, hi), index=i,
                                seed=0)
        if record is not None:
            out.append(record)
    return out


def _rank(candidates: list[TaskRecord], focus: Focus | None) -> list[TaskRecord]:
    if focus is None:
        return candidates
    if focus.max_calls is not None:
        # Easier: short solutions only, shortest first, most focus tools touched among equals.
        short = [r for r in candidates if len(r.reference_calls) <= focus.max_calls]
        return sorted(short, key=lambda r: (len(r.reference_calls),
                                            -len(touches(r, focus.tools))))
    # Most focus tools touched first, then the longest solutions; stable for equal keys.
    return sorted(candidates, key=lambda r: (-len(touches(r, focus.tools)),
                                             -len(r.reference_calls)))


_MORE_ROUNDS = 3


def synthesize(world: ArenaWorld, env_id: str, *, rng: random.Random, count: int, prefix: str,
               split: str, exclude: Collection[str] = (), focus: Focus | None = None,
               attempts: int | None = None, round_index: int = 0) -> list[TaskRecord]:
    """Up to ``count`` gated tasks on ``env_id``, ids ``<env_id>/<prefix>-NNN``; a prompt in
    ``exclude`` (or already taken) is never used. With ``focus``, the tasks are targeted."""
    env = world.load(env_id)
    graph = ToolGraph.of(env.tools)
    attempts = attempts or (max(60, count * 20) if focus else max(12, count * 5))
    pool = _candidates(world, env_id, rng, graph, focus, attempts)
    for _ in range(_MORE_ROUNDS if focus and focus.tools else 0):
        # Walks into the failing tools dead-end often on some surfaces: draw more before
        # settling for fewer (or shorter) targeted tasks than asked.
        if sum(_on_target(r, focus) for r in pool) >= count:
            break
        pool += _candidates(world, env_id, rng, graph, focus, attempts)
    kept: list[TaskRecord] = []
    seen = set(exclude)
    for record in _rank(pool, focus):
        if len(kept) >= count:
            break
        if record.prompt in seen:
            continue
        if focus and focus.tools and not touches(record, focus.tools):
            # Targeted means it exercises the tools that failed; fewer tasks beat off-target
            # ones. (With no failed tool, the weak environment itself is the target.)
            continue
        ok, _, _ = check_gates(env, record, graph=graph)
        if not ok:
            continue
        seen.add(record.prompt)
        record.id = f"{env_id}/{prefix}-{len(kept):03d}"
        record.split = split
        hits = touches(record, focus.tools) if focus else []
        record.metadata = {**record.metadata, "arena_round": round_index, "purpose": split,
                           "targeted": bool(hits), "focus_hits": hits,
                           "tools": [name for name, _ in record.reference_calls]}
        kept.append(record)
    return kept


def family_share(records: Sequence[TaskRecord], prefixes: Sequence[str]) -> float:
    """The fraction of tasks whose reference solution calls a tool starting with a prefix."""
    if not records:
        return 0.0
    hit = sum(any(name.startswith(tuple(prefixes)) for name, _ in r.reference_calls)
              for r in records)
    return hit / len(records)
