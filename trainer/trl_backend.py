"""The TRL backend (CPU or GPU): ``GRPOTrainer`` with ``environment_factory`` on the hub.

Each environment becomes a class whose public methods are its tools (plus ``submit``); a method
steps the rollout's hub session and returns the observation. TRL renders the methods into the
prompt through the chat template, so the prompt is the one OpenRLHF's agent renders
(``prompting.py``). The reward is the verifier's: a rollout that ends with a plain-text reply
submits that text as the final answer; one that was still calling tools when it was cut off
scores 0, as a truncated OpenRLHF episode does; so does a final reply cut off by
``max_completion_length`` (it ends without an end-of-turn token). A rollout ends at its
``submit`` call: nothing is generated or trained on after it.

TRL parses replies with transformers' response parser; ``tool_calls.py`` reads them the same way
for OpenRLHF and evaluation. ``max_completion_length`` (replies and tool results) defaults to a
budget measured from the tasks' reference solutions (``budget.py``). With ``dynamic_filtering``
the prompts whose last group of rollouts all scored the same (no advantage, no gradient) are
set aside for a while, so steps are spent on groups with mixed rewards. Rollouts are generated
with the shared prompt prefix encoded once per optimizer step (``prefix_cache.py``), and
log-probabilities are computed over the completion only (``scored_positions.py``). With
``ptx_coef`` an SFT term on demonstrations joins GRPO's loss (``ptx.py``).
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

from .grpo_sampler import Learnability
from .prompting import SUBMIT_TOOL, tool_functions
from .tasks import TaskRef, label_of, task_rows
from .tool_calls import answer_text

__all__ = ["HubToolEnv", "environment_class", "environment_factories", "VerifierReward",
           "GRPORunConfig", "GRPORun", "train_grpo", "cut_after_submit"]

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


def environment_factories(tasks: Sequence[TaskRef | str], *, hub_url: str,
                          token: str | None = None) -> dict[str, type[HubToolEnv]]:
    """``{key: class}`` for TRL's multi-environment ``environment_factory``, one per task's
    :attr:`~agentworld.trainer.tasks.TaskRef.env_key` (an environment id alone means all its
    tools, in full); the tools come from the hub and are shown in each task's view."""
    hub = SyncHubClient(hub_url, token=token)
    out: dict[str, type[HubToolEnv]] = {}
    tools: dict[str, list[dict[str, Any]]] = {}
    try:
        for task in tasks:
            env_id = task if isinstance(task, str) else task.env_id
            key = task if isinstance(task, str) else task.env_key
            if key in out:
                continue
            if env_id not in tools:
                tools[env_id] = hub.env(env_id)["tools"]
            shown = tools[env_id] if isinstance(task, str) else task.shown_tools(tools[env_id])
            out[key] = environment_class(env_id, shown, hub_url=hub_url, token=token)
        return out
    finally:
        hub.close()


class VerifierReward:
    """TRL reward function: the verifier's reward of each rollout's episode. Keeps a record of
    every scored episode in ``history``, and per call the share of groups (``group`` rollouts
    of one prompt) whose rewards were all equal in ``zero_variance``."""

    __name__ = "verifier"

    def __init__(self, *, eos_token_ids: Sequence[int] = (), group: int = 1,
                 learnability: Learnability | None = None) -> None:
        self.history: list[dict[str, Any]] = []
        self.learnability = learnability          # told each group's rewards
        self.zero_variance: list[float] = []
        self.flat_labels: dict[str, int] = {}     # label -> calls since its group was flat
        self.eos = set(eos_token_ids)
        self.group = max(1, group)

    def _answer(self, completion, ids) -> str | None:
        last = completion[-1] if completion else {}
        plain = last.get("role") == "assistant" and not last.get("tool_calls")
        if not plain:
            return None                 # still calling tools when it ran out of turns
        if self.eos and ids is not None and (not ids or ids[-1] not in self.eos):
            return None                 # the final reply was cut off by the token budget
        return answer_text(str(last.get("content") or ""))

    def __call__(self, prompts, completions, environments=None, completion_ids=None,
                 label=None, **kwargs) -> list[float]:
        rewards = []
        ids_list = completion_ids or [None] * len(completions)
        for completion, ids, env in zip(completions, ids_list, environments or [], strict=True):
            record = env._settle(self._answer(completion, ids))
            self.history.append(record)
            rewards.append(record["reward"])
        self._track_groups(rewards, label or [])
        return rewards

    def _track_groups(self, rewards: list[float], labels: Sequence[str]) -> None:
        groups = [rewards[i:i + self.group] for i in range(0, len(rewards), self.group)]
        flat = [len(set(g)) <= 1 for g in groups]
        self.zero_variance.append(sum(flat) / len(flat) if flat else 0.0)
        for key in list(self.flat_labels):
            self.flat_labels[key] += 1
        for i, is_flat in enumerate(flat):
            if i * self.group < len(labels):
                name = labels[i * self.group]
                if self.learnability is not None:
                    self.learnability.observe(name, groups[i])
                if is_flat:
                    self.flat_labels[name] = 0
                else:
                    self.flat_labels.pop(name, None)


