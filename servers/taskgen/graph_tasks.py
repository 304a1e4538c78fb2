"""Graph-based tasks: a random walk on the tool graph becomes a question with a rubric."""

from __future__ import annotations

import random

from agentworld.servers import Environment
from agentworld.servers.tasks import VerifierInput

from .checks import evaluate
from .describe import describe_chain
from .graph import ToolGraph
from .record import TaskRecord
from .rubric import answer_check, diff_checks, run_calls
from .walk import Chain, walk

__all__ = ["graph_task", "chain_is_stable"]


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


def _without_initially_true(env: Environment, checks):
    initial, final = env.template.clone(), env.template.clone()
    run = VerifierInput(initial, final, None, ())
    try:
        return [c for c in checks if c.get("guard") or not evaluate(c, run)]
    finally:
        initial.close()
        final.close()


def graph_task(env: Environment, graph: ToolGraph, rng: random.Random, *, length: int,
               index: int, seed: int = 0) -> TaskRecord | None:
    """One graph-based task from a fresh walk, or None when the walk gives nothing usable."""
    chain = walk(env, graph, rng, length=length, seed=seed)
    if chain is None or not chain_is_stable(env, chain, seed=seed):
        return None
    try:
        checks = diff_checks(env, chain, seed=seed)
    except ValueError:
        return None
    ask = None
    answer = None
    if graph.nodes[chain.steps[-1].tool].kind == "query":
        found = answer_check(chain)
        if found:
            check, ask = found
            last = chain.steps[-1]
            lookup = {k: v for k, v in last.arguments.items() if k not in ("limit", "cursor")}
            checks += [check, {"kind": "called", "tool": last.tool, "arguments": lookup,
                               "points": 1, "name": f"called {last.tool}"}]
            answer = str(check["values"][0])
    checks = _without_initially_true(env, checks)
    if not any(not c.get("guard") for c in checks):
        return None
    calls = len(chain.steps)
    return TaskRecord(
        id=f"{env.id}/graph-{index:03d}", env_id=env.id, kind="graph",
        prompt=describe_chain(chain, graph, ask), checks=checks,
        reference_calls=[[s.tool, s.arguments] for s in chain.steps], reference_answer=answer,
        session_seed=seed, max_steps=max(2 * calls + 5, 15),
        difficulty="easy" if calls <= 4 else "medium" if calls < 10 else "hard",
        metadata={"tools": [s.tool for s in chain.steps], "calls": calls})
