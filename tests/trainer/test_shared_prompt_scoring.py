"""Scoring GRPO's rows with each group's prompt encoded once gives TRL's log-probabilities,
entropies and gradients, and runs the model over the prompt once per group."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")

from agentworld.trainer.shared_prompt_scoring import prompt_groups, score_shared_prompts  # noqa: E402


@pytest.fixture()
def model_and_batch(tiny_model_dir):
    """Two groups of three rollouts: prompts of 30 tokens (the second group's left-padded by
    4), completions of up to 12 tokens, right-padded."""
    import torch
    from transformers import AutoModelForCausalLM
    from trl.trainer.utils import add_fused_lm_head

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    add_fused_lm_head(model, temperature=1.3, outputs=("log_probs", "entropy"))
    vocab = model.config.vocab_size
    prompts = [torch.randint(0, vocab, (30,)), torch.randint(0, vocab, (30,))]
    ids = torch.stack([prompts[r // 3] for r in range(6)])
    ids = torch.cat([ids, torch.randint(0, vocab, (6, 12))], dim=1)
    mask = torch.ones_like(ids)
    mask[3:, :4] = 0  # the second prompt is 4 tokens shorter
    mask[1, -5:] = 0  # rollouts of different lengths
    mask[4, -2:] = 0
    return model, ids, mask


def _full(model, ids, mask, keep):
    labels = ids.masked_fill(mask == 0, -100)
    labels[:, :-keep] = -100
    out = model(input_ids=ids, attention_mask=mask, labels=labels, fused_lm_head=True)
    return out.log_probs[:, -keep:], out.entropy[:, -keep:]


def _with_grads(model, score):
    log_probs, entropy = score()
    ((log_probs * entropy.detach()).sum()).backward()  # any weighting of the rows
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    model.zero_grad(set_to_none=True)
    return log_probs.detach(), entropy.detach(), grads


def test_the_same_log_probs_entropies_and_gradients(model_and_batch):
    import torch

    model, ids, mask = model_and_batch
    theirs = _with_grads(model, lambda: _full(model, ids, mask, 12))
    ours = _with_grads(model, lambda: score_shared_prompts(model, ids, mask, 12,
                                                           compute_entropy=True))
    assert torch.allclose(ours[0], theirs[0], atol=1e-5)
    assert torch.allclose(ours[1], theirs[1], atol=1e-5)
    assert ours[2].keys() == theirs[2].keys()
    for name, grad in ours[2].items():
        assert torch.allclose(grad, theirs[2][name], atol=1e-5), name


def test_each_groups_prompt_is_encoded_once(model_and_batch):
    import torch

    model, ids, mask = model_and_batch
    assert prompt_groups(ids, mask, 29) == [[0, 1, 2], [3, 4, 5]]
    tokens: list[int] = []
    hook = model.base_model.embed_tokens.register_forward_hook(
        lambda _m, args, _out: tokens.append(args[0].numel()))
    with torch.no_grad():
        log_probs, entropy = score_shared_prompts(model, ids, mask, 12)
    hook.remove()
    # per group: 29 prompt tokens once, then each row's last prompt token and its completion
    assert tokens == [29, 3 * 13, 29, 3 * 13]
    assert log_probs.shape == (6, 12) and entropy is None


def test_rows_go_through_at_most_batch_size_at_a_time(model_and_batch):
    import torch

    model, ids, mask = model_and_batch
    tokens: list[int] = []
    hook = model.base_model.embed_tokens.register_forward_hook(
        lambda _m, args, _out: tokens.append(args[0].numel()))
    with torch.no_grad():
        ours, _ = score_shared_prompts(model, ids, mask, 12, batch_size=2)
    hook.remove()
    assert tokens == [29, 2 * 13, 13, 29, 2 * 13, 13]  # still one prompt encoding a group
    with torch.no_grad():
        theirs, _ = _full(model, ids, mask, 12)
    assert torch.allclose(ours, theirs, atol=1e-5)


def test_a_groups_rows_need_not_be_adjacent(model_and_batch):
    """TRL shuffles a generation's rows before its micro-batches: each row's scores come back
    in its own place."""
    import torch

    model, ids, mask = model_and_batch
    shuffled = torch.tensor([4, 0, 3, 2, 5, 1])
    ids, mask = ids[shuffled], mask[shuffled]
    assert prompt_groups(ids, mask, 29) == [[0, 2, 4], [1, 3, 5]]
    theirs = _with_grads(model, lambda: _full(model, ids, mask, 12))
    ours = _with_grads(model, lambda: score_shared_prompts(model, ids, mask, 12,
                                                           compute_entropy=True))
    assert torch.allclose(ours[0], theirs[0], atol=1e-5)
    assert torch.allclose(ours[1], theirs[1], atol=1e-5)
    for name, grad in ours[2].items():
        assert torch.allclose(grad, theirs[2][name], atol=1e-5), name


def test_rows_without_a_shared_prompt_are_scored_whole(model_and_batch):
    import torch

    model, ids, mask = model_and_batch
    ids = ids.clone()
    ids[1, 0] = (ids[1, 0] + 1) % model.config.vocab_size  # the three rows no longer match
    ids[2, 5] = (ids[2, 5] + 1) % model.config.vocab_size
    assert prompt_groups(ids, mask, 29) == [[0], [1], [2], [3, 4, 5]]
    with torch.no_grad():
        ours, _ = score_shared_prompts(model, ids, mask, 12)
        theirs, _ = _full(model, ids, mask, 12)
    assert torch.allclose(ours, theirs, atol=1e-5)
