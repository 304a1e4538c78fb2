"""How the learning benchmark picks GRPO's first prompts: every kind of train task is tried,
in every wording, however the list is ordered or proportioned; and the GRPO options it refuses."""

import sys
from collections import Counter
from pathlib import Path

import pytest

from agentworld.trainer.tasks import TaskRef

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from train_learning import (  # noqa: E402
    _args,
    _draws,
    _every_nth_per_kind,
    _refill,
    _spread_per_kind,
    learnability_prior,
    mixed_group_chance,
    unsolved_of_mixed_kinds,
    weight_by_kind_failure,
)


def _ref(env_id: str, task_id: str) -> TaskRef:
    return TaskRef(env_id=env_id, task_id=task_id, prompt=task_id, env_title=env_id,
                   category="bench", tool_names=("submit",), split="train",
                   reference_calls=(), reference_answer=None, max_steps=4, metadata={},
                   tool_view="full", relevant_tools=())


def _prompts(kinds: dict[tuple[str, str], int], wordings=("", "-rw0", "-rw1", "-rw2")):
    return [_ref(env, f"{kind}-{i}{w}") for (env, kind), n in kinds.items()
            for i in range(n) for w in wordings]


def test_a_rare_kind_gets_as_many_prompts_as_a_common_one():
    prompts = _prompts({("todo", "complete"): 12, ("todo", "add"): 2, ("stock", "set"): 9})
    pool = _spread_per_kind(prompts, 9)
    per_kind = Counter(f"{t.env_id}/{t.task_id.split('-')[0]}" for t in pool)
    assert per_kind == {"todo/complete": 3, "todo/add": 2, "stock/set": 3}


def test_the_pool_cycles_through_wordings_and_distinct_tasks():
    pool = _spread_per_kind(_prompts({("todo", "complete"): 12}), 4)
    ids = [t.task_id for t in pool]
    assert ids == ["complete-0", "complete-4-rw0", "complete-7-rw1", "complete-11-rw2"]
    assert len({i.rpartition("-rw")[0] or i for i in ids}) == 4


def test_reworded_only_prompts_cycle_through_the_three_rewordings():
    pool = _spread_per_kind(_prompts({("todo", "complete"): 6}, ("-rw0", "-rw1", "-rw2")), 4)
    assert [t.task_id.rpartition("-")[2] for t in pool] == ["rw0", "rw1", "rw2", "rw0"]


def test_every_nth_per_kind_keeps_every_kind_of_an_alternating_list():
    tasks = [_ref("stock", f"{kind}-SKU-{i}") for i in range(8) for kind in ("set", "price")]
    kept = _every_nth_per_kind(tasks, 2)
    assert Counter(t.task_id.split("-")[0] for t in kept) == {"set": 4, "price": 4}


def test_refill_tries_untried_tasks_of_the_kinds_with_no_mixed_prompt():
    prompts = _prompts({("todo", "complete"): 6, ("stock", "price"): 6}, ("-rw0", "-rw1"))
    tried = _spread_per_kind(prompts, 4)
    # "complete" had a mixed prompt (2 of 4); every "price" prompt scored 0 of 4.
    wins = {f"{t.env_id}/{t.task_id}": 2 if t.task_id.startswith("complete-0") else 0
            for t in tried}
    refill = _refill(prompts, tried, wins, 4, 3)
    assert {t.task_id.split("-")[0] for t in refill} == {"price"}
    assert len(refill) == 3
    tried_bases = {t.task_id.rpartition("-rw")[0] for t in tried}
    assert not {t.task_id.rpartition("-rw")[0] for t in refill} & tried_bases


def test_refill_is_empty_when_every_kind_had_a_mixed_prompt_or_when_off():
    prompts = _prompts({("todo", "complete"): 4, ("stock", "set"): 4}, ("-rw0",))
    tried = _spread_per_kind(prompts, 4)
    wins = {f"{t.env_id}/{t.task_id}": 1 for t in tried}
    assert _refill(prompts, tried, wins, 4, 3) == []
    assert _refill(prompts, tried, dict.fromkeys(wins, 0), 4, 0) == []


