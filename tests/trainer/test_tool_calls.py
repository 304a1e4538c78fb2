"""One reading of a reply everywhere: our parser agrees with TRL's, and TRL, OpenRLHF's agent
and evaluation send the same actions to a real hub for the same replies."""

from __future__ import annotations

import asyncio
import json

import pytest

from agentworld.trainer.prompting import SUBMIT_TOOL, tool_schemas
from agentworld.trainer.tool_calls import parse_reply, reply_actions

transformers = pytest.importorskip("transformers")

BOOK = {"name": "book", "description": "Book seats.",
        "inputSchema": {"type": "object", "required": ["flight", "seats"],
                        "properties": {"flight": {"type": "string"},
                                       "seats": {"type": "integer"},
                                       "class": {"type": "string"},
                                       "price": {"type": "number"},
                                       "ok": {"type": "boolean"},
                                       "tags": {"type": "array", "items": {"type": "string"}}}}}


def _call(body: str) -> str:
    return f"<tool_call>\n{body}\n</tool_call><|im_end|>"


REPLIES = [
    "The answer is 5<|im_end|>",
    _call('{"name": "book", "arguments": {"flight": "F1", "seats": "2"}}'),
    _call('{"name": "book", "arguments": {"flight": 42, "seats": "2.0", "price": "3", '
          '"ok": "true", "tags": "[\\"a\\"]", "class_": "x"}}'),
    _call('{"name": "book", "arguments": {"flight": "F1", "seats": "x2", "price": "1.5"}}'),
    'Sure. <tool_call>\n{"name": "book", "arguments": {"flight": "F1"}}\n</tool_call><|im_end|>',
    _call('{"name": "book", "arguments": {"flight": "F1"}'),                 # bad JSON
    _call('{"name": "book", "arguments": {"flight": "F1"}}\n</tool_call>\n<tool_call>\n'
          '{"name": "book", "arguments": {"flight": "F2"}}'),               # two calls
    _call('{"name": "book", "arguments": {}}\n</tool_call>\n<tool_call>\n{"arguments": {}}'),
    '<tool_call>\n{"name": "book", "arguments": {"flight": "F1"}}',       # cut before the close
    _call('{"arguments": {"flight": "F1"}}'),
    _call('{"name": 5, "arguments": {}}'),
    _call('[1, 2]'),
    "<tool_call></tool_call><|im_end|>",
    _call('{"name": "book", "arguments": "{\\"flight\\": \\"F1\\"}"}'),
    _call('{"name": "book", "arguments": [1]}'),
    _call('{"name": "book"}'),
    _call('{"name": "book", "arguments": null}'),
    _call('{"name": "nope", "arguments": {"seats": "3"}}'),
    "I will call <tool_call> later<|im_end|>",
]


@pytest.fixture(scope="module")
def tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny_model_dir)


@pytest.fixture(scope="module")
def trl_tokenizer(tiny_model_dir):
    from transformers import AutoTokenizer

    chat_template_utils = pytest.importorskip("trl.chat_template_utils")
    return chat_template_utils.add_response_schema(AutoTokenizer.from_pretrained(tiny_model_dir))


def _trl_parse(tokenizer, text: str, schemas):
    from trl.chat_template_utils import parse_response

    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "hi"}], tools=schemas,
                                           add_generation_prompt=True, tokenize=False)
    ids = tokenizer(text, add_special_tokens=False)["input_ids"]
    return parse_response(tokenizer, ids,
                          prefix=tokenizer(prompt, add_special_tokens=False)["input_ids"],
                          tools=schemas)


@pytest.mark.parametrize("text", REPLIES)
def test_parser_agrees_with_trl(trl_tokenizer, text):
    schemas = tool_schemas([BOOK, SUBMIT_TOOL])
    theirs = _trl_parse(trl_tokenizer, text, schemas)
    ours = parse_reply(text, schemas)
    calls = [(c["function"]["name"], c["function"].get("arguments", {}))
             for c in theirs.get("tool_calls") or []]
    assert [(c.name, c.arguments) for c in ours.calls] == calls
    if not calls:
        assert ours.answer == theirs["content"].strip()
        assert (ours.malformed is not None) == ("<tool_call>" in text)


def test_actions_rename_cast_and_refuse_what_trl_cannot_dispatch():
    schemas = tool_schemas([BOOK, SUBMIT_TOOL])
    reply = parse_reply(_call('{"name": "book", "arguments": {"flight": "F1", "seats": "2", '
                              '"class_": "business", "price": null}}'), schemas)
    [act] = reply_actions(reply, [BOOK])
    assert act.action == {"name": "book", "arguments": {"flight": "F1", "seats": 2,
                                                        "class": "business"}}
    acts = reply_actions(parse_reply(_call('{"name": "nope", "arguments": {}}') +
                                     _call('{"name": "book", "arguments": [1]}'), schemas),
                         [BOOK])
    assert [a.action for a in acts] == [None, None]
    assert "not found" in acts[0].local_error
    plain = reply_actions(parse_reply(_call('{"name": "book", "arguments": {"x"}}'), schemas),
                          [BOOK])
    assert plain[0].action["name"] == "submit"        # malformed: plain text, the final answer


