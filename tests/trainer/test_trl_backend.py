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


def test_short_grpo_run_with_verifier_rewards(tiny_sft_dir, tiny_tasks, hub_url, tmp_path,
                                              monkeypatch):
    from agentworld.trainer import shared_prompt_scoring
    from agentworld.trainer.models import load_policy

    scored_groups: list[list[int]] = []

    def spy(input_ids, attention_mask, prompt_width):
        groups = prompt_groups(input_ids, attention_mask, prompt_width)
        scored_groups.extend(groups)
        return groups

    prompt_groups = shared_prompt_scoring.prompt_groups
    monkeypatch.setattr(shared_prompt_scoring, "prompt_groups", spy)
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
    # A rollout's tool loop ends at its submit call: TRL generated nothing after one.
    assert run.tokens_after_submit == 0
    for i, point in enumerate(run.curve):
        batch = run.history[i * 8:(i + 1) * 8]
        assert point["reward"] == pytest.approx(sum(r["reward"] for r in batch) / 8)
    # A step is skipped exactly when every group of its generation was flat.
    assert run.skipped_steps == [p["step"] for p in run.curve if p["zero_variance"] == 1.0]
    assert (tmp_path / "grpo" / "config.json").exists()
    # Rows were scored a group at a time, each group's prompt once: each step's two groups of
    # four rollouts.
    assert len(scored_groups) == 2 * 2 and all(len(g) == 4 for g in scored_groups)


def test_micro_batches_accumulate_into_one_step_per_generation(tiny_sft_dir, tiny_tasks,
                                                               hub_url, tmp_path):
    from agentworld.trainer.models import load_policy

    model, tokenizer = load_policy(tiny_sft_dir)
    cfg = GRPORunConfig(output_dir=str(tmp_path / "grpo"), steps=2, num_generations=2,
                        prompts_per_step=2, micro_batch_prompts=1, learning_rate=1e-4,
                        max_completion_length=128, max_turns=3, dynamic_filtering=False,
                        save=False)
    run = train_grpo(model, tokenizer, tiny_tasks, hub_url, cfg)
    # Two optimizer steps, each over one generation of 2 prompts x 2 rollouts.
    assert [p["step"] for p in run.curve] == [1, 2]
    assert len(run.history) == 2 * 4
    for i, point in enumerate(run.curve):
        batch = run.history[i * 4:(i + 1) * 4]
        assert point["reward"] == pytest.approx(sum(r["reward"] for r in batch) / 4)


def test_iterations_train_twice_on_each_generation(tiny_sft_dir, tiny_tasks, hub_url,
                                                   tmp_path):
    import torch

    from agentworld.trainer.models import load_policy

    model, tokenizer = load_policy(tiny_sft_dir)
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    cfg = GRPORunConfig(output_dir=str(tmp_path / "grpo"), steps=4, num_generations=2,
                        prompts_per_step=2, iterations=2, learning_rate=1e-4,
                        max_completion_length=128, max_turns=3, dynamic_filtering=False,
                        save=False)
    run = train_grpo(model, tokenizer, tiny_tasks, hub_url, cfg)
    # Four optimizer steps from two generations: the rollouts are played once and trained on
    # twice, so rewards are logged at the steps that generated (1 and 3).
    assert len(run.history) == 2 * 4
    assert [p["step"] for p in run.curve] == [1, 3]
    for i, point in enumerate(run.curve):
        batch = run.history[i * 4:(i + 1) * 4]
        assert point["reward"] == pytest.approx(sum(r["reward"] for r in batch) / 4)
    if len(run.skipped_steps) < 4:      # a step with a mixed group moved the weights
        assert any(not torch.equal(before[n], p) for n, p in model.named_parameters())


