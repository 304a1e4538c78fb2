"""The GRPO sampler: dynamic filtering, a floor per group, a most-steps-between-draws per group,
and draws by learnability."""

from collections import Counter
from itertools import pairwise

import pytest

from agentworld.trainer.grpo_sampler import FilteredSampler, Learnability


def test_filtered_sampler_skips_flat_prompts_until_their_cooldown():
    flat = {"b": 0}
    sampler = FilteredSampler(["a", "b"], mini_repeat_count=2, batch_size=1, repeat_count=1,
                              flat=flat, cooldown=2, seed=0)
    assert list(sampler) == [0, 0, 0, 0] and len(sampler) == 4
    flat["b"] = 2
    assert {i for _ in range(20) for i in sampler} == {0, 1}
    flat.update(a=0, b=0)                      # everything flat: draw from all
    assert len(list(sampler)) == 4


def test_a_group_floor_draws_every_group_its_share_even_while_it_cools_down():
    labels = [f"set-{i}" for i in range(8)] + ["complete-0", "complete-1", "add-0", "add-1"]
    groups = [label.split("-")[0] for label in labels]
    flat = {"complete-0": 0, "complete-1": 0}          # "complete" failed: cooling for good
    plain = FilteredSampler(labels, mini_repeat_count=1, batch_size=2, repeat_count=1,
                            flat=flat, cooldown=4, seed=0)
    floored = FilteredSampler(labels, mini_repeat_count=1, batch_size=2, repeat_count=1,
                              flat=flat, cooldown=4, seed=0, groups=groups, group_floor=0.2)

    def draws(sampler, chunks=12):
        return Counter(groups[i] for _ in range(chunks) for i in sampler._chunk())

    assert draws(plain)["complete"] == 0
    counted = draws(floored)
    assert counted["complete"] >= 0.2 * 24 and counted["add"] >= 0.2 * 24
    assert counted["set"] >= 24 - 2 * 0.2 * 24 - 2      # the rest still goes where it went
    # Every chunk holds distinct prompts, and the layout TRL expects is kept.
    assert all(len(set(floored._chunk())) == 2 for _ in range(20))
    assert len(list(floored)) == len(floored)


def test_a_group_floor_is_refused_when_it_cannot_mean_anything():
    common = dict(mini_repeat_count=1, batch_size=1, repeat_count=1, flat={})
    with pytest.raises(ValueError, match="groups"):
        FilteredSampler(["a", "b"], groups=["x"], group_floor=0.5, **common)
    with pytest.raises(ValueError, match="group_floor"):
        FilteredSampler(["a", "b"], groups=["x", "y"], group_floor=1.5, **common)


def test_a_group_not_drawn_for_group_every_chunks_is_drawn_next_and_not_before():
    # The learning benchmark's shape: one prompt a step, one kind holding most of the list.
    labels = [f"set-{i}" for i in range(18)] + ["price-0", "complete-0"]
    groups = [label.split("-")[0] for label in labels]
    sampler = FilteredSampler(labels, mini_repeat_count=1, batch_size=1, repeat_count=1,
                              flat={}, seed=3, groups=groups, group_every=10)
    drawn = [groups[sampler._chunk()[0]] for _ in range(30)]
    for group in ("price", "complete", "set"):
        chunks = [c for c, g in enumerate(drawn, start=1) if g == group]
        gaps = [b - a for a, b in pairwise([0, *chunks, 31])]
        # Groups owed at once are drawn in turn, so one may wait a chunk per other group.
        assert chunks and max(gaps) <= 10 + 2, (group, chunks)
    # Nothing is owed before a group has gone 10 chunks undrawn: the first 9 are free draws.
    fresh = FilteredSampler(labels, mini_repeat_count=1, batch_size=1, repeat_count=1,
                            flat={}, seed=3, groups=groups, group_every=10)
    assert all(fresh._owed(list(range(len(labels)))) == [] for _ in range(9))
    assert {groups[i] for i in fresh._owed(list(range(len(labels))))} <= {"price", "complete",
                                                                          "set"}


