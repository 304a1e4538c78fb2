"""The OpenRLHF agent file, loaded exactly as OpenRLHF 0.11 loads it, driving real episodes on a
hub on 127.0.0.1:0 with a scripted async engine in place of vLLM."""

from __future__ import annotations

import ast
import asyncio
import importlib.util
import json
import os
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("torch")
agent_mod = pytest.importorskip("openrlhf.utils.agent")

from agentworld.trainer.openrlhf_backend import agent_file  # noqa: E402


def _openrlhf_loader():
    """OpenRLHF's own ``_load_agent_executor``, compiled from its installed source (the module
    that holds it imports vLLM and Ray, which a CPU machine lacks)."""
    spec = importlib.util.find_spec("openrlhf")
    source_path = Path(spec.submodule_search_locations[0]) / "trainer/ray/vllm_engine.py"
    tree = ast.parse(source_path.read_text())
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef)
              and n.name == "_load_agent_executor")
    namespace = {"AgentExecutorBase": agent_mod.AgentExecutorBase}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), str(source_path), "exec"), namespace)
    return namespace["_load_agent_executor"]


@dataclass
class Params:
    """The fields of vllm.SamplingParams the agent reads and writes."""

    max_tokens: int | None = None
    logprobs: int | None = None
    temperature: float = 1.0


class ScriptedEngine:
    """Replies from a script, tokenized like vLLM returns them (EOS included when it stops)."""

    def __init__(self, tokenizer, replies):
        self.tokenizer, self.replies, self.prompts = tokenizer, list(replies), []

    async def generate(self, prompt_token_ids, sampling_params, multi_modal_data=None):
        self.prompts.append((list(prompt_token_ids), sampling_params.max_tokens))
        ids = self.tokenizer(self.replies.pop(0), add_special_tokens=False)["input_ids"]
        reason = "stop"
        if len(ids) > sampling_params.max_tokens:
            ids, reason = ids[:sampling_params.max_tokens], "length"
        out = SimpleNamespace(token_ids=ids, finish_reason=reason,
                              text=self.tokenizer.decode(ids, skip_special_tokens=False),
                              logprobs=[{t: SimpleNamespace(logprob=-0.5)} for t in ids])
        return SimpleNamespace(outputs=[out])


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


@pytest.fixture
def executor(hub_url, monkeypatch):
    monkeypatch.setenv("AGENTWORLD_HUB_URL", hub_url)
    monkeypatch.delenv("AGENTWORLD_MAX_TURN_TOKENS", raising=False)
    return _openrlhf_loader()(str(agent_file()))


def _call(name, arguments):
    return (f'<tool_call>\n{json.dumps({"name": name, "arguments": arguments})}\n</tool_call>'
            "<|im_end|>")


def _run(executor, tokenizer, task_id, replies, *, max_length=4096, logprobs=None):
    engine = ScriptedEngine(tokenizer, replies)
    label = json.dumps({"env_id": "tiny", "task_id": task_id})

    async def go():
        try:
            return await executor.execute("ignored prompt", label, Params(logprobs=logprobs),
                                          max_length, tokenizer, engine)
        finally:
            await executor.aclose()
    return asyncio.run(go()), engine


def test_loaded_the_openrlhf_way(executor):
    assert type(executor).__name__ == "AgentExecutor"
    assert isinstance(executor, agent_mod.AgentExecutorBase)
    assert os.path.basename(type(executor).__module__) == "agent_module"


def test_multi_turn_episode_rewards_from_the_verifier(executor, tokenizer, hub_url):
    replies = [_call("complete_item", {"item_id": "itm_3"}), _call("submit", {})]
    out, engine = _run(executor, tokenizer, "complete-item-3", replies, logprobs=1)
    assert float(out["reward"]) == 1.0 and out["reward"].dtype.is_floating_point
    assert out["truncated"] is False and out["extra_logs"]["passed"] == 1.0
    tokens, ranges = out["observation_tokens"], out["action_ranges"]
    assert len(ranges) == 2
    (a0, a1), (b0, b1) = ranges
    # The model's tokens are exactly its replies; the environment's lie between them.
    assert tokenizer.decode(tokens[a0:a1]) == replies[0]
    assert tokenizer.decode(tokens[b0:b1]) == replies[1]
    feedback = tokenizer.decode(tokens[a1:b0])
    assert "<tool_response>" in feedback and '"status":"done"' in feedback
    assert feedback.endswith("<|im_start|>assistant\n") and b1 == len(tokens)
    # Multi-turn: the second generation saw the first reply and the tool's answer.
    assert engine.prompts[1][0] == tokens[:b0]
    assert engine.prompts[0][0] == tokens[:a0]
    prompt = tokenizer.decode(tokens[:a0])
    assert "<tools>" in prompt and '"name": "complete_item"' in prompt and "Item 3" in prompt
    # Logprobs: the engine's inside action ranges, 0 for prompt and environment tokens.
    lp = out["rollout_log_probs"]
    assert len(lp) == len(tokens)
    assert set(lp[a0:a1]) == {-0.5} and set(lp[a1:b0]) == {0.0} and set(lp[:a0]) == {0.0}
    assert out["label"] == json.dumps({"env_id": "tiny", "task_id": "complete-item-3"})


def test_plain_text_reply_is_the_answer(executor, tokenizer):
    out, _ = _run(executor, tokenizer, "count-home",
                  [_call("list_items", {"list_id": "lst_home"}), "5<|im_end|>"])
    assert float(out["reward"]) == 1.0 and len(out["action_ranges"]) == 2
    wrong, _ = _run(executor, tokenizer, "count-home", ["7<|im_end|>"])
    assert float(wrong["reward"]) == 0.0 and wrong["extra_logs"]["turns"] == 1.0


