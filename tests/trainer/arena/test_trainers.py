"""The arena's model trainers on the tiny model and a real hub: ``trl-grpo`` starts each round
with SFT on the round's reference solutions (a base model solves nothing, so GRPO alone would
get no signal), then runs GRPO from there."""

from types import SimpleNamespace

import pytest

from agentworld.trainer.arena.trainers import TRLGRPOTrainer, make_trainer

pytestmark = pytest.mark.filterwarnings("ignore:.*gradient_checkpointing.*:FutureWarning")


def _weights(path):
    from agentworld.trainer.models import load_policy

    model, _ = load_policy(str(path))
    return {k: v.clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize(("sft_epochs", "length", "cap"), [(2, 64, None), (0, None, 40)])
def test_a_trl_grpo_round_warm_starts_with_sft_then_runs_grpo(sft_epochs, length, cap,
                                                              tiny_model_dir, tiny_catalog,
                                                              tiny_tasks, tmp_path):
    trainer = TRLGRPOTrainer(steps=1, num_generations=2, max_completion_length=length,
                             max_turns=2, sft_epochs=sft_epochs, sft_learning_rate=1e-3,
                             max_tokens=cap)
    outcome = trainer.train(world=SimpleNamespace(catalog=tiny_catalog), tasks=tiny_tasks,
                            policy=f"hf:{tiny_model_dir}", round_dir=tmp_path)
    assert outcome.policy == f"hf:{tmp_path / 'model'}"
    report = outcome.report
    assert report["trainer"] == "trl-grpo" and report["steps"] == 1
    assert report["rollouts"] == 2 and len(report["zero_variance"]) == 1
    # A fixed length is used as given; a measured one (at least 48 tokens here) is capped.
    assert report["max_completion_length"] == (length or cap)
    sft = report["sft"]
    if sft_epochs:
        assert sft["epochs"] == 2 and sft["examples"] == len(tiny_tasks)
        assert sft["steps"] >= 2 and sft["losses"][-1] < sft["losses"][0]
    else:
        assert sft["epochs"] == 0 and "steps" not in sft
    before, after = _weights(tiny_model_dir), _weights(tmp_path / "model")
    # SFT always moves the weights; GRPO alone moves them only when its group disagreed.
    moved = any(not (before[k] == after[k]).all() for k in before)
    assert moved or not sft_epochs


def test_the_cli_knob_reaches_the_trainer():
    assert make_trainer("trl-grpo", steps=3, sft_epochs=0).sft_epochs == 0
    assert make_trainer("trl-grpo").sft_epochs == 1
    assert make_trainer("trl-grpo", max_tokens=512).max_tokens == 512
