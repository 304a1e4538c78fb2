"""Verifiable tasks: a prompt for the agent and a deterministic verifier for the reward.

A verifier reads only what an episode leaves behind: the initial database (the template), the
final database (the session's copy), the agent's final answer and the trajectory of calls. It
never reads the wall clock or the network, so the same episode always gets the same reward.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Step", "VerifierInput", "Verdict", "Verifier", "Task", "REWARD_MODES", "reward_for"]


@dataclass(frozen=True)
class Step:
    """One tool call of a trajectory, as the runtime answered it."""

    tool: str
    arguments: dict[str, Any]
    ok: bool
    output: dict[str, Any]


@dataclass(frozen=True)
class VerifierInput:
    initial: sqlite3.Connection
    final: sqlite3.Connection
    answer: str | None
    trajectory: Sequence[Step]

    def final_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        row = self.final.execute(sql, params).fetchone()
        return dict(row) if row is not None else None

    def initial_one(self, sql: str, params: Sequence[Any] = ()) -> dict[str, Any] | None:
        row = self.initial.execute(sql, params).fetchone()
        return dict(row) if row is not None else None


REWARD_MODES = ("binary", "partial")


@dataclass(frozen=True)
class Verdict:
    """Whether the task is solved, the training reward, and the score of each check.

    ``score`` is the fraction of the rubric's points earned. ``reward`` is what a trainer
    optimises: 1 for a pass; for a failure 0 (``binary``, the default) or half the score
    (``partial``), so that every failure ranks below every pass. ``notes`` says what the checks
    read beyond their verdict: the reply's contradictions, and the statements the claim reader
    could not decide (left to an optional LLM judge, never part of the reward).
    """

    reward: float
    passed: bool
    components: dict[str, float] = field(default_factory=dict)
    score: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_checks(cls, checks: dict[str, bool], *, threshold: float = 1.0,
                    mode: str = "binary") -> Verdict:
        """Equal-weight checks: the score is the fraction passed; solved at ``threshold``."""
        components = {name: 1.0 if ok else 0.0 for name, ok in checks.items()}
        score = sum(components.values()) / len(components) if components else 0.0
        return cls.of(score, score >= threshold, components, mode=mode)

    @classmethod
    def of(cls, score: float, passed: bool, components: dict[str, float], *,
           mode: str = "binary", notes: dict[str, Any] | None = None) -> Verdict:
        return cls(reward=reward_for(score, passed, mode), passed=passed,
                   components=components, score=round(score, 6), notes=dict(notes or {}))

    def with_mode(self, mode: str) -> Verdict:
        """The same verdict under another reward mode."""
        score = self.reward if self.score is None else self.score
        return Verdict.of(score, self.passed, self.components, mode=mode, notes=self.notes)

    def to_dict(self) -> dict[str, Any]:
        out = {"reward": self.reward, "passed": self.passed, "score": self.score,
               "components": self.components}
        if self.notes:
            out["notes"] = self.notes
        return out


def reward_for(score: float, passed: bool, mode: str = "binary") -> float:
    """The training reward of a verdict. Raises ValueError for an unknown mode."""
    if mode not in REWARD_MODES:
        raise ValueError(f"unknown reward mode {mode!r}; choose one of {', '.join(REWARD_MODES)}")
    if passed:
        return 1.0
    return 0.0 if mode == "binary" else round(0.5 * min(max(score, 0.0), 1.0), 6)


Verifier = Callable[[VerifierInput], Verdict]


@dataclass(frozen=True)
class Task:
    """A prompt, its verifier, and a reference solution that the verifier must accept."""

    id: str
    env_id: str
    prompt: str
    verifier: Verifier
    # Reference solution: the calls and final answer that solve the task from the template state.
    reference_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    reference_answer: str | None = None
    max_steps: int = 30
    kind: str = "programmatic"
    metadata: dict[str, Any] = field(default_factory=dict)
    # The seed of the episode's session when the reference solution names records it creates
    # (their ids come from the session seed); None lets the episode's own seed decide.
    session_seed: int | None = None

    def describe(self) -> dict[str, Any]:
        return {"id": self.id, "env_id": self.env_id, "prompt": self.prompt,
                "max_steps": self.max_steps, "kind": self.kind, "metadata": self.metadata}
