"""The compact tool view is the same in the hub's reset info, SFT transcripts, TRL's
environment classes, OpenRLHF's agent and evaluation (the token-level episode)."""

from __future__ import annotations

import asyncio

import pytest

from agentworld.servers.tool_views import apply_view
from agentworld.trainer.prompting import SUBMIT_TOOL, tool_schemas

transformers = pytest.importorskip("transformers")

VIEW = "compact:1"


@pytest.fixture(scope="module")
def task(tiny_catalog):
    from agentworld.trainer.tasks import collect_tasks

    [t] = [t for t in collect_tasks(tiny_catalog, ["tiny"], tool_view=VIEW)
           if t.task_id == "count-home"]
    return t


@pytest.fixture(scope="module")
def from_hub(hub_url):
    """What a client renders from the hub's reset info alone."""
    from agentworld.hub.client import SyncHubClient

    hub = SyncHubClient(hub_url)
    try:
        started = hub.reset("tiny", task_id="count-home")
        hub.end(started["session_id"])
    finally:
        hub.close()
    info = started["info"]
    return tool_schemas([*apply_view(info["tools"], VIEW, relevant=info["relevant_tools"]),
                         SUBMIT_TOOL])


def test_view_is_small_and_relevant(from_hub, task):
    names = [s["function"]["name"] for s in from_hub]
    assert names == ["list_items", "submit"] and task.tool_names == ("list_items",)
    params = from_hub[0]["function"]["parameters"]["properties"]
    assert params == {"list_id": {"type": "string", "description": "list_id"}}


def test_sft_transcript_shows_the_same_tools(tiny_catalog, task, from_hub):
    from agentworld.trainer.sft import reference_transcript

    transcript = reference_transcript(tiny_catalog, task)
    assert transcript.schemas == from_hub
    assert "list_items" in transcript.messages[0]["content"]
    assert "complete_item" not in transcript.messages[0]["content"]


def test_trl_environment_shows_the_same_tools(hub_url, task, from_hub):
    from transformers.utils import get_json_schema

    from agentworld.trainer.tasks import task_rows
    from agentworld.trainer.trl_backend import environment_factories

    factories = environment_factories([task], hub_url=hub_url)
    [row] = task_rows([task])
    env = factories[row["environment"]]()
    methods = sorted(n for n in dir(env) if not n.startswith("_") and n != "reset"
                     and callable(getattr(env, n)))
    assert [get_json_schema(getattr(env, n)) for n in methods] == from_hub


def test_openrlhf_and_eval_episode_show_the_same_tools(hub_url, tiny_model_dir, from_hub):
    from transformers import AutoTokenizer

    from agentworld.hub.client import HubClient
    from agentworld.trainer.token_episode import Generation, run_token_episode

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)

    async def generate(ids, max_tokens):
        out = tokenizer("5<|im_end|>", add_special_tokens=False)["input_ids"]
        return Generation(out, "5<|im_end|>", "stop")

    async def run():
        async with HubClient(hub_url) as hub:
            return await run_token_episode(hub, env_id="tiny", task_id="count-home",
                                           tokenizer=tokenizer, generate=generate,
                                           max_length=4096, tool_view=VIEW)
    ep = asyncio.run(run())
    assert ep.schemas == from_hub and ep.reward == 1.0
    assert '"name": "list_items"' in ep.prompt_text
    assert '"name": "complete_item"' not in ep.prompt_text
