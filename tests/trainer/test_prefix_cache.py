"""Shared-prefix generation: the same tokens as plain ``generate``, with fewer encoded."""

from __future__ import annotations

import pytest

from agentworld.trainer.prefix_cache import group_rows, shared_prefix


def test_rows_group_by_a_long_shared_prefix():
    system_a, system_b = list(range(100, 200)), list(range(300, 400))
    rows = [system_a + [1, 2], system_b + [5], system_a + [3], list(range(100, 110)) + [9] * 50]
    groups = group_rows(rows, min_prefix=16)
    assert groups == [([0, 2], 100), ([1], 100), ([3], 59)]
    assert group_rows([[1, 2, 3]], min_prefix=16) == [([0], 0)]      # too short to cache
    assert shared_prefix(rows[0], rows[2]) == 100


def test_a_group_leaves_each_row_a_token_of_its_own():
    row = list(range(50, 150))
    assert group_rows([row, list(row)], min_prefix=16) == [([0, 1], 99)]


@pytest.fixture(scope="module")
def tiny(tiny_model_dir):
    pytest.importorskip("torch")
    from agentworld.trainer.models import load_policy

    return load_policy(tiny_model_dir)


def _plain(model, rows, **kwargs):
    import torch

    width = max(map(len, rows))
    ids = torch.tensor([[0] * (width - len(r)) + r for r in rows])
    mask = torch.tensor([[0] * (width - len(r)) + [1] * len(r) for r in rows])
    with torch.no_grad():
        return model.generate(input_ids=ids, attention_mask=mask, **kwargs)[:, width:].tolist()


def test_greedy_tokens_match_plain_generate(tiny):
    import torch

    from agentworld.trainer.prefix_cache import PrefixKV

    model, _ = tiny
    g = torch.Generator().manual_seed(0)

    def draw(n):
        return torch.randint(5, model.config.vocab_size, (n,), generator=g).tolist()
    env_a, env_b = draw(120), draw(90)
    rows = [env_a + draw(7), env_a + draw(30), env_b + draw(12), draw(40), env_a + draw(3)]
    kwargs = {"max_new_tokens": 12, "do_sample": False, "pad_token_id": 0,
              "eos_token_id": None}
    expected = _plain(model, rows, **kwargs)
    prefix = PrefixKV(model, pad_token_id=0, min_prefix=32)
    assert prefix.generate(rows, **kwargs) == expected
    assert prefix.reused == 120 * 2      # env_a's prefix, encoded once for three rows
    encoded = prefix.encoded
    # Next turn: the rows grew; the stored prefixes are reused, only the new tokens encoded.
    grown = [r + draw(5) for r in rows]
    assert prefix.generate(grown, **kwargs) == _plain(model, grown, **kwargs)
    assert prefix.encoded - encoded < sum(map(len, grown)) - 120 * 3 - 100


def test_an_optimizer_step_drops_the_cache(tiny):
    import torch

    from agentworld.trainer.prefix_cache import PrefixKV

    model, _ = tiny
    rows = [list(range(10, 110)) + [7], list(range(10, 110)) + [8, 9]]
    kwargs = {"max_new_tokens": 6, "do_sample": False, "pad_token_id": 0,
              "eos_token_id": None}
    prefix = PrefixKV(model, pad_token_id=0, min_prefix=32)
    prefix.generate(rows, **kwargs)
    saved = {k: v.clone() for k, v in model.state_dict().items()}
    try:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
        model(input_ids=torch.tensor([rows[0]]), labels=torch.tensor([rows[0]])).loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        reused = prefix.reused
        assert prefix.generate(rows, **kwargs) == _plain(model, rows, **kwargs)
        assert prefix.reused - reused == 100    # shared in the batch; nothing stale
    finally:
        model.load_state_dict(saved)


def test_the_generate_wrapper_reads_left_padded_batches(tiny):
    import torch

    from agentworld.trainer.prefix_cache import prefix_cached_generate

    model, _ = tiny
    rows = [list(range(20, 120)) + [3, 4], list(range(20, 120)) + [5]]
    kwargs = {"max_new_tokens": 5, "do_sample": False, "pad_token_id": 0,
              "eos_token_id": None}
    ids = torch.tensor([rows[0], [0] + rows[1]])
    mask = torch.tensor([[1] * 102, [0] + [1] * 101])
    with prefix_cached_generate(model, pad_token_id=0, min_prefix=32) as prefix:
        out = model.generate(input_ids=ids, attention_mask=mask, **kwargs)
    assert out[:, :102].tolist() == ids.tolist()
    assert out[:, 102:].tolist() == _plain(model, rows, **kwargs)
    assert prefix.reused == 100
    assert "generate" not in vars(model)          # the model's own method is back