def test_malformed_call_is_plain_text_and_ends_the_episode_as_in_trl(executor, tokenizer):
    out, engine = _run(executor, tokenizer, "complete-item-3",
                       ["<tool_call>{not json</tool_call><|im_end|>",
                        _call("complete_item", {"item_id": "itm_3"})])
    assert len(engine.prompts) == 1 and len(out["action_ranges"]) == 1
    assert float(out["reward"]) == 0.0 and out["extra_logs"]["malformed"] == 1.0


def test_every_call_of_a_reply_is_made(executor, tokenizer):
    two = (_call("list_items", {"list_id": "lst_home"}).removesuffix("<|im_end|>") + "\n"
           + _call("complete_item", {"item_id": "itm_3"}))
    out, engine = _run(executor, tokenizer, "complete-item-3", [two, "done<|im_end|>"])
    assert float(out["reward"]) == 1.0 and out["extra_logs"]["tool_calls"] == 2.0
    (_, a1), (b0, _) = out["action_ranges"]
    feedback = tokenizer.decode(out["observation_tokens"][a1:b0])
    assert feedback.count("<tool_response>") == 2


def test_too_long_prompt_is_cut_from_the_left_as_openrlhf_does(executor, tokenizer):
    full = len(_run(executor, tokenizer, "complete-item-3", ["x<|im_end|>"])[1].prompts[0][0])
    engine = ScriptedEngine(tokenizer, [_call("complete_item", {"item_id": "itm_3"}),
                                        "ok<|im_end|>"])
    label = json.dumps({"env_id": "tiny", "task_id": "complete-item-3"})

    async def go():
        try:
            return await executor.execute("p", label, Params(max_tokens=64), full - 20,
                                          tokenizer, engine)
        finally:
            await executor.aclose()
    out = asyncio.run(go())
    first_prompt = engine.prompts[0][0]
    assert len(first_prompt) == full - 20 - 64        # room left for one reply
    assert out["extra_logs"]["prompt_truncated"] == 1.0
    assert tokenizer.decode(first_prompt).endswith("<|im_start|>assistant\n")
    assert out["action_ranges"][0][1] > out["action_ranges"][0][0]   # it still acted


def test_missing_hub_url_fails_loudly(monkeypatch):
    monkeypatch.delenv("AGENTWORLD_HUB_URL", raising=False)
    with pytest.raises(RuntimeError, match="AGENTWORLD_HUB_URL"):
        _openrlhf_loader()(str(agent_file()))


def test_tool_view_from_the_environment(monkeypatch, hub_url, tokenizer):
    monkeypatch.setenv("AGENTWORLD_HUB_URL", hub_url)
    monkeypatch.setenv("AGENTWORLD_TOOL_VIEW", "compact:1")
    compact = _openrlhf_loader()(str(agent_file()))
    _, engine = _run(compact, tokenizer, "complete-item-3", ["x<|im_end|>"])
    prompt = tokenizer.decode(engine.prompts[0][0])
    assert '"name": "complete_item"' in prompt and '"name": "submit"' in prompt
    assert '"name": "list_items"' not in prompt      # only the most relevant tool is shown


def test_truncation_when_the_budget_runs_out(executor, tokenizer):
    prompt_len = len(_run(executor, tokenizer, "complete-item-3", ["x<|im_end|>"])[1].prompts[0][0])
    out, engine = _run(executor, tokenizer, "complete-item-3",
                       [_call("complete_item", {"item_id": "itm_3"})],
                       max_length=prompt_len + 8)
    assert engine.prompts[0][1] == 8                      # the whole remaining budget
    assert out["truncated"] is True and float(out["reward"]) == 0.0
    assert out["action_ranges"] == [(prompt_len, prompt_len + 8)]
    assert len(out["observation_tokens"]) == prompt_len + 8


def test_turn_cap_from_the_environment(executor, tokenizer, monkeypatch, hub_url):
    monkeypatch.setenv("AGENTWORLD_MAX_TURN_TOKENS", "5")
    capped = _openrlhf_loader()(str(agent_file()))
    out, engine = _run(capped, tokenizer, "complete-item-3",
                       [_call("complete_item", {"item_id": "itm_3"})])
    assert engine.prompts[0][1] == 5 and out["truncated"] is True


def test_replies_the_hub_never_sees_count_against_the_step_limit(executor, tokenizer):
    # complete-item-3 allows 5 steps: 5 rounds of calls and a final answer, as TRL allows.
    out, engine = _run(executor, tokenizer, "complete-item-3",
                       [_call("no_such_tool", {})] * 10)
    assert len(engine.prompts) == 6 and len(out["action_ranges"]) == 6
    assert out["extra_logs"]["out_of_turns"] == 1.0 and out["extra_logs"]["turns"] == 6.0
    assert float(out["reward"]) == 0.0 and out["extra_logs"]["tool_errors"] == 6.0


def test_the_last_allowed_reply_can_still_answer(executor, tokenizer):
    replies = [_call("no_such_tool", {})] * 4 + [_call("complete_item", {"item_id": "itm_3"}),
                                                  _call("submit", {})]
    out, engine = _run(executor, tokenizer, "complete-item-3", replies)
    assert len(engine.prompts) == 6 and out["extra_logs"]["out_of_turns"] == 0.0
    assert out["extra_logs"]["passed"] == 1.0


def test_sessions_are_ended(executor, tokenizer, hub_url):
    import urllib.request

    _run(executor, tokenizer, "complete-item-3", [_call("submit", {})])
    with urllib.request.urlopen(f"{hub_url}/healthz") as resp:
        assert json.loads(resp.read())["sessions"] == 0
