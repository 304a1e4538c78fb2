"""SFT transcripts from reference solutions, and evaluation of every kind of policy."""

from __future__ import annotations

import json

import pytest

from agentworld.trainer.evaluate import evaluate_sync
from agentworld.trainer.policies import NoopPolicy, OraclePolicy, RandomPolicy, make_policy


def test_transcripts_replay_the_reference_and_end_with_submit(transcripts):
    assert len(transcripts) == 2 and all(t.reward == 1.0 for t in transcripts)
    count = next(t for t in transcripts if t.task.task_id == "count-home")
    roles = [m["role"] for m in count.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant"]
    assert json.loads(count.messages[3]["content"])["items"][0]["list_id"] == "lst_home"
    assert count.messages[-1]["tool_calls"][0]["function"] == {"name": "submit",
                                                              "arguments": {"answer": "5"}}


def test_loss_only_on_the_assistant_replies(transcripts, tiny_model_dir):
    from transformers import AutoTokenizer

    from agentworld.trainer.sft import encode_transcript

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    count = next(t for t in transcripts if t.task.task_id == "count-home")
    ids, labels = encode_transcript(tokenizer, count)
    trained = tokenizer.decode([i for i, lab in zip(ids, labels, strict=True) if lab != -100])
    assert trained == ('<tool_call>\n{"name": "list_items", "arguments": {"list_id": "lst_home"}}'
                       '\n</tool_call><|im_end|><tool_call>\n{"name": "submit", "arguments": '
                       '{"answer": "5"}}\n</tool_call><|im_end|>')
    assert "How many open items" in tokenizer.decode(ids)


def test_sft_loss_scores_only_the_labelled_positions_and_equals_the_models_loss(
        transcripts, tiny_model_dir):
    """A padded batch of transcripts: the loss and its gradient are the model's own (which
    projects every position onto the vocabulary), and the output layer sees only the labelled
    positions."""
    import torch

    from agentworld.trainer.models import load_policy
    from agentworld.trainer.sft import encode_transcript, labelled_nll

    model, tokenizer = load_policy(tiny_model_dir)
    batch = [encode_transcript(tokenizer, t) for t in transcripts[:3]]
    width = max(len(ids) for ids, _ in batch)
    assert min(len(ids) for ids, _ in batch) < width  # padding is exercised
    ids = torch.tensor([i + [0] * (width - len(i)) for i, _ in batch])
    labels = torch.tensor([lab + [-100] * (width - len(lab)) for _, lab in batch])
    mask = torch.tensor([[1] * len(i) + [0] * (width - len(i)) for i, _ in batch])

    def loss_and_grads(loss_fn):
        model.zero_grad(set_to_none=True)
        loss = loss_fn()
        loss.backward()
        grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
        model.zero_grad(set_to_none=True)
        return float(loss.detach()), grads

    projected: list[int] = []
    hook = model.get_output_embeddings().register_forward_hook(
        lambda _m, args, _out: projected.append(args[0].shape[:-1].numel()))
    ours, our_grads = loss_and_grads(lambda: labelled_nll(model, ids, mask, labels))
    hook.remove()
    theirs, their_grads = loss_and_grads(
        lambda: model(input_ids=ids, attention_mask=mask, labels=labels).loss)
    assert projected == [int((labels[:, 1:] != -100).sum())]
    assert ours == pytest.approx(theirs, rel=1e-5)
    assert our_grads.keys() == their_grads.keys()
    for name, grad in our_grads.items():
        assert torch.allclose(grad, their_grads[name], atol=1e-6), name


def test_baselines_per_env_and_category(hub_url, tiny_tasks):
    oracle = evaluate_sync(OraclePolicy(), tiny_tasks, hub_url)
    assert oracle.overall() == {"tasks": 2, "success": 1.0, "partial_credit": 1.0}
    assert oracle.by_category() == {"Communication & General Utilities":
                                    {"tasks": 2, "success": 1.0, "partial_credit": 1.0}}
    assert set(oracle.by_env()) == {"tiny"}
    # The record names the tools each episode called, submit left out.
    assert [list(r.calls) for r in oracle.results] == [
        [name for name, _ in t.reference_calls] for t in tiny_tasks]
    assert all(r.tool_calls == len(r.calls) for r in oracle.results)
    assert evaluate_sync(NoopPolicy(), tiny_tasks, hub_url).overall()["partial_credit"] == 0.0
    rand = evaluate_sync(RandomPolicy(seed=1), tiny_tasks, hub_url)
    assert rand.overall()["success"] < 1.0 and all(r.turns >= 1 for r in rand.results)


def test_local_model_policy_plays_like_the_agent(hub_url, tiny_tasks, tiny_sft_dir):
    policy = make_policy(f"hf:{tiny_sft_dir}", max_new_tokens=64)
    report = evaluate_sync(policy, tiny_tasks, hub_url)
    assert report.overall()["success"] == 1.0, report.to_dict()["episodes"]
    assert {r.turns for r in report.results} == {2}
    assert [ep["calls"] for ep in report.to_dict()["episodes"]] == [
        [name for name, _ in t.reference_calls] for t in tiny_tasks]


def test_openai_endpoint_policy(hub_url, tiny_tasks):
    """A fake OpenAI-compatible endpoint on 127.0.0.1:0 that answers with native tool calls."""
    from fastapi import FastAPI

    from agentworld.trainer.policies import OpenAIPolicy
    from tests.fixtures.live_server import live_server

    app, seen = FastAPI(), []

    @app.post("/v1/chat/completions")
    async def complete(body: dict):
        seen.append(body)
        if body["messages"][-1]["role"] == "tool":
            call = {"name": "submit", "arguments": "{}"}
        else:
            call = {"name": "complete_item", "arguments": json.dumps({"item_id": "itm_3"})}
        return {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "x", "type": "function", "function": call}]}}]}

    with live_server(app) as url:
        report = evaluate_sync(OpenAIPolicy(f"{url}/v1", "fake"), tiny_tasks[:1], hub_url)
    assert report.overall()["success"] == 1.0
    assert report.results[0].calls == ("complete_item",)
    assert {t["function"]["name"] for t in seen[0]["tools"]} >= {"complete_item", "submit"}


def test_cli_eval(capsys):
    from agentworld.cli import main

    assert main(["eval", "--envs", "tests.fixtures.tiny_env:DEFINITION", "--split", "all",
                 "--policy", "oracle", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["overall"]["success"] == 1.0 and out["by_env"]["tiny"]["tasks"] == 2


def test_unknown_policy():
    from agentworld.trainer.errors import UnknownPolicyError

    with pytest.raises(UnknownPolicyError):
        make_policy("gpt-nonexistent")
