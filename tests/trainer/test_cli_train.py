"""``agentworld sft`` and ``agentworld train --backend trl`` end to end on the tiny model (each
run starts its own hub on a free loopback port)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")
pytestmark = pytest.mark.filterwarnings("ignore:.*gradient_checkpointing.*:FutureWarning")

TINY = "tests.fixtures.tiny_env:DEFINITION"


def test_sft_then_train(tiny_model_dir, tmp_path, capsys):
    from agentworld.cli import main

    sft_out = tmp_path / "sft"
    assert main(["sft", "--envs", TINY, "--model", str(tiny_model_dir), "--epochs", "1",
                 "--output", str(sft_out)]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["examples"] == 2 and (sft_out / "config.json").exists()

    assert main(["train", "--backend", "trl", "--envs", TINY, "--model", str(sft_out),
                 "--steps", "1", "--num-generations", "2", "--prompts-per-step", "1",
                 "--max-completion-length", "64", "--output", str(tmp_path / "grpo")]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["rollouts"] == 2 and [p["step"] for p in result["curve"]] == [1]
    assert (tmp_path / "grpo" / "config.json").exists()


def test_train_with_a_ptx_term_on_the_reference_solutions(tiny_sft_dir, tmp_path, capsys):
    from agentworld.cli import main

    assert main(["train", "--backend", "trl", "--envs", TINY, "--model", str(tiny_sft_dir),
                 "--steps", "2", "--num-generations", "2", "--prompts-per-step", "1",
                 "--max-completion-length", "64", "--ptx-coef", "0.5", "--ptx-per-step", "1",
                 "--output", str(tmp_path / "grpo")]) == 0
    result = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert result["rollouts"] == 4 and result["ptx_sequences"] == 2


@pytest.mark.parametrize("extra,message", [
    (["--ptx-coef", "-1"], "--ptx-coef must be 0 or more"),
    (["--ptx-coef", "nan"], "--ptx-coef must be 0 or more"),
    (["--ptx-per-step", "0"], "--ptx-per-step at least 1"),
    (["--ptx-coef", "1", "--backend", "openrlhf"], "the TRL backend's"),
])
def test_bad_ptx_settings_are_refused_before_anything_runs(extra, message, tmp_path, capsys):
    from agentworld.cli import main

    assert main(["train", "--envs", TINY, "--output", str(tmp_path / "grpo"), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "grpo").exists()
