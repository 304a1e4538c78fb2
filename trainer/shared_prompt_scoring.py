"""GRPO's log-probabilities with each group's prompt encoded once.

A GRPO group is ``num_generations`` rollouts of one prompt, so the rows TRL scores come in
groups that share every prompt token; only the completions differ. TRL runs each row through
the model whole: the prompt (system prompt, tool schemas, the request), most of a row's tokens,
goes through once per rollout, in the policy's forward and backward and again in the reference
model's forward.

:func:`score_shared_prompts` encodes a group's prompt once (batch of one, keeping its keys and
values), hands those to every row of the group, broadcast, and runs the rows only over what
follows. Autograd carries each row's gradient back through the broadcast into the one prompt
encoding, where the rows' contributions add up, as they would have in separate rows. Positions
are those of the full rows (transformers counts the cached tokens), and the prompt's padding is
the same on every row of a group, so each row attends to what it did before: log-probabilities,
entropies and gradients are the same up to float rounding.
"""

from __future__ import annotations

from typing import Any

from .prefix_cache import cache_argument

__all__ = ["prompt_groups", "score_shared_prompts"]


def prompt_groups(input_ids, attention_mask, prompt_width: int) -> list[list[int]]:
    """Row indices grouped by their first ``prompt_width`` columns (tokens and attention
    mask), in order of first appearance. TRL shuffles a generation's rows before it splits
    them into micro-batches, so a group's rows need not be adjacent."""
    import torch

    keys = torch.cat([input_ids[:, :prompt_width], attention_mask[:, :prompt_width]], dim=1)
    groups: dict[tuple[int, ...], list[int]] = {}
    for i, key in enumerate(keys.tolist()):
        groups.setdefault(tuple(key), []).append(i)
    return list(groups.values())


def score_shared_prompts(model, input_ids, attention_mask, logits_to_keep: int, *,
                         compute_entropy: bool = False,
                         batch_size: int | None = None) -> tuple[Any, Any]:
    """``(log_probs, entropies)`` of the last ``logits_to_keep`` tokens of each row, as TRL's
    fused LM head gives them for ``model(input_ids, attention_mask, labels,
    fused_lm_head=True)`` (``entropies`` is ``None`` unless ``compute_entropy``), with each
    group of rows sharing a prompt encoding it once. ``model`` carries TRL's fused head. Rows
    go through the model at most ``batch_size`` at a time (TRL's bound on peak memory)."""
    import torch

    # The prefix stops one token short of the completion: the last prompt position's hidden
    # state is what scores the first completion token, so it is computed with the rows.
    shared = input_ids.shape[1] - logits_to_keep - 1
    log_probs, entropies, order = [], [], []
    for group in prompt_groups(input_ids, attention_mask, shared + 1):
        prompt = None
        if len(group) > 1 and shared > 0:
            first = group[0]
            prompt = model.base_model(input_ids=input_ids[first:first + 1, :shared],
                                      attention_mask=attention_mask[first:first + 1, :shared],
                                      use_cache=True)
        step = batch_size or len(group)
        for at in range(0, len(group), step):
            rows = group[at:at + step]
            out = _score_rows(model, input_ids, attention_mask, rows, logits_to_keep,
                              prompt, shared)
            log_probs.append(out.log_probs[:, -logits_to_keep:])
            if compute_entropy:
                entropies.append(out.entropy[:, -logits_to_keep:])
            order += rows
    back = torch.argsort(torch.tensor(order, device=input_ids.device))
    return (torch.cat(log_probs)[back],
            torch.cat(entropies)[back] if compute_entropy else None)


def _score_rows(model, input_ids, attention_mask, rows: list[int], logits_to_keep: int,
                prompt, shared: int):
    """The fused head's output for ``rows``: whole, or after the first ``shared`` tokens when
    ``prompt`` (the backbone's output for them, with its cache) is given."""
    import torch
    from transformers import DynamicCache

    index = torch.tensor(rows, device=input_ids.device)
    ids, mask = input_ids[index], attention_mask[index]
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :-logits_to_keep] = -100
    if prompt is None:
        return model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    cache = getattr(prompt, "cache", None) or prompt.past_key_values
    n = len(rows)
    # A fresh cache per call: the forward appends the rows' own keys and values to it.
    rows_cache = DynamicCache(ddp_cache_data=[
        (layer.keys.expand(n, -1, -1, -1), layer.values.expand(n, -1, -1, -1))
        for layer in cache.layers])
    return model(input_ids=ids[:, shared:], attention_mask=mask, labels=labels[:, shared:],
                 fused_lm_head=True, **{cache_argument(model.base_model.forward): rows_cache})
