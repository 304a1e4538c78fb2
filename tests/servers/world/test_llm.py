"""LLM-driven synthesis against an OpenAI-compatible server on 127.0.0.1.

The server replays a fixture reply written in the shape of a chat completion (a marina berth
booking service), so the whole path runs offline: prompt, HTTP, parsing, compiling, filters.
"""

import json
from pathlib import Path

import pytest
from fastapi import FastAPI, Request

from agentworld.cli import main
from agentworld.servers.world.llm import build_prompt, parse_reply, synthesize_with_llm
from tests.fixtures.live_server import live_server

REPLY = json.loads((Path(__file__).parents[2] / "fixtures" / "recorded" /
                    "llm_marina_reply.json").read_text())


@pytest.fixture
def fake_openai():
    app = FastAPI()
    app.state.requests = []

    @app.post("/v1/chat/completions")
    async def complete(request: Request):
        app.state.requests.append(await request.json())
        return REPLY

    with live_server(app) as url:
        yield url, app.state.requests


def test_card_from_an_endpoint_passes_the_filters(fake_openai):
    url, requests = fake_openai
    result = synthesize_with_llm(endpoint=f"{url}/v1", model="qwen", l2="Lodging",
                                 theme="a marina's visitor berth bookings")
    assert result.report.passed and result.report.tools >= 10, result.report.problems
    assert result.archetype.id == "marina_berths"
    sent = requests[0]
    assert sent["model"] == "qwen" and "marina" in sent["messages"][-1]["content"]


def test_cli_generate_writes_the_card(fake_openai, tmp_path, capsys):
    url, _ = fake_openai
    out = tmp_path / "card.json"
    code = main(["world", "generate", "--endpoint", f"{url}/v1", "--model", "m",
                 "--category", "Lodging", "--theme", "marina berths", "--out", str(out)])
    assert code == 0
    assert json.loads(out.read_text())["filters"]["audit"] is True


def test_prompt_shows_the_dsl_by_example():
    messages = build_prompt("Lodging", "a ski chalet")
    example = json.loads(messages[1]["content"].split("\n", 1)[1])
    assert example["archetype"]["entities"] and "ski chalet" in messages[-1]["content"]


@pytest.mark.parametrize("content, fragment", [
    ("no json here", "not JSON"),
    ('{"archetype": {}}', "must be"),
    ('{"archetype": {"id": "x"}, "leaf": {}}', "archetype"),
    ('{"archetype": {"id": "x", "l2": "Lodging", "title": "t", "description": "d", '
     '"primary": "a", "entities": [{"name": "a", "plural": "as", "label": "n", '
     '"fields": [{"name": "n", "kind": "hologram"}]}]}, "leaf": {}}', "hologram"),
])
def test_bad_replies_are_reported(content, fragment):
    with pytest.raises(ValueError, match=fragment):
        parse_reply(content)


def test_unreachable_endpoint_is_a_clear_error(capsys):
    code = main(["world", "generate", "--endpoint", "http://127.0.0.1:9/v1", "--model", "m",
                 "--category", "Lodging", "--theme", "x"])
    assert code == 2 and "error" in capsys.readouterr().out


def test_parse_reply_accepts_bare_json():
    content = REPLY["choices"][0]["message"]["content"]
    fenced = content[content.index("{"):content.rindex("}") + 1]
    assert parse_reply(fenced)[0].id == "marina_berths"
