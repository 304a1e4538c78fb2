"""The ptx term (an SFT loss beside GRPO's): its NLL is the model's own loss on the replies, its
gradient is that loss's times the weight, and it takes every demonstration once per pass."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from agentworld.trainer.ptx import PtxStream  # noqa: E402


@pytest.fixture(scope="module")
def model_and_examples(tiny_model_dir, transcripts):
    from agentworld.trainer.models import load_policy
    from agentworld.trainer.sft import encode_transcript

    model, tokenizer = load_policy(tiny_model_dir)
    return model, [encode_transcript(tokenizer, t) for t in transcripts]


def test_the_nll_is_the_models_own_loss_on_the_replies(model_and_examples):
    import torch

    model, examples = model_and_examples
    stream = PtxStream(examples, coef=1.0, per_step=1)
    for ids, labels in examples[:3]:
        assert any(t == -100 for t in labels) and any(t != -100 for t in labels)
        with torch.no_grad():
            expected = model(input_ids=torch.tensor([ids]), labels=torch.tensor([labels])).loss
            ours = stream.nll(model, (ids, labels))
        assert float(ours) == pytest.approx(float(expected), rel=1e-5)


def test_the_gradient_is_the_weighted_loss_gradient(model_and_examples):
    import torch

    model, examples = model_and_examples
    stream = PtxStream(examples, coef=0.5, per_step=2, seed=3)
    model.zero_grad(set_to_none=True)
    stream.backward(model, 2, lambda loss: loss.backward())
    ours = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    replay = PtxStream(examples, coef=0.5, per_step=2, seed=3)
    taken = [replay.next_example() for _ in range(2)]
    model.zero_grad(set_to_none=True)
    for ids, labels in taken:
        loss = model(input_ids=torch.tensor([ids]), labels=torch.tensor([labels])).loss
        (loss * 0.25).backward()
    for name, p in model.named_parameters():
        if p.grad is not None:
            assert torch.allclose(ours[name], p.grad, atol=1e-6), name
    model.zero_grad(set_to_none=True)
    assert stream.sequences == 2 and len(stream.losses) == 2


def test_every_demonstration_once_per_pass_in_a_seeded_order(model_and_examples):
    _, examples = model_and_examples
    n = len(examples)
    first = PtxStream(examples, coef=1.0, per_step=1, seed=7)
    again = PtxStream(examples, coef=1.0, per_step=1, seed=7)
    drawn = [first.next_example() for _ in range(2 * n)]
    assert drawn == [again.next_example() for _ in range(2 * n)]
    for chunk in (drawn[:n], drawn[n:]):
        assert sorted(map(str, chunk)) == sorted(map(str, examples))


@pytest.mark.parametrize("per_step,micro_steps", [(2, 1), (2, 2), (3, 2), (1, 4), (5, 3)])
def test_a_steps_demonstrations_are_spread_over_its_micro_steps(per_step, micro_steps):
    stream = PtxStream([([1, 2, 3], [-100, 2, 3])], coef=1.0, per_step=per_step)
    dues = [stream.due(k, micro_steps) for k in range(micro_steps)]
    assert sum(dues) == per_step and max(dues) - min(dues) <= 1


def test_bad_settings_and_unlabelled_examples_are_refused():
    with pytest.raises(ValueError, match="coef > 0"):
        PtxStream([([1, 2], [-100, 2])], coef=0.0, per_step=1)
    with pytest.raises(ValueError, match="per_step >= 1"):
        PtxStream([([1, 2], [-100, 2])], coef=1.0, per_step=0)
    # Only the first token labelled: nothing to predict (labels shift by one).
    with pytest.raises(ValueError, match="labelled reply"):
        PtxStream([([1, 2], [1, -100])], coef=1.0, per_step=1)
