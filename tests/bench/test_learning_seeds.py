"""Pooling learning-benchmark runs: intervals that widen with the spread between runs, the
bar read off the pooled means, and runs that cannot be pooled refused with a clear error."""

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from learning_seeds import ALL, hierarchical_bootstrap, main, summarise  # noqa: E402

GROUPS = {"unseen_entities": ["todo/complete-3", "stock/set-SKU-103"],
          "paraphrase": ["todo/complete-3-para", "stock/set-SKU-103-para"]}


def _run(tmp_path: Path, name: str, rates: dict[str, dict[str, list[float]]], *,
         beta: float = 0.04, held_out=GROUPS, smoke: bool = False,
         grpo_temperature: float | None = None) -> Path:
    """A result file shaped like train_learning.py's, with these per-task sampled rates."""
    figures = {"arms": list(rates), "held_out": held_out, "smoke": smoke, "seed": 0,
               "wall_s": 3300.0, "grpo_tasks": {"mixed": 8},
               "sft": {"epochs": 1, "learning_rate": 3e-5},
               "grpo": {"steps": 12, "num_generations": 4, "prompts_per_step": 2,
                        "iterations": 1, "learning_rate": 1e-5, "beta": beta},
               "evaluation": {"samples": 4, "temperature": 0.7, "catalog_view": "compact:5"},
               "grpo_prompts": {"wordings": "all"},
               "results": {arm: {g: {"sampled_per_task": per_group[g]} for g in held_out}
                           for arm, per_group in rates.items()}}
    if grpo_temperature is not None:
        figures["grpo"]["temperature"] = grpo_temperature
    path = tmp_path / name
    path.write_text(json.dumps(figures))
    return path


def _arms(sft: float, grpo: float, control: float) -> dict[str, dict[str, list[float]]]:
    return {arm: {g: [rate, rate] for g in GROUPS}
            for arm, rate in (("sft", sft), ("sft+grpo", grpo), ("sft+extra-sft", control))}


def test_the_interval_holds_the_spread_between_runs_not_only_between_tasks():
    same = hierarchical_bootstrap([[0.2, 0.2, 0.2], [0.2, 0.2, 0.2]])
    assert (same["mean"], same["lo"], same["hi"]) == (0.2, 0.2, 0.2)
    # Every task agrees within a run, so only the runs (0 and 0.4) can make the interval.
    apart = hierarchical_bootstrap([[0.0] * 5, [0.4] * 5])
    assert apart["mean"] == 0.2
    assert apart["lo"] == 0.0 and apart["hi"] == 0.4


def test_the_bar_is_read_off_the_pooled_means(tmp_path):
    met = summarise([_run(tmp_path, "a.json", _arms(0.5, 0.75, 0.6)),
                     _run(tmp_path, "b.json", _arms(0.5, 0.75, 0.7))])
    assert met["bar"]["met"] and met["bar"]["sure"]
    assert met["differences"]["sft+grpo - sft"][ALL]["per_run"] == [0.25, 0.25]
    assert met["success"]["sft+extra-sft"][ALL]["mean"] == 0.65
    # One run above the bar and one below: the mean misses it, and so does the interval.
    split = summarise([_run(tmp_path, "c.json", _arms(0.5, 0.9, 0.6)),
                       _run(tmp_path, "d.json", _arms(0.5, 0.4, 0.6))])
    assert split["differences"]["sft+grpo - sft"][ALL]["mean"] == 0.15
    assert split["differences"]["sft+grpo - sft"][ALL]["per_run"] == [0.4, -0.1]
    assert split["bar"]["met"] is False and split["bar"]["sure"] is False


def test_settings_that_differ_between_runs_are_reported(tmp_path):
    summary = summarise([_run(tmp_path, "a.json", _arms(0.5, 0.6, 0.7)),
                         _run(tmp_path, "b.json", _arms(0.5, 0.6, 0.7), beta=0.0)])
    assert summary["config_differences"] == {"grpo.beta": [0.04, 0.0]}


def test_grpo_temperature_tells_runs_apart_and_older_runs_count_as_one(tmp_path):
    # Runs written before --grpo-temperature existed carry no temperature: they ran at 1.0.
    older = _run(tmp_path, "old.json", _arms(0.5, 0.6, 0.7))
    same = _run(tmp_path, "t1.json", _arms(0.5, 0.6, 0.7), grpo_temperature=1.0)
    hotter = _run(tmp_path, "t13.json", _arms(0.5, 0.6, 0.7), grpo_temperature=1.3)
    assert summarise([older, same])["config_differences"] == {}
    assert summarise([older, hotter])["config_differences"] == {"grpo.temperature": [1.0, 1.3]}


def test_runs_that_cannot_be_pooled_are_refused_with_the_reason(tmp_path, capsys):
    good = _run(tmp_path, "a.json", _arms(0.5, 0.6, 0.7))
    other = _run(tmp_path, "b.json", _arms(0.5, 0.6, 0.7),
                 held_out={g: ts[:1] for g, ts in GROUPS.items()})
    smoke = _run(tmp_path, "s.json", _arms(0.5, 0.6, 0.7), smoke=True)
    junk = tmp_path / "junk.json"
    junk.write_text("{not json")
    cases = [(other, "other held-out tasks"), (smoke, "--smoke run"), (junk, "not JSON"),
             (tmp_path / "missing.json", "missing.json")]
    for bad, reason in cases:
        assert main([str(good), str(bad), "--out", str(tmp_path / "out.json")]) == 2
        assert reason in capsys.readouterr().err
    assert not (tmp_path / "out.json").exists()
    not_a_result = tmp_path / "list.json"
    not_a_result.write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a result"):
        summarise([good, not_a_result])


def test_the_command_writes_the_summary_and_its_plot(tmp_path, capsys):
    runs = [_run(tmp_path, f"{i}.json", _arms(0.5, 0.6 + i / 10, 0.7)) for i in range(3)]
    out = tmp_path / "pooled.json"
    assert main([*map(str, runs), "--out", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert [r["file"] for r in summary["runs"]] == ["0.json", "1.json", "2.json"]
    assert out.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "3 runs" in printed and "not met" in printed
