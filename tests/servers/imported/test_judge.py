"""The optional LLM judge, against a real HTTP endpoint on 127.0.0.1:0 that answers like an
OpenAI-compatible server."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentworld.servers.imported.judge import JudgeError, judge_criteria
from agentworld.servers.tasks import Step


class _Endpoint(BaseHTTPRequestHandler):
    seen: list = []
    reply = ""

    def do_POST(self):  # noqa: N802 (the stdlib's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).seen.append((self.path, self.headers.get("Authorization"), body))
        data = json.dumps({"choices": [{"message": {"content": type(self).reply}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_each_criterion_gets_its_own_verdict(endpoint):
    _Endpoint.seen.clear()
    _Endpoint.reply = ('Sure. {"criteria": [{"index": 1, "met": true, "reason": "says 4"}, '
                       '{"index": 2, "met": false, "reason": "no list"}]}')
    steps = [Step("list_books", {"genre": "scifi"}, True, {"count": 4})]
    verdict = judge_criteria("How many?", ["Says 4.", "Lists titles.", "Is polite."], "4",
                             steps, endpoint=endpoint, model="judge", api_key="k")
    assert [c.met for c in verdict.criteria] == [True, False, False]   # 3: not mentioned
    assert verdict.criteria[0].reason == "says 4" and verdict.share_met == pytest.approx(1 / 3)
    path, auth, body = _Endpoint.seen[0]
    assert path == "/v1/chat/completions" and auth == "Bearer k" and body["model"] == "judge"
    assert "list_books" in body["messages"][1]["content"]


def test_unreadable_replies_and_dead_endpoints_raise(endpoint):
    _Endpoint.reply = "I cannot grade this."
    with pytest.raises(JudgeError, match="no criteria"):
        judge_criteria("t", ["c"], "a", [], endpoint=endpoint, model="m")
    with pytest.raises(JudgeError, match="failed"):
        judge_criteria("t", ["c"], "a", [], endpoint="http://127.0.0.1:9", model="m",
                       timeout=2)
    assert judge_criteria("t", [], "a", [], endpoint=endpoint, model="m").criteria == []
