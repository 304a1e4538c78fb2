"""One round of training, behind a small protocol, so the arena runs with whatever backend is
available: the trainer package's TRL GRPO or SFT on a local model, or scripted practice.

A trainer takes the round's training tasks and the current policy spec and returns the next
policy spec (a model directory for model trainers), plus a report. Everything it writes goes
under the round's directory, so a resumed run picks up the last finished round's policy.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .policies import SCRIPTED_PREFIX
from .world import ArenaWorld

__all__ = ["ArenaTrainer", "TrainOutcome", "ScriptedPractice", "NoTraining", "SFTTrainer",
           "TRLGRPOTrainer", "make_trainer", "TRAINERS"]


@dataclass
class TrainOutcome:
    policy: str                                   # the spec of the policy after this round
    report: dict[str, Any] = field(default_factory=dict)


class ArenaTrainer(Protocol):
    name: str

    def train(self, *, world: ArenaWorld, tasks: Sequence[Any], policy: str,
              round_dir: Path) -> TrainOutcome: ...


class NoTraining:
    """Evaluation-only rounds: the policy never changes."""

    name = "none"

    def train(self, *, world, tasks, policy, round_dir) -> TrainOutcome:
        return TrainOutcome(policy, {"trainer": self.name, "tasks": len(tasks)})


class ScriptedPractice:
    """Not learning: a counter for the scripted policy. A tool counts as practised once it
    appears in ``threshold`` training tasks' reference solutions (over all rounds so far); the
    scripted policy stops failing practised tools. It makes a dry run's rounds differ the way a
    trained policy's would, without a model."""

    name = "scripted-practice"

    def __init__(self, *, threshold: int = 2) -> None:
        self.threshold = threshold

    def train(self, *, world, tasks, policy, round_dir) -> TrainOutcome:
        if not policy.startswith(SCRIPTED_PREFIX):
            return TrainOutcome(policy, {"trainer": self.name, "skipped": "not a scripted policy"})
        prefixes, _, previous = policy.removeprefix(SCRIPTED_PREFIX).partition("@")
        counts: Counter = Counter()
        if previous and Path(previous).exists():
            counts.update(json.loads(Path(previous).read_text(encoding="utf-8"))["counts"])
        for task in tasks:
            counts.update(set(name for name, _ in task.reference_calls))
        path = Path(round_dir) / "practice.json"
        learned = {tool: n >= self.threshold for tool, n in sorted(counts.items())}
        path.write_text(json.dumps({"counts": dict(sorted(counts.items())), "learned": learned},
                                   indent=2), encoding="utf-8")
        return TrainOutcome(f"{SCRIPTED_PREFIX}{prefixes}@{path}",
                            {"trainer": self.name, "tasks": len(tasks),
                             "tools_practised": sum(learned.values())})


def _model_spec(policy: str) -> str:
    return policy.removeprefix("hf:")


class SFTTrainer:
    """The trainer package's SFT on the reference solutions of the round's training tasks."""

    name = "sft"

    def __init__(self, *, epochs: int = 1, learning_rate: float = 5e-5) -> None:
        self.epochs, self.learning_rate = epochs, learning_rate

    def train(self, *, world, tasks, policy, round_dir) -> TrainOutcome:
        from agentworld.trainer.models import load_policy
        from agentworld.trainer.sft import SFTConfig, reference_transcripts, train_sft

        transcripts = reference_transcripts(world.catalog, list(tasks))
        out = Path(round_dir) / "model"
        if not transcripts:
            return TrainOutcome(policy, {"trainer": self.name, "examples": 0})
        model, tokenizer = load_policy(_model_spec(policy))
        result = train_sft(model, tokenizer, transcripts,
                           SFTConfig(epochs=self.epochs, learning_rate=self.learning_rate,
                                     batch_size=2, max_length=2048), out_dir=out)
        return TrainOutcome(f"hf:{out}", {"trainer": self.name, "examples": result.examples,
                                          "steps": result.steps, "losses": result.losses,
                                          "seconds": round(result.seconds, 1)})