def test_a_ptx_term_trains_on_demonstrations_each_step(tiny_sft_dir, tiny_tasks, transcripts,
                                                     hub_url, tmp_path):
    from agentworld.trainer.models import load_policy

    model, tokenizer = load_policy(tiny_sft_dir)
    cfg = GRPORunConfig(output_dir=str(tmp_path / "grpo"), steps=2, num_generations=2,
                        prompts_per_step=2, micro_batch_prompts=1, learning_rate=1e-4,
                        max_completion_length=128, max_turns=3, dynamic_filtering=False,
                        ptx_coef=0.5, ptx_per_step=3, save=False)
    run = train_grpo(model, tokenizer, tiny_tasks, hub_url, cfg, ptx_transcripts=transcripts)
    assert len(run.history) == 2 * 4
    # Three demonstrations a step, spread over its two micro-batches; the SFT'd model knows
    # them (its loss on them is small) and each NLL was recorded.
    assert run.ptx_sequences == 6 and len(run.ptx_loss) == 6
    assert all(0 <= loss < 1.0 for loss in run.ptx_loss)
    with pytest.raises(ValueError, match="no ptx_transcripts"):
        train_grpo(model, tokenizer, tiny_tasks, hub_url, cfg)


@pytest.mark.parametrize("coef,per_step", [(-0.1, 2), (float("nan"), 2), (float("inf"), 2),
                                           (1.0, 0)])
def test_ptx_settings_are_checked(coef, per_step, tmp_path):
    with pytest.raises(ValueError, match="ptx"):
        GRPORunConfig(output_dir=str(tmp_path), ptx_coef=coef, ptx_per_step=per_step)


@pytest.mark.parametrize("iterations", [0, -2])
def test_iterations_must_be_positive(iterations, tmp_path):
    with pytest.raises(ValueError, match="at least 1"):
        GRPORunConfig(output_dir=str(tmp_path), iterations=iterations)


@pytest.mark.parametrize("micro", [0, -1, 2])
def test_micro_batches_must_divide_a_step(micro, tmp_path):
    with pytest.raises(ValueError, match="must divide"):
        GRPORunConfig(output_dir=str(tmp_path), prompts_per_step=3, micro_batch_prompts=micro)


def test_a_step_whose_groups_are_all_flat_leaves_the_weights_alone(tiny_model_dir, tiny_tasks,
                                                                   hub_url, tmp_path):
    import torch

    from agentworld.trainer.models import load_policy

    model, tokenizer = load_policy(tiny_model_dir)       # untrained: every rollout scores 0
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    cfg = GRPORunConfig(output_dir=str(tmp_path / "grpo"), steps=2, num_generations=2,
                        prompts_per_step=1, learning_rate=1e-2, max_completion_length=16,
                        max_turns=1, dynamic_filtering=False, save=False)
    run = train_grpo(model, tokenizer, tiny_tasks, hub_url, cfg)
    assert {r["reward"] for r in run.history} == {0.0}
    assert run.skipped_steps == [1, 2]
    assert all(torch.equal(before[n], p) for n, p in model.named_parameters())


def test_completion_budget_counts_the_tool_results(hub_url, tiny_tasks, tiny_model_dir):
    import math

    from transformers import AutoTokenizer

    from agentworld.hub.client import SyncHubClient
    from agentworld.trainer.budget import completion_budget

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    budget = completion_budget(tokenizer, tiny_tasks, hub_url)
    per_task = budget["per_task"]
    assert set(per_task) == {"tiny/complete-item-3", "tiny/count-home"}
    assert budget["max_completion_length"] == math.ceil(max(per_task.values()) * 1.5) + 48
    hub = SyncHubClient(hub_url)
    sid = hub.reset("tiny", task_id="count-home")["session_id"]
    listing = hub.step(sid, {"name": "list_items", "arguments": {"list_id": "lst_home"}})
    hub.end(sid)
    hub.close()
    result_tokens = len(tokenizer(listing["observation"])["input_ids"])
    assert per_task["tiny/count-home"] > result_tokens      # the tool's answer is counted


