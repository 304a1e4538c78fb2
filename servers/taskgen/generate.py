"""Generating an environment's task set: programmatic and graph-based candidates, the quality
gates, difficulty and splits. Deterministic for an environment and a seed."""

from __future__ import annotations

import random
import zlib
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Environment

from .audit import audit_task
from .gates import check_gates
from .graph import ToolGraph
from .graph_tasks import graph_task
from .mined import mined_tasks
from .programmatic import programmatic_tasks
from .record import TaskRecord

__all__ = ["GenerationReport", "generate_tasks", "split_of", "TASKS_PER_ENV", "TASKGEN_VERSION"]

# Bumped whenever generation or the verifier contract changes: stored sets of another version
# are generated again.
TASKGEN_VERSION = "14"
TASKS_PER_ENV = 12
LONG_PER_ENV = 2


@dataclass
class GenerationReport:
    env_id: str
    kept: int = 0
    dropped: Counter = field(default_factory=Counter)   # gate -> how many tasks it dropped
    candidates: int = 0
    audit_dropped: Counter = field(default_factory=Counter)  # audit finding -> tasks dropped

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "kept": self.kept, "candidates": self.candidates,
                "dropped": dict(self.dropped), "audit_dropped": dict(self.audit_dropped),
                "version": TASKGEN_VERSION}


def split_of(task_id: str) -> str:
    """70 / 15 / 15 train / eval / test, by a stable hash of the task id."""
    bucket = zlib.crc32(task_id.encode()) % 20
    return "train" if bucket < 14 else "eval" if bucket < 17 else "test"


def _gate(env: Environment, records: list[TaskRecord], report: GenerationReport,
          graph: ToolGraph, kept: list[TaskRecord], at_most: int) -> list[TaskRecord]:
    """Keep up to ``at_most`` of ``records`` that pass every gate; count the others."""
    added: list[TaskRecord] = []
    for record in records:
        if len(added) >= at_most:
            break
        report.candidates += 1
        ok, gate, _ = check_gates(env, record, graph=graph)
        if ok:
            finding = _audit_finding(env, record, graph)
            if finding:
                ok, gate = False, "audit"
                report.audit_dropped[finding] += 1
        if ok:
            added.append(record)
        else:
            report.dropped[gate.split(":")[0]] += 1
    kept.extend(added)
    return added


def _audit_finding(env: Environment, record: TaskRecord, graph: ToolGraph) -> str:
    """The first thing the verifier audit finds wrong with a task ("" when it passes)."""
    audit = audit_task(env, record, graph=graph)
    if audit.answer_in_prompt:
        return "answer_in_prompt"
    if audit.unspecified:
        return "unspecified_step"
    if audit.redundant:
        return "redundant_step"
    if audit.inert:
        return "inert_argument"
    if audit.false_negatives:
        return "false_negative:" + audit.false_negatives[0].kind
    if audit.false_positives:
        return "false_positive:" + audit.false_positives[0].kind
    return ""


def generate_tasks(env: Environment, *, compiled=None, seed: int = 0,
                   per_env: int = TASKS_PER_ENV, existing: list[TaskRecord] = (),
                   rewrite=None) -> tuple[list[TaskRecord], GenerationReport]:
    """``compiled`` (a synthesized environment's CompiledEnvironment) enables the programmatic
    templates; ``existing`` are hand-written tasks that go through the same gates; every
    environment gets graph-based tasks on top."""
    rng = random.Random(f"tasks:{env.id}:{seed}")
    graph = ToolGraph.of(env.tools)
    report = GenerationReport(env.id)
    kept: list[TaskRecord] = []
    _gate(env, list(existing), report, graph, kept, len(existing))
    # The shapes are written over the domain packs' tool names (search_, create_, cancel_);
    # a mined surface keeps its server's own names: its requests come from its bindings.
    if compiled is not None and compiled.archetype.id.startswith("mined:"):
        db = env.template.clone()
        try:
            _gate(env, mined_tasks(env, compiled, db, rng, count=per_env), report, graph, kept,
                  per_env * 2 // 3)
        finally:
            db.close()
    elif compiled is not None:
        db = env.template.clone()
        try:
            long = programmatic_tasks(env, compiled, db, rng, count=LONG_PER_ENV + 2, long=True)
            for record in _gate(env, long, report, graph, kept, LONG_PER_ENV):
                record.split = "long_horizon"
            regular = programmatic_tasks(env, compiled, db, rng, count=per_env)
            _gate(env, regular, report, graph, kept, per_env * 2 // 3)
        finally:
            db.close()
    target = len(kept) + max(per_env - len(kept), per_env // 3)
    index = 0
    for _ in range(per_env * 60):
        if len(kept) >= target:
            break
        index += 1
        record = graph_task(env, graph, rng, length=rng.randint(3, 7), index=index, seed=0)
        if record is not None and not any(k.prompt == record.prompt for k in kept):
            _gate(env, [record], report, graph, kept, 1)
    for record in kept:
        if record.split != "long_horizon":
            record.split = split_of(record.id)
    if rewrite is not None:
        # Wording only: the rewrite never touches the rubric or the reference solution.
        # Programmatic prompts are written as requests already; graph tasks' template text is
        # what a model can improve.
        kept = [rewrite(record) if record.kind == "graph" else record for record in kept]
    report.kept = len(kept)
    return kept, report
