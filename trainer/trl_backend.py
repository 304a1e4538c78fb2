"""The TRL backend (CPU or GPU): ``GRPOTrainer`` with ``environment_factory`` on the hub.

Each environment becomes a class whose public methods are its tools (plus ``submit``); a method
steps the rollout's hub session and returns the observation. TRL renders the methods into the
prompt through the chat template, so the prompt is the one OpenRLHF's agent renders
(``prompting.py``). The reward is the verifier's: a rollout that ends with a plain-text reply
submits that text as the final answer; one that was still calling tools when it was cut off
scores 0, as a truncated OpenRLHF episode does.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentworld.hub.client import HubClientError, SyncHubClient

from .prompting import SUBMIT_TOOL, tool_functions
from .tasks import TaskRef, label_of, task_rows

__all__ = ["HubToolEnv", "environment_class", "environment_factories", "VerifierReward",
           "GRPORunConfig", "GRPORun", "train_grpo"]

_OVER = json.dumps({"error": {"code": "EPISODE_OVER",
                              "message": "the episode is over; reply without a tool call"}})


class HubToolEnv:
    """One rollout's episode on the hub. Subclasses made by :func:`environment_class` add one
    public method per tool; everything else here is private or ``reset`` (TRL's contract)."""

    hub_url: str = ""
    token: str | None = None

    def __init__(self) -> None:
        self._hub = SyncHubClient(self.hub_url, token=self.token)
        self._sid: str | None = None
        self._label: tuple[str, str] | None = None
        self._outcome: dict[str, Any] | None = None

    def reset(self, **row: Any) -> None:
        """Start the episode the row's label names (a fresh copy of its database)."""
        self._close()
        self._label = label_of(row["label"])
        started = self._hub.reset(self._label[0], task_id=self._label[1])
        self._sid, self._outcome = started["session_id"], None
        return None

    def _call(self, name: str, arguments: dict[str, Any]) -> str:
        if self._sid is None or self._outcome is not None:
            return _OVER
        out = self._hub.step(self._sid, {"name": name, "arguments": arguments})
        if out["terminated"] or out["truncated"]:
            self._outcome = out
        return out["observation"]

    def _settle(self, answer: str | None) -> dict[str, Any]:
        """End the episode (submitting ``answer`` when it is still open and there is one) and
        return ``{env_id, task_id, session_id, reward, passed}``."""
        if self._outcome is None and self._sid is not None and answer is not None:
            self._call("submit", {"answer": answer})
        outcome = self._outcome or {}
        verdict = (outcome.get("info") or {}).get("verdict") or {}
        env_id, task_id = self._label or ("", "")
        record = {"env_id": env_id, "task_id": task_id, "session_id": self._sid,
                  "reward": float(outcome.get("reward", 0.0)),
                  "passed": bool(verdict.get("passed"))}
        self._close()
        return record

    def _close(self) -> None:
        if self._sid is not None:
            try:
                self._hub.end(self._sid)
            except (HubClientError, OSError):
                pass  # reaped already, or the hub is gone
        self._sid = None
        # Pooled instances can outlive the hub; no connection is kept between episodes.
        self._hub.close()


def environment_class(env_id: str, tools: Sequence[dict[str, Any]], *, hub_url: str,
                      token: str | None = None) -> type[HubToolEnv]:
    """A :class:`HubToolEnv` subclass whose public methods are ``tools`` and ``submit``."""
    methods = {fn.__name__: fn for fn in tool_functions([*tools, SUBMIT_TOOL], None,
                                                        method=True)}
    name = "Env_" + re.sub(r"\W", "_", env_id)
    return type(name, (HubToolEnv,), {**methods, "hub_url": hub_url, "token": token,
                                      "__doc__": f"The {env_id} environment on the hub."})


def environment_factories(env_ids: Sequence[str], *, hub_url: str,
                          token: str | None = None) -> dict[str, type[HubToolEnv]]:
    """``{env_id: class}`` for TRL's multi-environment ``environment_factory``; the tools come
    from the hub."""
    hub = SyncHubClient(hub_url, token=token)
    try:
        return {env_id: environment_class(env_id, hub.env(env_id)["tools"], hub_url=hub_url,
                                          token=token) for env_id in env_ids}
    finally:
        hub.close()


class VerifierReward:
    """TRL reward function: the verifier's reward of each rollout's episode. Keeps a record of
    every scored episode in ``history``."""

    __name__ = "verifier"

    def __init__(self) -> None:
        self.history: list[dict[str, Any]] = []

    def __call__(self, prompts, completions, environments=None, **kwargs) -> list[float]:
        rewards = []
        for completion, env in zip(completions, environments or [], strict=True):
            last = completion[-1] if completion else {}
            plain = last.get("role") == "assistant" and not last.get("tool_calls")
            record = env._settle(str(last.get("content") or "").strip() if plain else None)
            self.history.append(record)
            rewards.append(record["reward"])
        return rewards


@dataclass(frozen=True, kw_only=True)
class GRPORunConfig:
    output_dir: str
    steps: int = 10
    num_generations: int = 4
    prompts_per_step: int = 2
    learning_rate: float = 1e-5
    beta: float = 0.0                   # KL coefficient (0: no reference model)
    max_completion_length: int = 256
    max_turns: int = 6
    temperature: float = 1.0
    seed: int = 0
    use_cpu: bool = True
    save: bool = True


@dataclass
class GRPORun:
    curve: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    model_dir: str | None = None


def _curve_callback(curve: list[dict[str, Any]]):
    from transformers import TrainerCallback

    class Curve(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "reward" in logs:
                curve.append({"step": state.global_step, "reward": float(logs["reward"]),
                              "reward_std": float(logs.get("reward_std", 0.0))})
    return Curve()


def train_grpo(model, tokenizer, tasks: Sequence[TaskRef], hub_url: str, cfg: GRPORunConfig, *,
               token: str | None = None,
               log: Callable[[dict[str, Any]], None] | None = None) -> GRPORun:
    """Run GRPO on ``tasks`` against the hub at ``hub_url``; save to ``cfg.output_dir``.

    ``model`` is a path or a loaded model; ``tokenizer`` must render tool calls
    (:func:`~agentworld.trainer.prompting.ensure_tool_template`).
    """
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    rows = [{"prompt": r["prompt"], "label": r["label"], "environment": r["environment"]}
            for r in task_rows(tasks)]
    reward = VerifierReward()
    run = GRPORun(history=reward.history)
    # Small models need no activation checkpointing (TRL turns it on); it only costs time.
    # transformers 5 renamed the flag; naming the new one keeps the old one's warning away.
    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    checkpointing = ({"activation_checkpointing": False} if "activation_checkpointing" in names
                     else {"gradient_checkpointing": False})
    args = GRPOConfig(
        **checkpointing,
        output_dir=cfg.output_dir, use_cpu=cfg.use_cpu, bf16=False, fp16=False,
        per_device_train_batch_size=cfg.num_generations * cfg.prompts_per_step,
        num_generations=cfg.num_generations, max_completion_length=cfg.max_completion_length,
        max_steps=cfg.steps, learning_rate=cfg.learning_rate, beta=cfg.beta,
        temperature=cfg.temperature, max_tool_calling_iterations=cfg.max_turns,
        logging_steps=1, report_to="none", save_strategy="no", seed=cfg.seed,
        dataloader_num_workers=0, disable_tqdm=True)
    trainer = GRPOTrainer(
        model=model, reward_funcs=[reward], args=args, train_dataset=Dataset.from_list(rows),
        processing_class=tokenizer, callbacks=[_curve_callback(run.curve)],
        environment_factory=environment_factories(sorted({t.env_id for t in tasks}),
                                                  hub_url=hub_url, token=token))
    started = time.perf_counter()
    trainer.train()
    run.seconds = time.perf_counter() - started
    if log:
        for point in run.curve:
            log(point)
    if cfg.save:
        trainer.save_model(cfg.output_dir)
        tokenizer.save_pretrained(cfg.output_dir)
        run.model_dir = str(Path(cfg.output_dir))
    return run
