"""Two rounds of the arena with a scripted policy that sends bad arguments to every ``cancel_*``
and ``update_*`` tool. The diagnosis must rank that family and its environments weakest, and the
training tasks must shift toward them: checked with the numbers in the run directory."""

import json
import struct

import pytest

from agentworld.cli import main
from agentworld.trainer.arena import Arena, ArenaConfig, load_rounds
from agentworld.trainer.arena.records import read_json, read_jsonl

FAMILY = ("cancel_", "update_")
CONFIG = ArenaConfig(
    rounds=2, policy="scripted-fail:cancel_,update_", trainer="scripted-practice",
    categories=("Travel & Transportation", "Finance & Markets", "Software Development",
                "Media & Entertainment", "Healthcare & Life Sciences", "News & Trends",
                "Cryptocurrency & Web3", "Weather & Geospatial"),
    eval_tasks_per_env=3, weak_envs=3, train_tasks_per_env=4, complexify=1)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("arena")
    Arena(out, CONFIG).run()
    return out


def _round(run_dir, n):
    return run_dir / f"round-{n:03d}"


def test_every_round_is_recorded(run_dir):
    for n in (1, 2):
        rd = _round(run_dir, n)
        for name in ("eval_tasks.jsonl", "trajectories.jsonl", "diagnosis.json",
                     "guidelines.json", "train_tasks.jsonl", "variants.json", "training.json",
                     "metrics.json", "diagnosis.md", "done.json", "plots/failure_classes.png"):
            assert (rd / name).exists(), f"round {n}: {name}"
    assert read_json(run_dir / "config.json")["policy"] == CONFIG.policy
    for name in ("success_per_round.png", "success_by_category.png", "weak_envs.png"):
        png = (run_dir / "plots" / name).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack(">II", png[16:24])
        assert width > 40 and height > 40
    assert "| category |" in (run_dir / "summary.md").read_text()


def test_evaluation_is_stratified_and_fresh(run_dir):
    train_prompts = set()
    for n in (1, 2):
        evals = list(read_jsonl(_round(run_dir, n) / "eval_tasks.jsonl"))
        categories = {t["env_id"] for t in evals}
        assert len(categories) == len(CONFIG.categories)   # one environment per category
        assert not {t["prompt"] for t in evals} & train_prompts
        train_prompts |= {t["prompt"] for t in read_jsonl(_round(run_dir, n) /
                                                          "train_tasks.jsonl")}
    metrics = load_rounds(run_dir)
    assert [set(m["by_l1"]) for m in metrics] == [set(CONFIG.categories)] * 2


def test_diagnosis_ranks_the_failing_family_and_its_envs_weakest(run_dir):
    for m in load_rounds(run_dir):
        abilities = m["weak_abilities"]
        assert abilities and abilities[0]["family"] + "_" in FAMILY
        assert abilities[0]["step_error_rate"] == 1.0
        # The family's calls fail every time; any other failure follows one of them in the
        # same episode (a cascade: a refused cancel leaves the room taken), and every failed
        # episode is a schema error first.
        assert all(a["step_error_rate"] < 1.0 for a in abilities if a["family"] + "_" not in
                   FAMILY)
        assert set(m["classes"]) == {"invalid_arguments"}
        _assert_failures_start_in_the_family(run_dir / f"round-{m['round']:03d}")
        weak = m["weak_envs"]
        assert weak, "the family was called somewhere"
        for w in weak:
            assert w["failed_tools"] and any(t.startswith(FAMILY) for t in w["failed_tools"])
        # The weak environments are exactly those where the family failed, and they do worse.
        weak_ids = {w["env_id"] for w in weak}
        others = [s["success"] for env, s in m["by_env"].items() if env not in weak_ids]
        assert max(w["success"] for w in weak) < 1.0 == min(others)


def _assert_failures_start_in_the_family(round_dir):
    for ep in read_jsonl(round_dir / "trajectories.jsonl"):
        failed = [s["tool"] for s in ep["steps"] if not s["ok"]]
        if failed:
            assert failed[0].startswith(FAMILY), (ep["task_id"], failed)