def test_refill_of_a_kind_with_too_few_mixed_prompts_keeps_to_their_wordings():
    prompts = _prompts({("stock", "set"): 12, ("stock", "price"): 12}, ("-rw0", "-rw1", "-rw2"))
    tried = _spread_per_kind(prompts, 6)
    # One "set" prompt was mixed, in wording rw1; two "price" prompts were, in rw0 and rw2.
    wins = {f"{t.env_id}/{t.task_id}": 0 for t in tried}
    set_rw1 = next(t for t in tried if t.task_id.startswith("set") and t.task_id.endswith("rw1"))
    wins[f"stock/{set_rw1.task_id}"] = 2
    for t in [t for t in tried if t.task_id.startswith("price")][:2]:
        wins[f"stock/{t.task_id}"] = 3
    refill = _refill(prompts, tried, wins, 4, 4, below=2)
    assert {t.task_id.split("-")[0] for t in refill} == {"set"}
    assert len(refill) == 4 and {t.task_id.rpartition("-")[2] for t in refill} == {"rw1"}
    tried_bases = {t.task_id.rpartition("-rw")[0] for t in tried}
    assert not {t.task_id.rpartition("-rw")[0] for t in refill} & tried_bases
    # At the default (refill kinds with no mixed prompt) neither kind is refilled.
    assert _refill(prompts, tried, wins, 4, 4) == []


def test_grpo_temperature_defaults_to_1_3_and_refuses_greedy_negative_or_not_finite(capsys):
    assert _args([]).grpo_temperature == 1.3
    assert _args(["--grpo-temperature", "1.0"]).grpo_temperature == 1.0
    for bad in ("0", "-1", "nan", "inf"):
        with pytest.raises(SystemExit) as exit_:
            _args(["--grpo-temperature", bad])
        assert exit_.value.code == 2
        assert "--grpo-temperature must be above 0 and finite" in capsys.readouterr().err


def test_a_prompt_retried_after_failing_every_first_try_is_mixed_by_all_its_tries():
    # "set" in rw2 failed its first 4 tries and won 1 of 8 more: mixed (1 of 12), so the
    # kind is not refilled; "price" won 4 of 4 and no retry was made: not mixed, refilled.
    prompts = _prompts({("stock", "set"): 8, ("stock", "price"): 8}, ("-rw2",))
    tried = _spread_per_kind(prompts, 4)
    wins, tries = {}, {}
    for t in tried:
        label = f"{t.env_id}/{t.task_id}"
        retried = t.task_id.startswith("set")
        wins[label], tries[label] = (1, 12) if retried else (4, 4)
    refill = _refill(prompts, tried, wins, tries, 2)
    assert {t.task_id.split("-")[0] for t in refill} == {"price"}
    # Had every prompt been tried 13 times, "price" (4 wins) would be mixed too.
    assert _refill(prompts, tried, wins, 13, 2) == []


def test_mixed_group_chance_is_the_share_of_groups_neither_all_solved_nor_all_failed():
    assert mixed_group_chance(2, 4, 4) == pytest.approx(1 - 2 * 0.5 ** 4)       # 0.875
    assert mixed_group_chance(1, 12, 4) == pytest.approx(1 - (1 / 12) ** 4 - (11 / 12) ** 4)
    assert mixed_group_chance(1, 12, 4) < 0.5 < mixed_group_chance(1, 4, 4)
    assert mixed_group_chance(0, 12, 4) == mixed_group_chance(12, 12, 4) == 0
    assert mixed_group_chance(0, 0, 4) == 0                                     # never tried
    assert mixed_group_chance(1, 2, 1) == 0                                     # one rollout


