"""Policies the arena can run: the trainer's (``smollm2``, ``hf:PATH``, ``openai:URL#MODEL``,
``oracle``, ``random``, ``noop``) and two scripted ones for tests and dry runs.

``scripted-fail:PREFIXES[@PRACTICE_FILE]`` replays each task's reference solution but sends
arguments of the wrong type to every tool whose name starts with one of the comma-separated
prefixes (so those calls fail with ``VALIDATION_ERROR``), except the tools listed in the practice
file (``scripted-practice`` training writes it). ``scripted-oracle`` makes no mistake.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .rollout import ArenaPolicy

__all__ = ["ScriptedPolicy", "make_arena_policy", "SCRIPTED_PREFIX"]

SCRIPTED_PREFIX = "scripted-fail:"


class ScriptedPolicy:
    """A reference replayer with a deliberate fault on one family of tools. Not a model."""

    concurrency = 16

    def __init__(self, prefixes: Iterable[str] = (), *, practiced: Iterable[str] = (),
                 name: str = "scripted") -> None:
        self.prefixes = tuple(p for p in prefixes if p)
        self.practiced = frozenset(practiced)
        self.name = name

    def faulty(self, tool: str) -> bool:
        return tool.startswith(self.prefixes) and tool not in self.practiced if self.prefixes \
            else False

    def _arguments(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if not self.faulty(tool):
            return arguments
        # Objects where the schema wants scalars: a schema error on every argument.
        return {key: {"value": value} for key, value in arguments.items()} or {"id": {}}

    async def play(self, hub: Any, task: Any) -> None:
        started = await hub.reset(task.env_id, task_id=task.task_id)
        sid = started["session_id"]
        try:
            for tool, arguments in task.reference_calls:
                out = await hub.step(sid, {"name": tool,
                                           "arguments": self._arguments(tool, dict(arguments))})
                if out["terminated"] or out["truncated"]:
                    return
            answer = {"answer": task.reference_answer} if task.reference_answer else {}
            await hub.step(sid, {"name": "submit", "arguments": answer})
        finally:
            await hub.end(sid)


def _scripted(spec: str) -> ScriptedPolicy:
    body = spec.removeprefix(SCRIPTED_PREFIX)
    prefixes, _, practice = body.partition("@")
    practiced: list[str] = []
    if practice and Path(practice).exists():
        counts = json.loads(Path(practice).read_text(encoding="utf-8"))
        practiced = [tool for tool, learned in counts.get("learned", {}).items() if learned]
    return ScriptedPolicy(prefixes.split(","), practiced=practiced, name=spec)


def make_arena_policy(spec: str, *, max_new_tokens: int = 96, max_length: int = 8192,
                      seed: int = 0, tool_view: str = "full") -> ArenaPolicy:
    """A policy from its spec.

    Raises:
        UnknownPolicyError: the trainer knows no such policy.
        MissingDependencyError: a model policy needs the ``train`` extra.
    """
    if spec == "scripted-oracle":
        return ScriptedPolicy(name=spec)
    if spec.startswith(SCRIPTED_PREFIX):
        return _scripted(spec)
    from agentworld.trainer.policies import make_policy

    # Synthesized environments have 30-50 tools: their full schemas alone take a few thousand
    # tokens, hence the compact view by default (ArenaConfig.tool_view).
    return make_policy(spec, max_new_tokens=max_new_tokens, max_length=max_length, seed=seed,
                       tool_view=tool_view)