def test_training_tasks_shift_toward_the_weak_family_and_envs(run_dir):
    rounds = load_rounds(run_dir)
    second = rounds[1]
    assert second["focus_families"] and all(f + "_" in FAMILY for f in second["focus_families"])
    # Measured: every targeted task calls a focus-family tool; few fresh evaluation tasks do.
    assert second["train_focus_share"] >= 0.75
    assert second["train_focus_share"] > second["eval_focus_share"] + 0.4
    assert second["train_mean_calls"] > second["eval_mean_calls"]
    weak_ids = {w["env_id"] for w in second["weak_envs"][:CONFIG.weak_envs]}
    assert set(second["train_envs"]) == weak_ids
    tasks = list(read_jsonl(_round(run_dir, 2) / "train_tasks.jsonl"))
    # Every task calls a tool that failed; most call the failing family itself (a refused
    # cancel can also make a later create of the same episode fail, so creates may be in focus).
    assert all(t["metadata"]["targeted"] and t["metadata"]["focus_hits"] for t in tasks)
    in_family = [any(name.startswith(FAMILY) for name, _ in t["reference_calls"]) for t in tasks]
    assert sum(in_family) >= 0.75 * len(tasks)


def test_the_weakest_env_gets_a_richer_database(run_dir):
    for n in (1, 2):
        variants = read_json(_round(run_dir, n) / "variants.json")
        assert len(variants) == 1
        v = variants[0]
        assert v["env_id"] == f"{v['base_id']}--rich1"
        assert sum(v["rows_after"].values()) > 1.5 * sum(v["rows_before"].values())
        metrics = read_json(_round(run_dir, n) / "metrics.json")
        assert v["base_id"] == metrics["weak_envs"][0]["env_id"]
        trained_on = {t["env_id"] for t in read_jsonl(_round(run_dir, n) / "train_tasks.jsonl")}
        assert v["env_id"] in trained_on


def test_scripted_practice_is_carried_to_the_next_round(run_dir):
    first = read_json(_round(run_dir, 1) / "training.json")
    second = read_json(_round(run_dir, 2) / "training.json")
    assert first["trainer"] == "scripted-practice"
    assert second["policy_before"] == first["policy_after"]
    assert first["policy_after"].endswith("round-001/practice.json")


def test_resume_skips_finished_rounds(run_dir):
    stamp = (_round(run_dir, 2) / "metrics.json").stat().st_mtime_ns
    arena = Arena(run_dir, CONFIG)
    state = arena.state()
    assert state.finished == 2 and state.policy.endswith("round-002/practice.json")
    assert len(arena.run()) == 2
    assert (_round(run_dir, 2) / "metrics.json").stat().st_mtime_ns == stamp


def test_report_command_prints_the_summary(run_dir, capsys):
    assert main(["evolve", "report", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "weakest ability" in out and ("update_*" in out or "cancel_*" in out)
    assert "Finance & Markets" in out
    assert main(["evolve", "report", str(run_dir), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 2


def test_report_on_a_missing_run_is_an_error(tmp_path, capsys):
    assert main(["evolve", "report", str(tmp_path)]) == 2


def test_a_fixed_panel_is_played_every_round(run_dir):
    panel = list(read_jsonl(run_dir / "panel_tasks.jsonl"))
    assert panel and all(t["id"].split("/")[-1].startswith("arena-panel") for t in panel)
    prompts = {t["prompt"] for t in panel}
    rounds = load_rounds(run_dir)
    for m in rounds:
        rd = _round(run_dir, m["round"])
        played = sorted(e["task_id"] for e in read_jsonl(rd / "panel_trajectories.jsonl"))
        assert played == sorted(t["id"] for t in panel)
        assert m["panel_tasks"] == len(panel) and m["panel_success"] is not None
        for name in ("eval_tasks.jsonl", "train_tasks.jsonl"):
            assert not prompts & {t["prompt"] for t in read_jsonl(rd / name)}
    # The scripted policy practises the failing tools: the same tasks do no worse in round 2.
    assert rounds[1]["panel_success"] >= rounds[0]["panel_success"]


def test_rechecks_are_larger_than_a_couple_of_tasks(run_dir):
    for m in load_rounds(run_dir):
        assert m["recheck_episodes"] > 2 * len(m["weak_env_recheck"])


def test_a_short_panel_holds_only_tasks_solved_in_that_many_calls(tmp_path):
    config = ArenaConfig(rounds=1, policy="oracle", trainer="none", in_process=True,
                         envs=("mooc-course-platform", "conference-keynote-tickets"),
                         eval_tasks_per_env=1, panel_tasks_per_env=3, panel_max_calls=1,
                         weak_envs=1, train_tasks_per_env=1, recheck_tasks_per_env=1)
    (metrics,) = Arena(tmp_path, config).run()
    panel = list(read_jsonl(tmp_path / "panel_tasks.jsonl"))
    assert len(panel) == 6 and {len(t["reference_calls"]) for t in panel} == {1}
    assert metrics["panel_tasks"] == 6 and metrics["panel_success"] == 1.0   # the oracle