class TRLGRPOTrainer:
    """The trainer package's TRL ``GRPOTrainer``, against a hub started on the arena's catalog
    (so the round's tasks, variants included, are the ones served).

    GRPO learns only from groups whose rollouts disagree, and a small base model solves none of
    the arena's tasks: every reward is 0 and no gradient flows. So each round starts, unless
    ``sft_epochs`` is 0, with SFT on the reference solutions of the round's training tasks, and
    GRPO then trains on the same tasks from there. The report gives both phases."""

    name = "trl-grpo"

    # Groups of 4 (2 rarely disagree). The rollout budget is measured from the round's tasks
    # and capped at ``max_tokens``: a catalog tool's answer can run to thousands of tokens, and
    # GRPO holds logits over the whole vocabulary for every completion token (a round with an
    # uncapped 2,000-token budget peaked at 13 GB of memory).
    def __init__(self, *, steps: int = 4, num_generations: int = 4,
                 max_completion_length: int | None = None, max_turns: int | None = None,
                 learning_rate: float = 1e-5, sft_epochs: int = 1,
                 sft_learning_rate: float = 5e-5, max_tokens: int | None = 1024) -> None:
        self.steps, self.num_generations = steps, num_generations
        self.max_completion_length, self.max_turns = max_completion_length, max_turns
        self.max_tokens = max_tokens
        self.learning_rate = learning_rate
        self.sft_epochs, self.sft_learning_rate = sft_epochs, sft_learning_rate

    def _warm_start(self, model, tokenizer, world, tasks) -> dict[str, Any]:
        from agentworld.trainer.sft import SFTConfig, reference_transcripts, train_sft

        if not self.sft_epochs:
            return {"epochs": 0}
        transcripts = reference_transcripts(world.catalog, list(tasks))
        if not transcripts:
            return {"epochs": 0, "examples": 0}
        result = train_sft(model, tokenizer, transcripts,
                           SFTConfig(epochs=self.sft_epochs, learning_rate=self.sft_learning_rate,
                                     batch_size=2, max_length=2048))
        return {"epochs": self.sft_epochs, "learning_rate": self.sft_learning_rate,
                "examples": result.examples, "steps": result.steps,
                "losses": [round(x, 4) for x in result.losses],
                "seconds": round(result.seconds, 1)}

    def train(self, *, world, tasks, policy, round_dir) -> TrainOutcome:
        from agentworld.trainer.budget import completion_budget
        from agentworld.trainer.hub_runner import serve_hub
        from agentworld.trainer.models import load_policy
        from agentworld.trainer.trl_backend import GRPORunConfig, train_grpo

        out = Path(round_dir) / "model"
        model, tokenizer = load_policy(_model_spec(policy))
        sft = self._warm_start(model, tokenizer, world, tasks)
        cfg = GRPORunConfig(output_dir=str(out), steps=self.steps,
                            num_generations=self.num_generations, prompts_per_step=1,
                            learning_rate=self.learning_rate,
                            max_completion_length=self.max_completion_length,
                            max_turns=self.max_turns)
        with serve_hub(world.catalog) as url:
            if self.max_completion_length is None and self.max_tokens:
                budget = completion_budget(tokenizer, list(tasks), url)["max_completion_length"]
                cfg = dataclasses.replace(cfg, max_completion_length=min(budget,
                                                                         self.max_tokens))
            run = train_grpo(model, tokenizer, list(tasks), url, cfg)
        rollouts = len(run.history)
        return TrainOutcome(f"hf:{run.model_dir or out}",
                            {"trainer": self.name, "sft": sft, "steps": self.steps,
                             "learning_rate": self.learning_rate, "rollouts": rollouts,
                             "max_completion_length": run.max_completion_length,
                             "rollout_success": round(sum(r["passed"] for r in run.history)
                                                      / max(1, rollouts), 4),
                             "zero_variance": run.zero_variance,
                             "skipped_steps": run.skipped_steps, "curve": run.curve,
                             "seconds": round(run.seconds, 1)})


TRAINERS = {"none": NoTraining, "scripted-practice": ScriptedPractice, "sft": SFTTrainer,
            "trl-grpo": TRLGRPOTrainer}


def make_trainer(name: str, *, steps: int = 4, sft_epochs: int = 1,
                 max_tokens: int | None = 1024) -> ArenaTrainer:
    """Raises KeyError for an unknown trainer name."""
    if name == "trl-grpo":
        return TRLGRPOTrainer(steps=steps, sft_epochs=sft_epochs, max_tokens=max_tokens)
    return TRAINERS[name]()
