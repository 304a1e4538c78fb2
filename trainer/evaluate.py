"""Evaluation: a policy on a task split, success and partial credit per environment and per
top-level category.

Success is the verifier's ``passed``; partial credit is its reward (the fraction of the task's
checks that held). Episodes run on a hub, each on its own copy of the environment's database.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agentworld.hub.client import HubClient, HubClientError

from .policies import EpisodeResult, Policy
from .tasks import TaskRef

__all__ = ["EvalReport", "evaluate", "evaluate_sync"]


def _summary(results: Sequence[EpisodeResult]) -> dict[str, Any]:
    n = len(results)
    return {"tasks": n,
            "success": round(sum(r.passed for r in results) / n, 4) if n else 0.0,
            "partial_credit": round(sum(r.reward for r in results) / n, 4) if n else 0.0}


@dataclass(frozen=True)
class EvalReport:
    policy: str
    results: list[EpisodeResult]
    categories: dict[str, str]          # env_id -> top-level category

    def overall(self) -> dict[str, Any]:
        return _summary(self.results)

    def by_env(self) -> dict[str, dict[str, Any]]:
        groups: dict[str, list[EpisodeResult]] = defaultdict(list)
        for r in self.results:
            groups[r.env_id].append(r)
        return {env: _summary(rs) for env, rs in sorted(groups.items())}

    def by_category(self) -> dict[str, dict[str, Any]]:
        groups: dict[str, list[EpisodeResult]] = defaultdict(list)
        for r in self.results:
            groups[self.categories.get(r.env_id, "?")].append(r)
        return {cat: _summary(rs) for cat, rs in sorted(groups.items())}

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "overall": self.overall(), "by_env": self.by_env(),
                "by_category": self.by_category(),
                "episodes": [r.to_dict() for r in self.results]}

    def table(self) -> str:
        rows = [f"policy {self.policy}: " + _line(self.overall()), "by category:"]
        rows += [f"  {name:<40} {_line(s)}" for name, s in self.by_category().items()]
        rows.append("by environment:")
        rows += [f"  {name:<40} {_line(s)}" for name, s in self.by_env().items()]
        return "\n".join(rows)


def _line(s: dict[str, Any]) -> str:
    return (f"success {s['success']:.1%}  partial credit {s['partial_credit']:.3f}  "
            f"({s['tasks']} tasks)")


async def evaluate(policy: Policy, tasks: Sequence[TaskRef], hub_url: str, *,
                   token: str | None = None, concurrency: int | None = None,
                   progress: Callable[[EpisodeResult], None] | None = None) -> EvalReport:
    """Play every task once, ``concurrency`` at a time (default: the policy's own
    ``concurrency``, else 8). A hub error on one task counts as a failed episode (with the
    error recorded), not as a failed evaluation."""
    limit = asyncio.Semaphore(max(1, concurrency or getattr(policy, "concurrency", 8)))
    async with HubClient(hub_url, token=token) as hub:
        async def one(task: TaskRef) -> EpisodeResult:
            async with limit:
                try:
                    result = await policy.play(hub, task)
                except HubClientError as exc:
                    result = EpisodeResult(task.env_id, task.task_id, 0.0, False, 0,
                                           error=f"{exc.code}: {exc.message}")
            if progress:
                progress(result)
            return result
        results = await asyncio.gather(*(one(t) for t in tasks))
    return EvalReport(policy.name, list(results), {t.env_id: t.category for t in tasks})


def evaluate_sync(policy: Policy, tasks: Sequence[TaskRef], hub_url: str, **kwargs) -> EvalReport:
    return asyncio.run(evaluate(policy, tasks, hub_url, **kwargs))