@dataclass(frozen=True, kw_only=True)
class GRPORunConfig:
    """A GRPO run. ``max_completion_length`` None: measured from the tasks' reference solutions
    (``budget.py``); ``max_turns`` None: the tasks' largest hub step limit. The learning rate
    stays constant after ``warmup_ratio`` (a linear decay to 0 over a handful of steps moved a
    135M model nowhere)."""

    output_dir: str
    steps: int = 10
    num_generations: int = 4
    prompts_per_step: int = 2
    # Prompts per forward/backward pass (None: a step's all at once). Fewer trade time for
    # memory: without activation checkpointing, 4 prompts x 4 rollouts of SmolLM2-135M with a
    # reference model ran out of 24 GiB, where 2 x 4 fit.
    micro_batch_prompts: int | None = None
    # Optimizer steps per generation (GRPO's mu): each generation's rollouts are trained on
    # ``iterations`` times, the later passes clipped against the generating policy's
    # probabilities. More updates for the same episodes; on two cores a reused step cost about
    # half a generating one (docs/training.md).
    iterations: int = 1
    learning_rate: float = 1e-5
    lr_scheduler: str = "constant_with_warmup"
    warmup_ratio: float = 0.0
    beta: float = 0.0                   # KL coefficient (0: no reference model)
    max_completion_length: int | None = None
    max_turns: int | None = None
    temperature: float = 1.0
    dynamic_filtering: bool = True
    filter_cooldown: int = 4
    skip_flat_steps: bool = True        # no optimizer step when every group is flat (beta 0)
    # An SFT term beside GRPO's (``ptx.py``): each optimizer step also adds ``ptx_coef`` times
    # the mean NLL of ``ptx_per_step`` demonstrations (``train_grpo``'s ``ptx_transcripts``).
    ptx_coef: float = 0.0
    ptx_per_step: int = 2
    # With dynamic filtering: a group per task label (its kind, say), the share of draws
    # each group gets at least, cooling down or not, and the steps within which each group
    # is drawn again (0: off) (``grpo_sampler.FilteredSampler``).
    groups: dict[str, str] | None = None
    group_floor: float = 0.0
    group_every: int = 0
    # With dynamic filtering: draw each group's prompts by learnability (``grpo_sampler.
    # Learnability``), starting from these ``(wins, tries)`` per task label (None: off; an
    # empty dict: no prior, GRPO's own rollouts only).
    learnability_prior: dict[str, tuple[int, int]] | None = None
    seed: int = 0
    use_cpu: bool = True
    save: bool = True

    def __post_init__(self):
        micro = self.micro_batch_prompts
        if micro is not None and (micro < 1 or self.prompts_per_step % micro):
            raise ValueError(f"micro_batch_prompts ({micro}) must divide prompts_per_step "
                             f"({self.prompts_per_step})")
        if self.iterations < 1:
            raise ValueError(f"iterations ({self.iterations}) must be at least 1")
        if (self.group_floor or self.group_every) and not (self.dynamic_filtering
                                                           and self.groups):
            raise ValueError("group_floor and group_every need dynamic_filtering and groups")
        if self.group_every < 0:
            raise ValueError(f"group_every ({self.group_every}) must be 0 (off) or more")
        if self.learnability_prior is not None and not self.dynamic_filtering:
            raise ValueError("learnability_prior needs dynamic_filtering")
        if not 0 <= self.ptx_coef < float("inf") or self.ptx_per_step < 1:
            raise ValueError(f"ptx_coef ({self.ptx_coef}) must be finite and >= 0 and "
                             f"ptx_per_step ({self.ptx_per_step}) >= 1")


