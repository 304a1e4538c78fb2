"""The LLM analyzer against a fake OpenAI-compatible server on 127.0.0.1, and the CLI run with it
configured."""

import json

import pytest
from fastapi import FastAPI, Request

from agentworld.cli import main
from agentworld.trainer.arena.diagnosis import EnvFacts, diagnose
from agentworld.trainer.arena.guidelines import write_guidelines
from agentworld.trainer.arena.llm_analyzer import AnalyzerError, analyze_with_llm, merge_llm
from agentworld.trainer.arena.records import EpisodeRecord, StepRecord, read_json
from tests.fixtures.live_server import live_server

ANSWER = {"weak_spots": [{"env_id": "hotel", "tool": "get_booking",
                          "description": "reads the booking before changing it too rarely"},
                         {"env_id": "hotel", "tool": "no_such_tool", "description": "x"}],
          "guidelines": ["Generate tasks that update a booking found by search."]}


@pytest.fixture
def fake_openai():
    app = FastAPI()
    app.state.requests = []

    @app.post("/v1/chat/completions")
    async def complete(request: Request):
        app.state.requests.append(await request.json())
        content = "Here you go:\n```json\n" + json.dumps(ANSWER) + "\n```"
        return {"choices": [{"message": {"role": "assistant", "content": content}}]}

    with live_server(app) as url:
        yield url, app.state.requests


FACTS = {"hotel": EnvFacts(tool_kinds={"get_booking": "query", "update_booking": "mutation"})}


def _episodes():
    step = StepRecord("update_booking", {"id": {}}, False, "VALIDATION_ERROR", {})
    return [EpisodeRecord("hotel", "hotel/t", "Travel & Transportation", "Lodging",
                          "Update the booking.", ["update_booking"], [step], submitted=True)]


def test_the_analyzer_reads_the_evidence_and_adds_to_the_guidelines(fake_openai):
    url, requests = fake_openai
    episodes = _episodes()
    d = diagnose(episodes, FACTS)
    analysis = analyze_with_llm(d, episodes, endpoint=f"{url}/v1", model="judge")
    sent = requests[0]
    evidence = json.loads(sent["messages"][-1]["content"])
    assert sent["model"] == "judge"
    assert evidence["weak_envs"][0]["env_id"] == "hotel"
    assert evidence["failed_trajectories"][0]["steps"][0]["code"] == "VALIDATION_ERROR"
    g = merge_llm(write_guidelines(d, episodes, FACTS, weak_envs=1, complexify=0,
                                   round_index=1), analysis, FACTS)
    assert g["analyzer"] == "rules+llm"
    assert g["envs"][0]["focus_tools"] == ["update_booking", "get_booking"]  # unknown tool dropped
    assert g["notes"][-1].startswith("LLM: Generate tasks")


def test_an_unreachable_analyzer_is_a_clear_error():
    d = diagnose(_episodes(), FACTS)
    with pytest.raises(AnalyzerError, match="endpoint failed"):
        analyze_with_llm(d, _episodes(), endpoint="http://127.0.0.1:9/v1", model="m",
                         timeout=2)


def test_cli_evolve_with_the_llm_analyzer(fake_openai, tmp_path, capsys):
    url, requests = fake_openai
    out = tmp_path / "run"
    code = main(["evolve", "--rounds", "1", "--policy", "scripted-fail:update_",
                 "--envs", "heritage-palace-hotel", "hostel-bed-booking",
                 "--eval-tasks", "3", "--weak-envs", "1", "--train-tasks", "2",
                 "--complexify", "0", "--analyzer-endpoint", f"{url}/v1",
                 "--analyzer-model", "judge", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert "round" in capsys.readouterr().out
    assert requests, "the analyzer was asked"
    guidelines = read_json(out / "round-001" / "guidelines.json")
    assert guidelines["analyzer"] == "rules+llm" and guidelines["llm"]["guidelines"]
