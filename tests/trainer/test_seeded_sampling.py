"""Seeded sampling: a request's tokens depend on the seed and the request, not on its batch."""

from __future__ import annotations

import asyncio
import math
from collections import Counter

import pytest

from agentworld.trainer.seeded_sampling import RequestStreams, SeededSampler


def test_identical_requests_get_fresh_seeds_and_others_are_unaffected():
    a, b = RequestStreams(seed=3), RequestStreams(seed=3)
    first = [a.next_seed([1, 2, 3]), a.next_seed([1, 2, 3]), a.next_seed([4])]
    # Another order of arrival for different requests: each request keeps its seed.
    second = [b.next_seed([4]), b.next_seed([1, 2, 3]), b.next_seed([1, 2, 3])]
    assert first[0] != first[1]
    assert (first[0], first[1], first[2]) == (second[1], second[2], second[0])
    assert RequestStreams(seed=4).next_seed([1, 2, 3]) != first[0]
    assert all(0 <= s < 2 ** 63 for s in first)


def test_the_sampler_draws_from_the_tempered_distribution():
    torch = pytest.importorskip("torch")
    logits = torch.tensor([[2.0, 1.0, 0.0, -1.0]])
    n = 4000
    drawn = Counter()
    for seed in range(n):
        out = SeededSampler([seed], temperature=0.5)(None, logits.clone())
        assert torch.isinf(out).sum() == 3          # one token left possible
        drawn[int(out.argmax())] += 1
    expected = torch.softmax(logits[0] / 0.5, dim=-1).tolist()
    for token, p in enumerate(expected):
        assert abs(drawn[token] / n - p) < 4 * math.sqrt(p * (1 - p) / n) + 1e-3
    again = SeededSampler([7, 7], temperature=1.0)(None, torch.zeros(2, 50))
    assert again[0].argmax() == again[1].argmax()   # same seed, same draw, whatever the row


def test_the_sampler_refuses_a_mismatch():
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match="temperature"):
        SeededSampler([1], temperature=0.0)
    with pytest.raises(ValueError, match="2 rows for 1 seeds"):
        SeededSampler([1], temperature=1.0)(None, torch.zeros(2, 5))


@pytest.fixture(scope="module")
def tiny(tiny_model_dir):
    pytest.importorskip("torch")
    from agentworld.trainer.models import load_policy

    return load_policy(tiny_model_dir)


def _requests(vocab: int) -> list[list[int]]:
    import torch

    g = torch.Generator().manual_seed(0)

    def draw(n):
        return torch.randint(5, vocab, (n,), generator=g).tolist()
    shared = draw(80)
    one = shared + draw(6)
    # Two identical requests (two samples of one task) and three others.
    return [one, list(one), shared + draw(20), draw(30), shared + draw(3)]


def _play(model, tokenizer, requests, *, max_batch: int, seed: int, order, together: bool):
    from agentworld.trainer.policies import hf_generate

    generate = hf_generate(model, tokenizer, temperature=1.0, max_batch=max_batch, seed=seed)

    async def run():
        out = {}
        if together:
            texts = await asyncio.gather(*(generate(requests[i], 16) for i in order))
            out = dict(zip(order, texts, strict=True))
        else:
            for i in order:
                out[i] = await generate(requests[i], 16)
        return [out[i].token_ids for i in range(len(requests))]
    return asyncio.run(run())


def test_samples_do_not_depend_on_batching_or_arrival(tiny):
    model, tokenizer = tiny
    requests = _requests(model.config.vocab_size)
    alone = _play(model, tokenizer, requests, max_batch=1, seed=0, order=range(5),
                  together=False)
    batched = _play(model, tokenizer, requests, max_batch=8, seed=0, order=[4, 2, 0, 3, 1],
                    together=True)
    # Requests 0 and 1 are the same, so they may swap streams; the rest match one for one.
    assert sorted(batched[:2]) == sorted(alone[:2])
    assert batched[2:] == alone[2:]
    assert alone[0] != alone[1]                     # two samples of one prompt differ
    other_seed = _play(model, tokenizer, requests, max_batch=8, seed=1, order=range(5),
                       together=True)
    assert other_seed != alone