@dataclass
class GRPORun:
    curve: list[dict[str, Any]] = field(default_factory=list)
    history: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    model_dir: str | None = None
    max_completion_length: int = 0
    zero_variance: list[float] = field(default_factory=list)
    skipped_steps: list[int] = field(default_factory=list)
    # Model tokens TRL generated after a rollout's submit call (cut before training): 0 while
    # the loop ends at submit, as it should.
    tokens_after_submit: int = 0
    # The ptx term's demonstrations through forward and backward, and each one's NLL.
    ptx_sequences: int = 0
    ptx_loss: list[float] = field(default_factory=list)


def _curve_callback(curve: list[dict[str, Any]]):
    from transformers import TrainerCallback

    class Curve(TrainerCallback):
        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs and "reward" in logs:
                curve.append({"step": state.global_step, "reward": float(logs["reward"]),
                              "reward_std": float(logs.get("reward_std", 0.0)),
                              "zero_variance": float(logs.get("frac_reward_zero_std", 0.0)),
                              "lr": float(logs.get("learning_rate", 0.0))})
    return Curve()


def cut_after_submit(messages: list[dict[str, Any]], ids: list[int], mask: list[int],
                     logprobs: list[float] | None = None):
    """A rollout ended at the reply that called ``submit``: ``(messages, ids, mask,
    logprobs)`` without what TRL generated after it (the submit's result and any reply to
    it). That reply can change nothing, yet GRPO would credit its tokens with the episode's
    advantage. ``mask`` marks the model's tokens with 1 (TRL's tool mask); the k-th run of ones
    is the k-th assistant message."""
    replies = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    submitted = next((k for k, i in enumerate(replies) if any(
        (c.get("function") or {}).get("name") == SUBMIT_TOOL["name"]
        for c in messages[i].get("tool_calls") or [])), None)
    if submitted is None:
        return messages, ids, mask, logprobs
    runs, end = -1, len(ids)
    for t, bit in enumerate(mask):
        if bit and (t == 0 or not mask[t - 1]):
            runs += 1
        if runs == submitted + 1:
            end = t
            break
    while end > 0 and not mask[end - 1]:
        end -= 1                        # the submit's result, if no reply followed it
    kept = messages[:replies[submitted] + 1]
    return kept, ids[:end], mask[:end], None if logprobs is None else logprobs[:end]


