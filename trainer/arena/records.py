"""What the arena records: the run's configuration and every played episode, as plain data that
round-trips through JSON (the run directory is the arena's only state)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ArenaConfig", "StepRecord", "EpisodeRecord", "write_jsonl", "read_jsonl",
           "write_json", "read_json"]


@dataclass(frozen=True, kw_only=True)
class ArenaConfig:
    """Everything that decides what a run does; stored as ``config.json`` in the run directory.

    ``policy`` is a spec (``scripted-fail:cancel_,update_``, ``scripted-oracle``, ``smollm2``,
    ``hf:PATH``, ``openai:URL#MODEL``); ``trainer`` names the training backend
    (``scripted-practice``, ``sft``, ``trl-grpo``, ``none``).
    """

    rounds: int = 2
    policy: str = "scripted-fail:cancel_,update_"
    trainer: str = "scripted-practice"
    seed: int = 0
    categories: tuple[str, ...] = ()          # top-level categories to sample from (all if empty)
    envs: tuple[str, ...] = ()                # a fixed pool of environments instead of sampling
    envs_per_category: int = 1
    eval_tasks_per_env: int = 3
    weak_envs: int = 4                        # how many weak environments get training tasks
    train_tasks_per_env: int = 6
    complexify: int = 2                       # how many of the weakest get a richer database
    complexity_factor: float = 2.0            # rows multiplied by this in a richer database
    max_steps: int | None = None              # episode step limit (the task's own when None)
    train_steps: int = 4                      # optimizer steps per round (model trainers)
    sft_epochs: int = 1                       # trl-grpo: SFT epochs before GRPO (0: none)
    grpo_max_tokens: int | None = 1024        # trl-grpo: cap on a rollout's tokens after the prompt
    max_new_tokens: int = 96
    analyzer: str = "rules"                   # "rules", or "llm" with endpoint and model
    analyzer_endpoint: str | None = None
    analyzer_model: str | None = None
    hub_url: str | None = None                # a running hub serving this world
    in_process: bool = False                  # no hub: play in-process (on request only)
    tool_view: str = "compact:8"              # how model policies see tools (tool_views.py)
    panel_tasks_per_env: int = 2              # the fixed evaluation panel, played every round
    panel_max_calls: int | None = None        # panel solutions this short at most (None: any)
    recheck_tasks_per_env: int = 6            # weak-env tasks played before and after training
    easy_below: float = 0.1                   # below this success the curriculum gets easier

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> ArenaConfig:
        names = {f.name for f in dataclasses.fields(cls)}
        values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()
                  if k in names}
        return cls(**values)


@dataclass
class StepRecord:
    """One action of an episode as the environment answered it."""

    tool: str
    arguments: dict[str, Any]
    ok: bool
    error_code: str | None = None
    output: Any = None


@dataclass
class EpisodeRecord:
    """A played episode with what the diagnosis needs: the task's taxonomy and reference, the
    trajectory, how it ended and the verifier's verdict."""

    env_id: str
    task_id: str
    l1: str
    l2: str
    prompt: str
    reference_tools: list[str]
    steps: list[StepRecord] = field(default_factory=list)
    submitted: bool = False
    answer: str | None = None
    truncated: bool = False                   # the step limit ended it
    reward: float = 0.0
    passed: bool = False
    components: dict[str, float] = field(default_factory=dict)
    max_steps: int = 0
    error: str | None = None                  # the episode could not be played

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> EpisodeRecord:
        steps = [StepRecord(**s) for s in raw.get("steps", [])]
        return cls(**{**raw, "steps": steps})


def write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n",
                   encoding="utf-8")
    tmp.replace(path)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    tmp.replace(path)


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)
