"""The optional LLM judge grades what the claim reader left undecided, through a real HTTP
endpoint, and never changes the reward."""

import dataclasses
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentworld.gym_api.env import AgentWorldEnv
from agentworld.servers import Catalog, Environment
from agentworld.servers.taskgen.assemble import assemble
from agentworld.servers.taskgen.reply.judge import ClaimsJudge
from tests.fixtures.calendar_env import DEFINITION

ARGS = {"calendar_id": "cal_team", "title": "Offsite lunch", "starts_at": "2026-03-09T13:45:00Z"}


@pytest.fixture
def endpoint():
    """An OpenAI-compatible chat endpoint on 127.0.0.1:0 that finds every statement unsupported
    and keeps what it was asked."""
    asked: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            asked.append(body)
            content = json.dumps({"criteria": [{"index": 1, "met": False,
                                                "reason": "no tool result shows a head count"}]})
            reply = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", asked
    server.shutdown()
    server.server_close()


@pytest.fixture
def calendar_catalog():
    env = Environment(DEFINITION)
    record = assemble(env, id="cal/book", kind="programmatic", calls=[["create_event", ARGS]],
                      prompt='Add "Offsite lunch" to the Team calendar (cal_team) on 2026-03-09 '
                             "at 13:45 UTC.")
    catalog = Catalog(modules={})
    catalog.add(dataclasses.replace(DEFINITION, tasks=(record.to_task(),)))
    return catalog


def _episode(catalog, judge, reply):
    env = AgentWorldEnv("calendar", catalog=catalog, judge=judge)
    try:
        env.reset(seed=0, options={"task_id": "cal/book"})
        env.step({"name": "create_event", "arguments": ARGS})
        return env.step({"name": "submit", "arguments": {"answer": reply}})
    finally:
        env.close()


def test_undecided_statements_go_to_the_judge_and_the_reward_stays(endpoint, calendar_catalog):
    url, asked = endpoint
    judge = ClaimsJudge(url, "judge-model")
    _, reward, terminated, _, info = _episode(calendar_catalog, judge,
                                              "Booked it. The lunch starts at 13:45 sharp.")
    assert terminated and reward == 1.0 and info["verdict"]["passed"]
    assert info["verdict"]["notes"]["undecided"] == ["The lunch starts at 13:45 sharp."]
    graded = info["judge"]["statements"]
    assert graded == [{"statement": "The lunch starts at 13:45 sharp.", "supported": False,
                       "reason": "no tool result shows a head count"}]
    sent = asked[0]["messages"][-1]["content"]
    assert "13:45 sharp" in sent and "create_event" in sent     # the statement and its evidence


def test_no_judge_call_without_undecided_statements_or_a_judge(endpoint, calendar_catalog):
    url, asked = endpoint
    _, _, _, _, info = _episode(calendar_catalog, ClaimsJudge(url, "m"), "Booked it.")
    assert "judge" not in info and not asked
    _, reward, _, _, info = _episode(calendar_catalog, None, "Booked it. It starts at 13:45 sharp.")
    assert "judge" not in info and reward == 1.0


def test_a_failing_endpoint_is_reported_not_raised(calendar_catalog):
    judge = ClaimsJudge("http://127.0.0.1:9/v1", "m", timeout=2)
    _, reward, _, _, info = _episode(calendar_catalog, judge, "Booked. It starts at 13:45 sharp.")
    assert reward == 1.0 and "error" in info["judge"]
