"""Task wording through an OpenAI-compatible endpoint (a local server), with the checks that
keep a rewrite honest."""

import pytest
from fastapi import FastAPI, Request

from agentworld.servers.taskgen.generate import generate_tasks
from agentworld.servers.taskgen.llm_text import LLMRewriter, stated_values
from agentworld.servers.taskgen.record import TaskRecord
from tests.fixtures.live_server import live_server


def record(prompt: str, answer: str | None = None) -> TaskRecord:
    return TaskRecord(id="e/graph-001", env_id="e", kind="graph", prompt=prompt, checks=[],
                      reference_calls=[], reference_answer=answer)


@pytest.fixture
def endpoint():
    app = FastAPI()

    @app.post("/v1/chat/completions")
    async def complete(request: Request):
        text = (await request.json())["messages"][-1]["content"]
        reply = "Could you please " + text[0].lower() + text[1:]
        return {"choices": [{"message": {"role": "assistant", "content": reply}}]}

    with live_server(app) as url:
        yield f"{url}/v1"


def test_rewrites_keep_every_stated_value(endpoint):
    rewriter = LLMRewriter(endpoint=endpoint, model="m")
    out = rewriter(record('Open guest gue_000113. Then cancel that reservation.'))
    assert out.prompt.startswith("Could you please open guest gue_000113")
    assert out.metadata["template_prompt"].startswith("Open guest")
    assert rewriter.rewritten == 1


def test_a_rewrite_that_drops_a_value_or_leaks_the_answer_is_refused():
    dropped = LLMRewriter(endpoint="x", model="m", chat=lambda _: "Please open that guest.")
    original = 'Open guest gue_000113 with email "ana@x.pt".'
    assert dropped(record(original)).prompt == original
    leaky = LLMRewriter(endpoint="x", model="m",
                        chat=lambda _: "Count the rooms (there are 80) and report it.")
    assert leaky(record("Count the rooms and report it.", answer="80")).prompt.startswith("Count")
    assert leaky.kept_template == 1


def test_an_unreachable_endpoint_keeps_the_template():
    rewriter = LLMRewriter(endpoint="http://127.0.0.1:9/v1", model="m", timeout=2)
    assert rewriter(record("Open room roo_000001.")).prompt == "Open room roo_000001."


def test_stated_values():
    assert stated_values('Set "Deluxe King" for roo_000012 on 2026-03-04, sleeps 3') == {
        "Deluxe King", "roo_000012", "2026-03-04", "3"}


def test_generation_uses_the_rewriter_for_graph_tasks(hotel, endpoint):
    env, compiled = hotel
    records, _ = generate_tasks(env, compiled=compiled, per_env=6,
                                rewrite=LLMRewriter(endpoint=endpoint, model="m"))
    graph = [r for r in records if r.kind == "graph"]
    assert graph and all(r.prompt.startswith("Could you please") for r in graph)
    assert all(not r.prompt.startswith("Could you") for r in records if r.kind != "graph")
