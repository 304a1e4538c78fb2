"""SFT warm start: tasks' reference solutions as chat transcripts with tool calls, and a small
training loop on them (loss on the assistant's tokens only).

A transcript replays the reference calls in a real episode, so every tool message is exactly
what the hub would answer, and ends with the ``submit`` call; a reference the verifier does not
accept is left out. Rendering goes through the same chat template and tool schemas as rollouts.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentworld.hub.episode import Episode
from agentworld.servers import Catalog

from .prompting import SUBMIT_TOOL, format_tool_call, tool_schemas
from .tasks import TaskRef

__all__ = ["Transcript", "reference_transcript", "reference_transcripts", "SFTConfig",
           "encode_transcript", "train_sft"]


@dataclass(frozen=True)
class Transcript:
    task: TaskRef
    messages: list[dict[str, Any]]
    schemas: list[dict[str, Any]]
    reward: float


def reference_transcript(catalog: Catalog, task: TaskRef) -> Transcript:
    """The task solved by its reference calls, as chat messages ending with the submit call."""
    env = catalog.load(task.env_id)
    runtime_task = next(t for t in env.tasks if t.id == task.task_id)
    episode = Episode(env, task=runtime_task)
    messages: list[dict[str, Any]] = list(task.messages())
    try:
        for name, arguments in task.reference_calls:
            messages.append(format_tool_call(name, arguments))
            outcome = episode.step({"name": name, "arguments": arguments})
            messages.append({"role": "tool", "name": name, "content": outcome.observation})
        answer = {"answer": task.reference_answer} if task.reference_answer is not None else {}
        messages.append(format_tool_call("submit", answer))
        reward = episode.step({"name": "submit", "arguments": answer}).reward
    finally:
        episode.close()
    schemas = tool_schemas([*task.shown_tools(env.tool_list()), SUBMIT_TOOL])
    return Transcript(task, messages, schemas, reward)


def reference_transcripts(catalog: Catalog, tasks: Sequence[TaskRef], *,
                          min_reward: float = 1.0) -> list[Transcript]:
    """Transcripts of the tasks whose reference solution the verifier accepts."""
    out = [reference_transcript(catalog, t) for t in tasks if t.reference_calls
           or t.reference_answer is not None]
    return [t for t in out if t.reward >= min_reward]


def encode_transcript(tokenizer, transcript: Transcript) -> tuple[list[int], list[int]]:
    """``(input_ids, labels)``: labels are -100 except on the assistant's replies (up to their
    end-of-turn token), so the model learns to act, not to predict the environment.

    The text is cut where rollouts cut it (the prompt, each reply, each tool message with the
    next assistant header) and each piece is tokenized alone, so training sees the same token
    boundaries as generation.
    """
    def render(messages, generation: bool) -> str:
        return tokenizer.apply_chat_template(messages, tools=transcript.schemas, tokenize=False,
                                             add_generation_prompt=generation)

    messages, eos = transcript.messages, tokenizer.eos_token or ""
    full = render(messages, False)
    spans: list[tuple[int, int]] = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        start, end = len(render(messages[:i], True)), len(render(messages[:i + 1], False))
        if eos and eos in full[start:end]:
            end = full.rindex(eos, start, end) + len(eos)
        spans.append((start, end))
    ids: list[int] = []
    labels: list[int] = []
    at = 0
    for start, end in [*spans, (len(full), len(full))]:
        for lo, hi, train in ((at, start, False), (start, end, True)):
            if hi > lo:
                piece = list(tokenizer(full[lo:hi], add_special_tokens=False)["input_ids"])
                ids += piece
                labels += piece if train else [-100] * len(piece)
        at = end
    return ids, labels


@dataclass(frozen=True, kw_only=True)
class SFTConfig:
    epochs: int = 3
    learning_rate: float = 5e-5
    batch_size: int = 4
    max_length: int = 2048
    warmup_ratio: float = 0.1
    seed: int = 0
    threads: int | None = None


@dataclass
class SFTResult:
    steps: int = 0
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0
    examples: int = 0


def train_sft(model, tokenizer, transcripts: Sequence[Transcript], cfg: SFTConfig, *,
              out_dir: str | Path | None = None,
              log: Callable[[dict[str, Any]], None] | None = None) -> SFTResult:
    """Train ``model`` in place on the transcripts; save it (and the tokenizer) to ``out_dir``."""
    import torch

    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    examples = [encode_transcript(tokenizer, t) for t in transcripts]
    examples = [(ids[:cfg.max_length], lab[:cfg.max_length]) for ids, lab in examples]
    rng = random.Random(cfg.seed)
    steps_per_epoch = math.ceil(len(examples) / cfg.batch_size)
    total = max(1, steps_per_epoch * cfg.epochs)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate, weight_decay=0.0)
    warmup = max(1, int(total * cfg.warmup_ratio))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (total - s) / total))
    result, started = SFTResult(examples=len(examples)), time.perf_counter()
    model.train()
    for _epoch in range(cfg.epochs):
        order = list(range(len(examples)))
        rng.shuffle(order)
        for b in range(0, len(order), cfg.batch_size):
            batch = [examples[i] for i in order[b:b + cfg.batch_size]]
            loss = _step(model, tokenizer, batch, optimizer, schedule)
            result.steps += 1
            result.losses.append(loss)
            if log:
                log({"step": result.steps, "loss": round(loss, 4),
                     "lr": schedule.get_last_lr()[0]})
    model.eval()
    result.seconds = time.perf_counter() - started
    if out_dir is not None:
        model.save_pretrained(out_dir)
        tokenizer.save_pretrained(out_dir)
    return result


def _step(model, tokenizer, batch, optimizer, schedule) -> float:
    import torch

    width = max(len(ids) for ids, _ in batch)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    device = getattr(model, "device", None)
    input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in batch],
                             device=device)
    labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch],
                          device=device)
    mask = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in batch],
                        device=device)
    loss = labelled_nll(model, input_ids, mask, labels)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    schedule.step()
    optimizer.zero_grad(set_to_none=True)
    return float(loss.detach())


def labelled_nll(model, input_ids, attention_mask, labels):
    """Mean next-token NLL over the labelled positions of a causal LM's batch.

    The same loss as ``model(..., labels=labels).loss``, but the output layer runs only on the
    positions that carry a label: a transcript is mostly prompt and tool messages, and the
    vocabulary projection over every position was a quarter of an SFT step on CPU.
    """
    import torch

    hidden = model.base_model(input_ids=input_ids,
                              attention_mask=attention_mask).last_hidden_state[:, :-1]
    targets = labels[:, 1:]
    keep = targets != -100
    logits = model.get_output_embeddings()(hidden[keep]).float()
    return torch.nn.functional.cross_entropy(logits, targets[keep])
