"""TRL's GRPOTrainer with environment_factory against a real hub: a tiny model, a few steps."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")

# TRL 1.16 uses transformers' deprecated gradient_checkpointing names (third-party code).
pytestmark = pytest.mark.filterwarnings("ignore:.*gradient_checkpointing.*:FutureWarning")

from agentworld.trainer.prompting import SUBMIT_TOOL, tool_schemas  # noqa: E402
from agentworld.trainer.trl_backend import (  # noqa: E402
    GRPORunConfig,
    VerifierReward,
    environment_factories,
    train_grpo,
)


def test_environment_tools_render_like_openrlhf(hub_url, tiny_catalog, tiny_tasks,
                                                tiny_model_dir):
    from transformers.utils import get_json_schema

    [cls] = environment_factories(["tiny"], hub_url=hub_url).values()
    env = cls()
    methods = [getattr(env, name) for name in ("add_item", "complete_item", "list_items",
                                               "submit", "write_then_crash")]
    expected = tool_schemas([*tiny_catalog.load("tiny").tool_list(), SUBMIT_TOOL])
    assert [get_json_schema(m) for m in methods] == expected
    assert not hasattr(env, "get_reward")   # the reward needs the final reply: a reward func
    # The prompt TRL renders (methods as tools) is the one OpenRLHF's agent renders.
    from transformers import AutoTokenizer

    from agentworld.trainer.prompting import render_prompt

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    messages = tiny_tasks[0].messages()
    assert tokenizer.apply_chat_template(conversation=messages, tools=methods, tokenize=False,
                                         add_generation_prompt=True) == \
        render_prompt(tokenizer, messages, expected)


def test_environment_steps_the_hub_and_the_verifier_scores(hub_url):
    env = environment_factories(["tiny"], hub_url=hub_url)["tiny"]()
    env.reset(prompt=[], label=json.dumps({"env_id": "tiny", "task_id": "count-home"}))
    items = json.loads(env.list_items(list_id="lst_home"))["items"]
    assert len(items) == 5
    reward = VerifierReward()
    completion = [{"role": "assistant", "content": "", "tool_calls": [{}]},
                  {"role": "tool", "content": "..."}, {"role": "assistant", "content": " 5 "}]
    assert reward([[]], [completion], environments=[env]) == [1.0]
    assert reward.history[0]["passed"] is True
    # Still calling tools when cut off: no answer is submitted, and the reward is 0.
    env.reset(prompt=[], label=json.dumps({"env_id": "tiny", "task_id": "complete-item-3"}))
    env.complete_item(item_id="itm_3")
    assert reward([[]], [[{"role": "assistant", "content": "", "tool_calls": [{}]}]],
                  environments=[env]) == [0.0]
    assert "EPISODE_OVER" in env.list_items(list_id="lst_home")


def test_short_grpo_run_with_verifier_rewards(tiny_sft_dir, tiny_tasks, hub_url, tmp_path):
    from agentworld.trainer.models import load_policy

    model, tokenizer = load_policy(tiny_sft_dir)
    cfg = GRPORunConfig(output_dir=str(tmp_path / "grpo"), steps=2, num_generations=4,
                        prompts_per_step=2, learning_rate=1e-4, max_completion_length=128,
                        max_turns=3, save=True)
    run = train_grpo(model, tokenizer, tiny_tasks, hub_url, cfg)
    assert [p["step"] for p in run.curve] == [1, 2]
    assert len(run.history) == 2 * 8 and {r["task_id"] for r in run.history} == {
        "complete-item-3", "count-home"}
    # Every reward is a verifier's (its checks are halves), and TRL logged exactly those.
    assert {r["reward"] for r in run.history} <= {0.0, 0.5, 1.0}
    assert any(r["passed"] for r in run.history), "the SFT'd model never solved a task"
    for i, point in enumerate(run.curve):
        batch = run.history[i * 8:(i + 1) * 8]
        assert point["reward"] == pytest.approx(sum(r["reward"] for r in batch) / 8)
    assert (tmp_path / "grpo" / "config.json").exists()