def _trainer_class(reward: VerifierReward, cfg: GRPORunConfig, run: GRPORun, ptx=None):
    from trl import GRPOTrainer

    from .grpo_sampler import FilteredSampler
    from .shared_prompt_scoring import score_shared_prompts

    class HubGRPOTrainer(GRPOTrainer):
        """TRL's trainer, with every rollout ending at its ``submit`` call (nothing generated
        after it, nothing trained on after it), and no optimizer step (its number goes to
        ``run.skipped_steps``) when every group of a generation is flat, and each group's
        prompt encoded once when its rows are scored. With ``ptx`` (a
        :class:`~agentworld.trainer.ptx.PtxStream`) each optimizer step also trains on its
        demonstrations."""

        _flat_generation = False
        _micro_steps = 0

        def _generate_and_score_completions(self, inputs):
            out = super()._generate_and_score_completions(inputs)
            if self.model.training:
                self._flat_generation = bool((out["advantages"] == 0).all())
            return out

        def training_step(self, model, inputs, num_items_in_batch=None):
            loss = super().training_step(model, inputs, num_items_in_batch)
            # All advantages 0 and no KL term: the gradient is exactly 0, yet Adam's momentum
            # would still move every weight. With no gradient at all, Adam skips the tensor.
            # Only in one process: each rank sees its own share of the advantages.
            if (cfg.skip_flat_steps and cfg.beta == 0 and self._flat_generation
                    and ptx is None and self.accelerator.num_processes == 1):
                for p in model.parameters():
                    p.grad = None
                skipped = run.skipped_steps
                if not skipped or skipped[-1] != self.state.global_step + 1:
                    skipped.append(self.state.global_step + 1)
            if ptx is not None:
                accumulation = self.args.gradient_accumulation_steps
                due = ptx.due(self._micro_steps % accumulation, accumulation)
                self._micro_steps += 1
                if due:
                    ptx.backward(self.accelerator.unwrap_model(model), due,
                                 self.accelerator.backward)
                    run.ptx_sequences, run.ptx_loss = ptx.sequences, ptx.losses
            return loss

        def _get_per_token_logps_and_entropies(self, model, input_ids, attention_mask,
                                               logits_to_keep, batch_size=None,
                                               compute_entropy=False, compute_aux_loss=False,
                                               **inputs):
            # Each group's prompt once (shared_prompt_scoring.py): text-only rows, one process
            # (a DDP wrapper's hooks would miss the prompt's own forward).
            if (compute_aux_loss or any(v is not None for v in inputs.values())
                    or self.accelerator.num_processes != 1):
                return super()._get_per_token_logps_and_entropies(
                    model, input_ids, attention_mask, logits_to_keep, batch_size=batch_size,
                    compute_entropy=compute_entropy, compute_aux_loss=compute_aux_loss,
                    **inputs)
            with self.accelerator.autocast():
                log_probs, entropies = score_shared_prompts(
                    model, input_ids, attention_mask, logits_to_keep,
                    compute_entropy=compute_entropy, batch_size=batch_size)
            return log_probs, entropies, None

        def _get_tool_suffix_ids(self, tool_messages):
            # After ``submit`` the episode is over, yet TRL would feed back its result and
            # generate more replies, up to the token budget: SFT transcripts end at the submit
            # call, so the model never learnt to stop there. On the learning bench that was 21%
            # of the tokens generated, and TRL counted 38-62% of rollouts as clipped
            # (docs/training.md). A suffix longer than the budget takes TRL's path for a tool
            # result that does not fit: the result is dropped and this rollout's tool loop
            # ends, so nothing is generated after the submit.
            if any(m.get("name") == SUBMIT_TOOL["name"] for m in tool_messages):
                return [0] * (self.max_completion_length + 1)
            return super()._get_tool_suffix_ids(tool_messages)

        def _generate(self, prompts):
            (prompt_ids, completion_ids, mask, completions, logprobs, *rest) = \
                super()._generate(prompts)
            if mask is None:
                return (prompt_ids, completion_ids, mask, completions, logprobs, *rest)
            for i in range(len(completion_ids)):
                generated = sum(mask[i])
                completions[i], completion_ids[i], mask[i], row_logprobs = cut_after_submit(
                    completions[i], completion_ids[i], mask[i],
                    None if logprobs is None else logprobs[i])
                run.tokens_after_submit += generated - sum(mask[i])
                if logprobs is not None:
                    logprobs[i] = row_logprobs
            return (prompt_ids, completion_ids, mask, completions, logprobs, *rest)

    class FilteredGRPOTrainer(HubGRPOTrainer):
        """Drawing prompts with :class:`FilteredSampler`."""

        def _get_train_sampler(self, dataset=None):
            dataset = dataset if dataset is not None else self.train_dataset
            return FilteredSampler(
                dataset["label"], mini_repeat_count=self.num_generations,
                batch_size=self.args.generation_batch_size // self.num_generations,
                repeat_count=self.num_iterations * self.args.steps_per_generation,
                flat=reward.flat_labels, cooldown=cfg.filter_cooldown, seed=self.args.seed,
                groups=[cfg.groups.get(label, label) for label in dataset["label"]]
                if cfg.groups else None, group_floor=cfg.group_floor,
                group_every=cfg.group_every, learnability=reward.learnability)
    return FilteredGRPOTrainer if cfg.dynamic_filtering else HubGRPOTrainer