def test_group_every_is_refused_below_zero_and_does_nothing_without_groups():
    common = dict(mini_repeat_count=1, batch_size=1, repeat_count=1, flat={})
    with pytest.raises(ValueError, match="group_every"):
        FilteredSampler(["a", "b"], groups=["x", "y"], group_every=-1, **common)
    assert FilteredSampler(["a", "b"], group_every=5, **common)._owed([0, 1]) == []


def test_learnability_is_the_reward_variance_at_a_smoothed_rate():
    learn = Learnability({"half": (2, 4), "never": (0, 12), "always": (12, 12)})
    assert learn.rate("half") == pytest.approx(0.5)
    # Twelve tries count as four: the policy has moved since they were made.
    assert learn.rate("never") == pytest.approx(0.5 / 5)
    assert learn.weight("half") == pytest.approx(0.25)
    assert learn.weight("never") == pytest.approx(learn.weight("always"))
    assert learn.weight("half") > learn.weight("never") > 0
    assert learn.rate("unknown") == pytest.approx(0.5)      # no evidence: a coin


def test_a_prompt_that_starts_to_pass_becomes_more_learnable_than_one_that_keeps_failing():
    learn = Learnability({"rw2": (1, 4), "rw0": (0, 12)}, window=8)
    before = learn.weight("rw2") / learn.weight("rw0")
    learn.observe("rw2", [1, 1, 1, 0, 0, 0, 0, 0])
    learn.observe("rw0", [0] * 8)
    after = learn.weight("rw2") / learn.weight("rw0")
    assert after > 2 * before and after > 5
    # Only the last ``window`` rollouts count, clipped to rewards from 0 to 1.
    learn.observe("rw2", [1.0] * 8)
    assert learn.recent["rw2"] == type(learn.recent["rw2"])([1.0] * 8, maxlen=8)
    learn.observe("rw0", [3.5, -1])
    assert list(learn.recent["rw0"])[-2:] == [1.0, 0.0]


def test_learnability_refuses_impossible_priors_and_settings():
    with pytest.raises(ValueError, match="wins"):
        Learnability({"a": (5, 4)})
    with pytest.raises(ValueError, match="window"):
        Learnability(window=0)
    with pytest.raises(ValueError, match="prior_tries"):
        Learnability(prior_tries=-1)


def test_draws_by_learnability_favour_the_learnable_prompts_of_a_group_and_keep_its_share():
    labels = ["set-a", "set-b", "set-c", "set-d", "todo-a", "todo-b"]
    groups = [label.split("-")[0] for label in labels]
    learn = Learnability({"set-a": (2, 4), "set-b": (0, 12), "set-c": (0, 12),
                          "set-d": (0, 12), "todo-a": (2, 4), "todo-b": (4, 4)})
    sampler = FilteredSampler(labels, mini_repeat_count=1, batch_size=1, repeat_count=1,
                              flat={}, seed=0, groups=groups, learnability=learn)
    counted = Counter(labels[i] for _ in range(4000) for i in sampler._chunk())
    assert counted["set-a"] > 2 * counted["set-b"]
    assert counted["todo-a"] > 2 * counted["todo-b"]
    set_share = sum(n for label, n in counted.items() if label.startswith("set")) / 4000
    assert set_share == pytest.approx(4 / 6, abs=0.03)     # the group's share is kept
    # A prompt whose group starts to pass is drawn more from then on.
    learn.observe("set-b", [1, 1, 1, 0])
    again = Counter(labels[i] for _ in range(4000) for i in sampler._chunk())
    assert again["set-b"] > 1.5 * counted["set-b"]


def test_draws_by_learnability_replay_for_a_seed_and_hold_distinct_prompts():
    labels = [f"p{i}" for i in range(6)]
    learn = Learnability({label: (i, 5) for i, label in enumerate(labels)})

    def chunks(seed):
        sampler = FilteredSampler(labels, mini_repeat_count=2, batch_size=3, repeat_count=1,
                                  flat={}, seed=seed, learnability=learn)
        return [sampler._chunk() for _ in range(10)]

    assert chunks(3) == chunks(3) and chunks(3) != chunks(4)
    assert all(len(set(chunk)) == 3 for chunk in chunks(3))