def test_a_wording_solved_once_in_twelve_tries_is_refilled_when_a_chance_is_asked():
    # Seed 1: "set" in rw2 was solved 1 time in 12 and rw1 2 times in 4. Mixed, both; but
    # groups of four of the rw2 prompt are mixed 29% of the time, so at 0.5 rw2 is refilled.
    prompts = _prompts({("stock", "set"): 9}, ("-rw1", "-rw2"))
    tried = _spread_per_kind(prompts, 2)
    wins = {f"stock/{t.task_id}": 1 if t.task_id.endswith("rw2") else 2 for t in tried}
    tries = {f"stock/{t.task_id}": 12 if t.task_id.endswith("rw2") else 4 for t in tried}
    assert _refill(prompts, tried, wins, tries, 3, by_wording=True) == []
    refill = _refill(prompts, tried, wins, tries, 3, by_wording=True, min_chance=0.5)
    assert len(refill) == 3 and {t.task_id.rpartition("-")[2] for t in refill} == {"rw2"}
    tried_bases = {t.task_id.rpartition("-rw")[0] for t in tried}
    assert not {t.task_id.rpartition("-rw")[0] for t in refill} & tried_bases
    # With groups of 16 rollouts the same prompt is mixed 75% of the time: not refilled.
    assert _refill(prompts, tried, wins, tries, 3, by_wording=True, min_chance=0.5,
                   group=16) == []


def test_the_refill_chance_is_off_by_default_and_refuses_a_share_outside_0_to_1(capsys):
    assert _args([]).grpo_refill_chance == 0
    assert _args(["--grpo-refill-chance", "0.5"]).grpo_refill_chance == 0.5
    for bad in ("-0.1", "1.5", "nan"):
        with pytest.raises(SystemExit) as exit_:
            _args(["--grpo-refill-chance", bad])
        assert exit_.value.code == 2
        assert "--grpo-refill-chance must be a share from 0 to 1" in capsys.readouterr().err


def test_refill_by_wording_tries_the_wordings_of_a_kind_that_gave_no_mixed_prompt():
    # The retry run: "set" was mixed in rw1 only, and a refill by kind kept to rw1.
    prompts = _prompts({("stock", "set"): 12}, ("-rw0", "-rw1", "-rw2"))
    tried = _spread_per_kind(prompts, 3)
    wins = {f"{t.env_id}/{t.task_id}": 2 if t.task_id.endswith("rw1") else 0 for t in tried}
    by_kind = _refill(prompts, tried, wins, 4, 2, below=3)
    assert {t.task_id.rpartition("-")[2] for t in by_kind} == {"rw1"}
    by_wording = _refill(prompts, tried, wins, 4, 2, by_wording=True)
    assert sorted(t.task_id.rpartition("-")[2] for t in by_wording) == ["rw0", "rw0", "rw2",
                                                                       "rw2"]
    tried_bases = {t.task_id.rpartition("-rw")[0] for t in tried}
    assert not {t.task_id.rpartition("-rw")[0] for t in by_wording} & tried_bases


def test_the_refill_counts_by_wording_unless_asked_to_count_by_kind():
    assert _args([]).grpo_refill_by == "wording"
    assert _args(["--grpo-refill-by", "kind"]).grpo_refill_by == "kind"


def _label(t) -> str:
    return f"{t.env_id}/{t.task_id}"