# -- the same replies through the three paths, on a real hub ------------------------------------
TINY_REPLIES = [
    [_call('{"name": "complete_item", "arguments": {"item_id": "itm_3"}}'), "done<|im_end|>"],
    [_call('{"name": "list_items", "arguments": {"list_id": "lst_home"}}\n</tool_call>\n'
           '<tool_call>\n{"name": "add_item", "arguments": {"list_id": "lst_home", '
           '"title": 42}}'), "5<|im_end|>"],
    [_call('{"name": "complete_item", "arguments": {"item_id": "itm_3"}'), "never sent"],
    [_call('{"name": "nope", "arguments": {}}'), "Item 3<|im_end|>"],
    ["5<|im_end|>"],
]


def _record_steps(monkeypatch):
    """Every action any hub client sends, in order."""
    from agentworld.hub import client as client_mod

    sent: list = []
    for cls in (client_mod.HubClient, client_mod.SyncHubClient):
        original = cls.step

        def step(self, sid, action, _original=original):
            sent.append(json.loads(json.dumps(action)))
            return _original(self, sid, action)
        monkeypatch.setattr(cls, step.__name__, step)
    return sent


def _trl_path(tokenizer, hub_url, replies):
    """What TRL does: parse with transformers' parser, dispatch to the environment's methods
    (an exception becomes an error message), and score the last plain reply."""
    from agentworld.trainer.trl_backend import VerifierReward, environment_factories

    env = environment_factories(["tiny"], hub_url=hub_url)["tiny"]()
    env.reset(label=json.dumps({"env_id": "tiny", "task_id": "complete-item-3"}))
    methods = {n: getattr(env, n) for n in dir(env) if not n.startswith("_") and n != "reset"
               and callable(getattr(env, n))}
    schemas = tool_schemas([*env._hub.env("tiny")["tools"], SUBMIT_TOOL])
    completion = []
    for text in replies:
        message = _trl_parse(tokenizer, text, schemas)
        completion.append(message)
        if not message.get("tool_calls"):
            break
        for call in message["tool_calls"]:
            fn = call["function"]
            try:
                methods[fn["name"]](**fn["arguments"])
            except Exception:  # noqa: BLE001 - TRL turns any failure into an error message
                pass
    ids = [tokenizer.eos_token_id]
    return VerifierReward(eos_token_ids=[tokenizer.eos_token_id])(
        [[]], [completion], environments=[env], completion_ids=[ids])[0]


def _scripted(tokenizer, replies):
    from agentworld.trainer.token_episode import Generation

    queue = list(replies)

    async def generate(ids, max_tokens):
        text = queue.pop(0)
        out = tokenizer(text, add_special_tokens=False)["input_ids"]
        return Generation(out, text, "stop")
    return generate


def _eval_path(tokenizer, hub_url, replies):
    from agentworld.trainer.evaluate import evaluate_sync
    from agentworld.trainer.policies import HFPolicy
    from agentworld.trainer.tasks import TaskRef

    policy = HFPolicy(None, tokenizer, max_length=4096)
    policy._generate = _scripted(tokenizer, replies)
    task = TaskRef(env_id="tiny", task_id="complete-item-3", prompt="", env_title="",
                   category="", tool_names=())
    return evaluate_sync(policy, [task], hub_url).results[0].reward


def _openrlhf_path(tokenizer, hub_url, replies, monkeypatch):
    from agentworld.trainer.openrlhf_backend import agent_file
    from tests.trainer.test_openrlhf_agent import Params, ScriptedEngine, _openrlhf_loader

    monkeypatch.setenv("AGENTWORLD_HUB_URL", hub_url)
    executor = _openrlhf_loader()(str(agent_file()))
    label = json.dumps({"env_id": "tiny", "task_id": "complete-item-3"})

    async def run():
        out = await executor.execute("", label, Params(max_tokens=512), 4096, tokenizer,
                                     ScriptedEngine(tokenizer, replies))
        await executor.aclose()
        return float(out["reward"])
    return asyncio.run(run())


@pytest.mark.parametrize("replies", TINY_REPLIES)
def test_trl_eval_and_openrlhf_send_the_same_actions(replies, tokenizer, trl_tokenizer,
                                                     hub_url, monkeypatch):
    pytest.importorskip("openrlhf.utils.agent")
    sent = _record_steps(monkeypatch)
    rewards = [_trl_path(trl_tokenizer, hub_url, replies)]
    trl_sent, sent[:] = list(sent), []
    rewards.append(_eval_path(tokenizer, hub_url, replies))
    eval_sent, sent[:] = list(sent), []
    rewards.append(_openrlhf_path(tokenizer, hub_url, replies, monkeypatch))
    assert trl_sent == eval_sent == sent, (trl_sent, eval_sent, sent)
    assert trl_sent and trl_sent[-1]["name"] == "submit"
    assert len(set(rewards)) == 1, rewards
