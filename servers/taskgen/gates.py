"""The quality gates every task must pass; a task that fails one is dropped and counted.

* oracle: replaying the reference solution scores 1.0;
* no-op: doing nothing scores 0, so the initial state can never satisfy the verifier;
* random: an agent calling random tools with arguments from the database almost never passes;
* replay: the reference solution gives the same verdict and the same database twice.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from agentworld.servers import Environment, Session
from agentworld.servers.tasks import Step, VerifierInput

from .graph import ToolGraph
from .record import TaskRecord
from .walk import Binder

__all__ = ["check_gates", "replay", "random_agent_passes"]


def replay(env: Environment, record: TaskRecord) -> tuple[float, str]:
    """Run the reference solution; returns (reward, final database hash)."""
    task = record.to_task()
    session = Session(env, seed=record.session_seed)
    trajectory = []
    try:
        for name, args in record.reference_calls:
            result = session.call(name, args)
            trajectory.append(Step(name, args, result.ok, result.payload()))
        initial = env.template.clone()
        verdict = task.verifier(VerifierInput(initial, session.db, record.reference_answer,
                                              tuple(trajectory)))
        initial.close()
        return verdict.reward, session.hash()
    finally:
        session.close()


def _noop(env: Environment, record: TaskRecord) -> float:
    initial, final = env.template.clone(), env.template.clone()
    try:
        return record.to_task().verifier(VerifierInput(initial, final, None, ())).reward
    finally:
        initial.close()
        final.close()


def random_agent_passes(env: Environment, record: TaskRecord, *, episodes: int, steps: int,
                        seed: int, graph: ToolGraph | None = None) -> int:
    """How many of ``episodes`` random rollouts pass the task."""
    graph = graph or ToolGraph.of(env.tools)
    task = record.to_task()
    passes = 0
    for episode in range(episodes):
        rng = random.Random(f"{seed}:{episode}")
        session = Session(env, seed=record.session_seed)
        binder, trajectory = Binder(session, rng), []
        for _ in range(steps):
            node = graph.nodes[rng.choice(list(graph.nodes))]
            bound = binder.bind(node, [])
            if bound is None:
                continue
            result = session.call(node.spec.name, bound[0])
            trajectory.append(Step(node.spec.name, bound[0], result.ok, result.payload()))
        initial = env.template.clone()
        answer = rng.choice(["", "done", "0", "1"])
        verdict = task.verifier(VerifierInput(initial, session.db, answer, tuple(trajectory)))
        initial.close()
        session.close()
        passes += verdict.passed
    return passes


def check_gates(env: Environment, record: TaskRecord, *, random_episodes: int = 2,
                graph: ToolGraph | None = None) -> tuple[bool, str, dict[str, Any]]:
    """(passed, the first gate failed or "", measurements)."""
    try:
        reward, first_hash = replay(env, record)
    except Exception as exc:  # a reference that cannot even run fails the oracle gate
        return False, f"oracle: {type(exc).__name__}", {}
    if reward != 1.0:
        return False, "oracle", {"oracle": reward}
    again, second_hash = replay(env, record)
    if again != reward or second_hash != first_hash:
        return False, "replay", {"oracle": reward}
    noop = _noop(env, record)
    if noop != 0.0:
        return False, "noop", {"noop": noop}
    passes = random_agent_passes(env, record, episodes=random_episodes, steps=8,
                                 seed=zlib.crc32(record.id.encode()), graph=graph)
    if passes:
        return False, "random", {"random_passes": passes}
    return True, "", {"oracle": reward, "noop": noop, "random_passes": passes}