def test_the_kind_the_model_fails_most_gets_most_draws_counting_its_unchosen_prompts():
    # The weighted run's filter in small: "set" won 3 of 52 tries, two of its prompts never;
    # "price" won 9 of 16; "complete" 7 of 32.
    tried = (_prompts({("stock", "set"): 5}, ("-rw2",))
             + _prompts({("stock", "price"): 4}, ("-rw0",))
             + _prompts({("todo", "complete"): 4}, ("-rw1",)))
    wins = {_label(t): 0 for t in tried}
    tries = {_label(t): 4 for t in tried}
    wins |= {"stock/set-0-rw2": 1, "stock/set-1-rw2": 2}
    tries |= {f"stock/set-{i}-rw2": 12 for i in range(2, 5)} | {"stock/set-1-rw2": 4}
    tries["stock/set-0-rw2"] = 12
    wins |= {f"stock/price-{i}-rw0": w for i, w in enumerate((2, 2, 3, 2))}
    wins |= {f"todo/complete-{i}-rw1": w for i, w in enumerate((2, 1, 1, 3))}
    tries |= {"todo/complete-2-rw1": 12, "todo/complete-3-rw1": 12}
    chosen = [t for t in tried if 0 < wins[_label(t)] < tries[_label(t)]]
    draws = Counter(_label(t) for t in weight_by_kind_failure(chosen, tried, wins, tries))
    kinds = Counter()
    for label, n in draws.items():
        kinds[label.split("-")[0]] += n
    # Odds of failure (fails + 1) / (wins + 1): set 50/4, complete 26/8, price 8/10.
    assert kinds["stock/set"] > 2 * (kinds["todo/complete"] + kinds["stock/price"])
    assert kinds["todo/complete"] > kinds["stock/price"]
    # Only chosen prompts are drawn, each at least once, and a kind's prompts alike.
    assert set(draws) == {_label(t) for t in chosen}
    assert min(draws.values()) >= 1
    assert draws["stock/set-0-rw2"] == draws["stock/set-1-rw2"]
    assert sum(draws.values()) == pytest.approx(4 * len(chosen), abs=len(chosen))


def test_kinds_failed_alike_are_drawn_alike_and_kind_failure_is_the_default():
    assert _args([]).grpo_weight == "kind-failure"
    assert _args(["--grpo-weight", "uniform"]).grpo_weight == "uniform"
    tried = _prompts({("stock", "set"): 2, ("stock", "price"): 2}, ("-rw0",))
    wins = dict.fromkeys(map(_label, tried), 2)
    tries = dict.fromkeys(map(_label, tried), 4)
    # Equal odds: every prompt drawn equally.
    assert len(set(Counter(map(_label, weight_by_kind_failure(tried, tried, wins,
                                                                tries))).values())) == 1


def test_a_kind_floor_gives_every_kind_its_share_before_the_odds_share_the_rest():
    tried = _prompts({("stock", "set"): 4, ("todo", "complete"): 2, ("todo", "add"): 2},
                     ("-rw0",))
    wins = {_label(t): (0 if "set" in _label(t) else 11) for t in tried}
    tries = dict.fromkeys(map(_label, tried), 12)

    def shares(floor):
        kinds = Counter(_label(t).split("-")[0]
                        for t in weight_by_kind_failure(tried, tried, wins, tries, copies=25,
                                                        floor=floor))
        return {kind: n / sum(kinds.values()) for kind, n in kinds.items()}

    # Odds: set 49/1, complete and add 3/23 each: without a floor "set" takes nearly all.
    assert shares(0.0)["todo/complete"] < 0.02
    floored = shares(0.2)
    assert floored["todo/complete"] == pytest.approx(0.2, abs=0.02)
    assert floored["todo/add"] == pytest.approx(0.2, abs=0.02)
    assert floored["stock/set"] == pytest.approx(0.6, abs=0.02)
    # A floor past 1 / kinds is uniform over kinds; nothing is lost or invented.
    assert all(s == pytest.approx(1 / 3, abs=0.02) for s in shares(0.9).values())
    assert _args([]).grpo_kind_floor == 0.0


def test_a_kind_floor_outside_0_to_1_is_refused(capsys):
    for flag in ("--grpo-kind-floor", "--grpo-draw-floor"):
        for bad in ("-0.1", "1.5", "nan"):
            with pytest.raises(SystemExit):
                _args([flag, bad])
            assert flag in capsys.readouterr().err
    assert _args([]).grpo_draw_floor == 0.0 and _args(["--grpo-draw-floor", "0.15"]
                                                      ).grpo_draw_floor == 0.15