def test_a_final_reply_cut_by_the_budget_scores_zero(hub_url):
    env_cls = environment_factories(["tiny"], hub_url=hub_url)["tiny"]
    label = json.dumps({"env_id": "tiny", "task_id": "count-home"})
    reward = VerifierReward(eos_token_ids=[2], group=2)
    envs = [env_cls(), env_cls()]
    for env in envs:
        env.reset(prompt=[], label=label)
    done = [{"role": "assistant", "content": "5"}]
    assert reward([[]] * 2, [done, done], environments=envs, completion_ids=[[7, 2], [7, 9]],
                  label=[label, label]) == [1.0, 0.0]
    assert reward.zero_variance == [0.0] and label not in reward.flat_labels
    for env in envs:
        env.reset(prompt=[], label=label)
    reward([[]] * 2, [done, done], environments=envs, completion_ids=[[2], [2]],
           label=[label, label])
    assert reward.zero_variance[-1] == 1.0 and reward.flat_labels == {label: 0}


def test_each_scored_group_updates_the_learnability_of_its_prompt(hub_url):
    from agentworld.trainer.grpo_sampler import Learnability

    env_cls = environment_factories(["tiny"], hub_url=hub_url)["tiny"]
    label = json.dumps({"env_id": "tiny", "task_id": "count-home"})
    learn = Learnability({label: (0, 4)})
    reward = VerifierReward(eos_token_ids=[2], group=2, learnability=learn)
    before = learn.weight(label)
    envs = [env_cls(), env_cls()]
    for env in envs:
        env.reset(prompt=[], label=label)
    reward([[]] * 2, [[{"role": "assistant", "content": "5"}]] * 2, environments=envs,
           completion_ids=[[7, 2], [7, 9]], label=[label, label])
    assert list(learn.recent[label]) == [1.0, 0.0] and learn.weight(label) > before


def test_draws_by_learnability_need_the_filtered_sampler():
    GRPORunConfig(output_dir="x", learnability_prior={})
    with pytest.raises(ValueError, match="learnability_prior"):
        GRPORunConfig(output_dir="x", learnability_prior={}, dynamic_filtering=False)


def _call(name):
    return {"role": "assistant", "content": "",
            "tool_calls": [{"type": "function", "function": {"name": name, "arguments": {}}}]}


def test_a_rollout_ends_at_its_submit_call():
    from agentworld.trainer.trl_backend import cut_after_submit

    messages = [_call("list_items"), {"role": "tool", "content": "[]"}, _call("submit"),
                {"role": "tool", "content": "over"}, {"role": "assistant", "content": "Done!"}]
    ids = [1, 2, 9, 9, 3, 4, 8, 8, 8, 5, 6, 7]
    mask = [1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1]
    logprobs = [-0.1] * len(ids)
    kept, ids2, mask2, lp2 = cut_after_submit(messages, ids, mask, logprobs)
    assert kept == messages[:3]
    assert ids2 == [1, 2, 9, 9, 3, 4] and mask2 == [1, 1, 0, 0, 1, 1] and len(lp2) == 6
    # TRL stopped before replying to the submit's result: the result itself goes.
    kept, ids3, mask3, _ = cut_after_submit(messages[:4], ids[:9], mask[:9])
    assert kept == messages[:3] and ids3 == ids2 and mask3 == mask2
    # No submit: nothing to cut.
    assert cut_after_submit(messages[:2], ids[:4], mask[:4]) == (messages[:2], ids[:4],
                                                                  mask[:4], None)


def test_a_group_floor_needs_groups_and_the_filtered_sampler():
    from agentworld.trainer.trl_backend import GRPORunConfig

    GRPORunConfig(output_dir="x", groups={"a": "k"}, group_floor=0.2)
    with pytest.raises(ValueError, match="group_floor"):
        GRPORunConfig(output_dir="x", group_floor=0.2)
    with pytest.raises(ValueError, match="group_floor"):
        GRPORunConfig(output_dir="x", groups={"a": "k"}, group_floor=0.2,
                      dynamic_filtering=False)
