"""A generated task as data (what is stored, exported and served), and as a runtime Task."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from agentworld.servers.tasks import Task

from .checks import Check, compile_rubric

__all__ = ["TaskRecord"]


@dataclass
class TaskRecord:
    id: str
    env_id: str
    kind: str                                   # "graph" or "programmatic"
    prompt: str
    checks: list[Check]
    reference_calls: list[list[Any]]            # [[tool, arguments], ...]
    reference_answer: str | None = None
    threshold: float = 1.0
    session_seed: int = 0
    max_steps: int = 30
    difficulty: str = "medium"                  # easy / medium / hard
    split: str = "train"                        # train / eval / test / long_horizon
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> TaskRecord:
        return cls(**raw)

    def to_task(self) -> Task:
        return Task(id=self.id, env_id=self.env_id, prompt=self.prompt,
                    verifier=compile_rubric(self.checks, self.threshold),
                    reference_calls=tuple((name, args) for name, args in self.reference_calls),
                    reference_answer=self.reference_answer, max_steps=self.max_steps,
                    kind=self.kind, session_seed=self.session_seed,
                    metadata={**self.metadata, "difficulty": self.difficulty,
                              "split": self.split, "rubric": self.checks})