def test_unsolved_prompts_are_kept_only_for_kinds_mixed_in_another_wording():
    tried = (_prompts({("stock", "set"): 3}, ("-rw0", "-rw1"))
             + _prompts({("stock", "price"): 2}, ("-rw0",)))
    wins = {_label(t): 0 for t in tried}
    tries = {_label(t): 12 for t in tried}
    wins["stock/set-0-rw1"] = 2          # "set" mixed in rw1; "price" never solved
    kept = {_label(t) for t in unsolved_of_mixed_kinds(tried, wins, tries)}
    assert kept == {f"stock/set-{i}-rw0" for i in range(3)} | {"stock/set-1-rw1",
                                                                  "stock/set-2-rw1"}
    # A prompt solved every time is not unsolved; no mixed kind, nothing kept.
    wins["stock/set-0-rw0"] = 12
    assert "stock/set-0-rw0" not in {_label(t) for t in unsolved_of_mixed_kinds(tried, wins,
                                                                                  tries)}
    assert unsolved_of_mixed_kinds(tried, dict.fromkeys(wins, 0), tries) == []
    assert _args([]).grpo_unsolved and not _args(["--no-grpo-unsolved"]).grpo_unsolved


def test_the_ptx_term_is_on_by_default_and_its_settings_are_checked(capsys):
    args = _args([])
    assert args.grpo_ptx == 1.0 and args.grpo_ptx_per_step == 2
    assert _args(["--grpo-ptx", "0"]).grpo_ptx == 0.0
    for bad in (["--grpo-ptx", "-1"], ["--grpo-ptx", "inf"], ["--grpo-ptx", "nan"],
                ["--grpo-ptx-per-step", "0"]):
        with pytest.raises(SystemExit):
            _args(bad)
        assert "--grpo-ptx" in capsys.readouterr().err


def test_draws_count_rollouts_and_successes_per_prompt_in_first_drawn_order():
    history = [{"env_id": "stock", "task_id": "set-1-rw0", "passed": p} for p in (0, 1, 0, 0)]
    history += [{"env_id": "todo", "task_id": "add-1-rw2", "passed": True}] * 4
    assert list(_draws(history).items()) == [
        ("stock/set-1-rw0", {"rollouts": 4, "passed": 1}),
        ("todo/add-1-rw2", {"rollouts": 4, "passed": 4})]


def test_the_learnability_prior_is_the_filters_tries_keyed_by_the_samplers_labels():
    done = _ref("todo", "complete-1-rw0")
    new = _ref("stock", "set-SKU-110-rw2")
    filtered = {"successes": {"todo/complete-1-rw0": 3, "x/y": 1},
                "tries": {"todo/complete-1-rw0": 4, "x/y": 4}}
    # A draw list repeats prompts; each one gets its prior once, and one never tried none.
    assert learnability_prior([done, done, new], filtered) == {done.label: (3, 4)}
    assert learnability_prior([done], {}) == {}
    assert _args([]).grpo_learnability is True
    assert _args(["--no-grpo-learnability"]).grpo_learnability is False


def test_kind_every_is_10_by_default_and_refuses_a_negative_count(capsys):
    assert _args([]).grpo_kind_every == 10
    assert _args(["--grpo-kind-every", "0"]).grpo_kind_every == 0
    with pytest.raises(SystemExit):
        _args(["--grpo-kind-every", "-1"])
    assert "--grpo-kind-every" in capsys.readouterr().err


def test_the_gpu_recipe_keeps_the_grpo_draws_it_was_run_with():
    from train_learning_gpu import GPU_DEFAULTS

    args = _args(GPU_DEFAULTS)
    assert (args.generations, args.prompts_per_step) == (8, 2)
    assert args.grpo_learnability is False and args.grpo_draw_floor == 0.0
    assert args.grpo_kind_every == 0 and args.grpo_steps == 40