def _grpo_args(cfg: GRPORunConfig, max_completion_length: int, max_turns: int):
    from trl import GRPOConfig

    # Small models need no activation checkpointing (TRL turns it on); it only costs time.
    # transformers 5 renamed the flag; naming the new one keeps the old one's warning away.
    names = {f.name for f in dataclasses.fields(GRPOConfig)}
    checkpointing = ({"activation_checkpointing": False} if "activation_checkpointing" in names
                     else {"gradient_checkpointing": False})
    micro = cfg.micro_batch_prompts or cfg.prompts_per_step
    # One generation of every prompt of a step, then its rollouts in micro-batches whose
    # gradients accumulate into one optimizer step (TRL's steps_per_generation follows
    # gradient_accumulation_steps).
    return GRPOConfig(
        **checkpointing,
        output_dir=cfg.output_dir, use_cpu=cfg.use_cpu, bf16=False, fp16=False,
        per_device_train_batch_size=cfg.num_generations * micro,
        gradient_accumulation_steps=cfg.prompts_per_step // micro,
        num_generations=cfg.num_generations, num_iterations=cfg.iterations,
        max_completion_length=max_completion_length, max_steps=cfg.steps,
        learning_rate=cfg.learning_rate,
        lr_scheduler_type=cfg.lr_scheduler, warmup_steps=cfg.warmup_ratio, beta=cfg.beta,
        temperature=cfg.temperature, max_tool_calling_iterations=max_turns,
        logging_steps=1, report_to="none", save_strategy="no", seed=cfg.seed,
        dataloader_num_workers=0, disable_tqdm=True)


def _eos_ids(model, tokenizer) -> list[int]:
    """The tokens that end a reply: the tokenizer's EOS and the model's generation config's."""
    ids = {tokenizer.eos_token_id}
    generation = getattr(model, "generation_config", None)
    extra = getattr(generation, "eos_token_id", None)
    ids.update(extra if isinstance(extra, list) else [extra])
    return sorted(i for i in ids if i is not None)


def train_grpo(model, tokenizer, tasks: Sequence[TaskRef], hub_url: str, cfg: GRPORunConfig, *,
               token: str | None = None, ptx_transcripts: Sequence[Any] = (),
               log: Callable[[dict[str, Any]], None] | None = None) -> GRPORun:
    """Run GRPO on ``tasks`` against the hub at ``hub_url``; save to ``cfg.output_dir``.

    ``model`` is a path or a loaded model; ``tokenizer`` must render tool calls
    (:func:`~agentworld.trainer.prompting.ensure_tool_template`). With ``cfg.ptx_coef`` above
    0, ``ptx_transcripts`` (SFT transcripts, ``sft.py``) are the ptx term's demonstrations.
    """
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from datasets import Dataset

    from .budget import completion_budget
    from .prefix_cache import prefix_cached_generate
    from .ptx import PtxStream
    from .scored_positions import completion_positions_only
    from .sft import encode_transcript

    rows = [{"prompt": r["prompt"], "label": r["label"], "environment": r["environment"]}
            for r in task_rows(tasks)]
    length = cfg.max_completion_length or completion_budget(
        tokenizer, tasks, hub_url, token=token)["max_completion_length"]
    turns = cfg.max_turns or max(t.max_steps for t in tasks)
    learnability = (None if cfg.learnability_prior is None
                    else Learnability(cfg.learnability_prior))
    reward = VerifierReward(eos_token_ids=_eos_ids(model, tokenizer), group=cfg.num_generations,
                            learnability=learnability)
    run = GRPORun(history=reward.history, max_completion_length=length,
                  zero_variance=reward.zero_variance)
    ptx = None
    if cfg.ptx_coef:
        if not ptx_transcripts:
            raise ValueError("ptx_coef is set but no ptx_transcripts were given")
        ptx = PtxStream([encode_transcript(tokenizer, t) for t in ptx_transcripts],
                        coef=cfg.ptx_coef, per_step=cfg.ptx_per_step, seed=cfg.seed)
    trainer = _trainer_class(reward, cfg, run, ptx)(
        model=model, reward_funcs=[reward], args=_grpo_args(cfg, length, turns),
        train_dataset=Dataset.from_list(rows), processing_class=tokenizer,
        callbacks=[_curve_callback(run.curve)],
        environment_factory=environment_factories(tasks, hub_url=hub_url, token=token))
    started = time.perf_counter()
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    with prefix_cached_generate(trainer.model, pad_token_id=pad), completion_positions_only():
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
