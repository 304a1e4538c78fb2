"""Graph-based tasks: a random walk on the tool graph becomes a request with an exact rubric.

Walks whose middle steps only list things ("look through X and take the first one listed") are
filler and are not used: every step either names its entity or follows from the reply of an
earlier step that returned exactly one object.
"""

from __future__ import annotations

import random
import re
from typing import Any

from agentworld.servers import Environment
from agentworld.servers.words import plural

from .assemble import TaskRejected, assemble
from .describe import describe_chain, table_for
from .effects import run_calls
from .graph import ToolGraph
from .record import TaskRecord
from .walk import Chain, walk

__all__ = ["graph_task", "chain_is_stable"]

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def chain_is_stable(env: Environment, chain: Chain, *, seed: int) -> bool:
    """Replaying the chain in a clean copy gives the same replies."""
    try:
        session = run_calls(env, [], seed=seed)
        for step in chain.steps:
            result = session.call(step.tool, step.arguments)
            if not result.ok or result.data != step.output:
                return False
        session.close()
        return True
    except ValueError:
        return False


def _unwrapped(output: Any) -> Any:
    """An imported tool's list or scalar reply arrives wrapped as ``{"result": ...}``."""
    if isinstance(output, dict) and set(output) == {"result"}:
        return output["result"]
    return output


def _is_listing(output: Any) -> bool:
    """A page of results (its content is lists, beside counts, cursors and paging metadata),
    not one object."""
    output = _unwrapped(output)
    if isinstance(output, list):
        return True
    if not isinstance(output, dict):
        return False
    content = {k: v for k, v in output.items()
               if k not in ("total", "count", "next_cursor", "has_more", "meta", "pagination")}
    return bool(content) and all(isinstance(v, list) for v in content.values())


def _answer(env: Environment, graph: ToolGraph, chain: Chain) -> tuple[dict, str] | None:
    """A typed answer read from the chain's last reply: (spec, what to ask for)."""
    last = chain.steps[-1]
    output = _unwrapped(last.output)
    many = plural(graph.nodes[last.tool].noun.replace(" ", "_")).replace("_", " ")
    if isinstance(output, list):
        return {"type": "number", "value": len(output)}, f"how many {many} match"
    if not isinstance(output, dict):
        return None
    if isinstance(output.get("total"), int) and _is_listing(output):
        listed = next((k for k, v in output.items() if isinstance(v, list)), None)
        many = listed.replace("_", " ") if listed else many
        return {"type": "number", "value": output["total"]}, f"how many {many} match"
    obj = next((v for v in output.values() if isinstance(v, dict)), None)
    if obj is None:
        return None
    noun = graph.nodes[last.tool].noun
    db = env.template.clone()
    try:
        table = table_for(db, noun)
    finally:
        db.close()
    for key in ("status", "state", "title", "name", "email"):
        value = obj.get(key)
        if isinstance(value, str) and value and not _DATE.match(value):
            spec: dict[str, Any] = {"type": "text", "value": value}
            if table:
                spec["domain"] = {"table": table, "column": key}
            return spec, f"its {key.replace('_', ' ')}"
    for key, value in obj.items():
        if isinstance(value, int) and not isinstance(value, bool) and not key.endswith("_id") \
                and key not in ("id",) and value > 1:
            return {"type": "number", "value": value}, f"its {key.replace('_', ' ')}"
    return None


def graph_task(env: Environment, graph: ToolGraph, rng: random.Random, *, length: int,
               index: int, seed: int = 0) -> TaskRecord | None:
    """One graph-based task from a fresh walk, or None when the walk gives nothing usable."""
    chain = walk(env, graph, rng, length=length, seed=seed)
    if chain is None or any(_is_listing(s.output) for s in chain.steps[:-1]):
        return None
    if not chain_is_stable(env, chain, seed=seed):
        return None
    answer, ask = None, None
    if graph.nodes[chain.steps[-1].tool].kind == "query":
        found = _answer(env, graph, chain)
        if found is None:
            return None
        answer, ask = found
    db = env.template.clone()
    try:
        prompt = describe_chain(chain, graph, ask, db=db, title=env.manifest.title)
    finally:
        db.close()
    calls = [[s.tool, s.arguments] for s in chain.steps]
    try:
        return assemble(env, id=f"{env.id}/graph-{index:03d}", kind="graph", prompt=prompt,
                        calls=calls, answer=answer, seed=seed,
                        metadata={"tools": [s.tool for s in chain.steps], "calls": len(calls)})
    except (TaskRejected, ValueError):
        return None
