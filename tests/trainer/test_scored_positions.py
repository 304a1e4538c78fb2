"""TRL's fused LM head scores only the completion on a CPU while ``completion_positions_only``
is active, and gives the same log-probabilities, entropies and gradients as scoring every
position."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")


@pytest.fixture()
def fused(tiny_model_dir):
    import torch
    from transformers import AutoModelForCausalLM
    from trl.trainer.utils import add_fused_lm_head

    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_pretrained(tiny_model_dir)
    add_fused_lm_head(model, temperature=1.3, outputs=("log_probs", "entropy"))
    ids = torch.randint(0, model.config.vocab_size, (3, 40))
    labels = ids.clone()
    labels[:, :-12] = -100  # a 28-token prompt, a 12-token completion
    labels[2, -3:] = -100  # one row's completion ends early (padding)
    return model, ids, labels


def _score(model, ids, labels):
    import torch

    out = model(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels,
                fused_lm_head=True)
    out.log_probs.sum().backward()
    grad = model.get_output_embeddings().weight.grad.clone()
    model.zero_grad()
    return out.log_probs.detach(), out.entropy.detach(), grad


def _rows_projected(monkeypatch) -> list[int]:
    """Record how many positions each call of TRL's chunked log-prob function projects."""
    from trl.trainer import utils

    rows: list[int] = []
    real = utils._ChunkedLogProbFunction

    class Spy:
        @staticmethod
        def apply(hidden, *args):
            rows.append(hidden.shape[0])
            return real.apply(hidden, *args)

    monkeypatch.setattr(utils, "_ChunkedLogProbFunction", Spy)
    return rows


def test_only_labelled_positions_are_projected_on_a_cpu(fused, monkeypatch):
    from agentworld.trainer.scored_positions import completion_positions_only

    model, ids, labels = fused
    rows = _rows_projected(monkeypatch)
    _score(model, ids, labels)
    with completion_positions_only() as active:
        _score(model, ids, labels)
    assert active
    labelled = int((labels[:, 1:] != -100).sum())
    assert rows == [3 * 39, labelled]


def test_scores_and_gradients_are_unchanged(fused):
    import torch

    from agentworld.trainer.scored_positions import completion_positions_only

    model, ids, labels = fused
    every = _score(model, ids, labels)
    with completion_positions_only():
        compact = _score(model, ids, labels)
    for a, b in zip(every, compact, strict=True):
        torch.testing.assert_close(a, b)
    assert bool((every[0][:, :27] == 0).all())  # the prompt scores nothing either way


def test_the_switch_is_restored_after_use_and_after_an_error():
    from trl.trainer import utils

    from agentworld.trainer.scored_positions import completion_positions_only

    original = utils._use_triton
    with pytest.raises(RuntimeError):
        with completion_positions_only():
            assert utils._use_triton is not original
            raise RuntimeError("boom")
    assert utils._use_triton is original
