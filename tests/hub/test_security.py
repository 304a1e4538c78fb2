"""One test per point of docs/security.md: path traversal, SQL injection, oversized bodies,
step and session limits, token auth, loopback by default."""

from __future__ import annotations

import importlib
import secrets
import sys

import pytest

from agentworld.cli import build_parser
from agentworld.hub.settings import HubSettings
from agentworld.servers import Session

TRAVERSALS = ["..", "%2e%2e", "..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "%2e%2e%2f%2e%2e",
              "....%2F%2F", "os", "agentworld.cli", "tests.fixtures.tiny_env", "tiny%00"]


# -- path traversal ----------------------------------------------------------------------------
@pytest.mark.parametrize("ident", TRAVERSALS)
def test_traversal_through_ids_is_a_plain_404(client, ident, monkeypatch):
    imported: list[str] = []
    real = importlib.import_module
    monkeypatch.setattr(importlib, "import_module",
                        lambda name, *a: imported.append(name) or real(name, *a))
    before = set(sys.modules)
    for method, path in [("GET", f"/v1/envs/{ident}"), ("GET", f"/v1/sessions/{ident}"),
                         ("POST", f"/v1/sessions/{ident}/step"),
                         ("DELETE", f"/v1/sessions/{ident}"),
                         ("POST", f"/envs/{ident}/mcp"), ("POST", f"/sessions/{ident}/mcp")]:
        body = {"action": {"name": "x"}} if path.endswith("step") else {}
        response = client.request(method, path, json=body)
        assert response.status_code in (404, 405), (method, path, response.status_code)
        assert "root:" not in response.text
    assert client.post("/v1/sessions", json={"env_id": ident.replace("%2F", "/")}
                       ).status_code in (404, 422)
    # The catalog never imports a module named by a request.
    assert imported == [] and set(sys.modules) == before


# -- SQL injection -----------------------------------------------------------------------------
HOSTILE = ["x' OR '1'='1", "'); DROP TABLE items;--", 'itm_1" OR 1=1 --',
           "itm_1; DELETE FROM lists", "\\'; ATTACH DATABASE '/tmp/x' AS x;--"]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_are_bound_as_values(text, tiny_catalog):
    session = Session(tiny_catalog.load("tiny"))
    try:
        before = session.hash()
        assert session.call("list_items", {"list_id": text}).code in ("NOT_FOUND",
                                                                      "VALIDATION_ERROR")
        assert session.call("complete_item", {"item_id": text}).code in ("NOT_FOUND",
                                                                         "VALIDATION_ERROR")
        assert session.hash() == before
        added = session.call("add_item", {"list_id": "lst_home", "title": text})
        assert added.ok and added.data["item"]["title"] == text
        stored = session.db.execute("SELECT title FROM items WHERE id = ?",
                                    (added.data["item"]["id"],)).fetchone()[0]
        assert stored == text  # stored literally, and both tables still exist
        assert session.db.execute("SELECT count(*) FROM lists").fetchone()[0] == 2
    finally:
        session.close()


def test_a_session_database_cannot_attach_files(tiny_catalog, tmp_path):
    session = Session(tiny_catalog.load("tiny"))
    with pytest.raises(Exception, match="not authorized"):
        session.db.execute(f"ATTACH DATABASE '{tmp_path / 'x.db'}' AS x")
    session.close()
    assert list(tmp_path.iterdir()) == []


# -- oversized bodies --------------------------------------------------------------------------
def test_oversized_bodies_get_413(make_client):
    client = make_client(max_request_bytes=10_000)
    big = {"env_id": "tiny", "pad": "x" * 20_000}
    assert client.post("/v1/sessions", json=big).status_code == 413

    def chunks():
        yield b'{"env_id": "tiny", "pad": "'
        for _ in range(30):
            yield b"x" * 1000
        yield b'"}'

    response = client.post("/v1/sessions", content=chunks(),
                           headers={"content-type": "application/json"})
    assert response.status_code == 413 and response.json()["error"]["code"] == "REQUEST_TOO_LARGE"
    assert client.post("/v1/sessions", json={"env_id": "tiny"}).status_code == 201


def test_oversized_websocket_messages_are_refused(make_client):
    client = make_client(max_request_bytes=10_000)
    with client.websocket_connect("/v1/ws") as ws:
        ws.send_text("x" * 20_000)
        assert ws.receive_json()["error"]["code"] == "REQUEST_TOO_LARGE"
        ws.send_json({"op": "reset", "env_id": "tiny"})
        assert ws.receive_json()["op"] == "reset"


def test_oversized_tool_arguments_are_a_tool_error(tiny_catalog):
    session = Session(tiny_catalog.load("tiny"))
    result = session.call("add_item", {"list_id": "lst_home", "title": "x" * 100_000})
    assert result.code == "VALIDATION_ERROR"
    session.close()


# -- step and session limits ------------------------------------------------------------------
def test_max_steps_truncates_and_then_refuses(client):
    sid = client.post("/v1/sessions", json={"env_id": "tiny", "max_steps": 2}).json()[
        "session_id"]
    action = {"action": {"name": "list_items", "arguments": {"list_id": "lst_home"}}}
    assert not client.post(f"/v1/sessions/{sid}/step", json=action).json()["truncated"]
    assert client.post(f"/v1/sessions/{sid}/step", json=action).json()["truncated"]
    over = client.post(f"/v1/sessions/{sid}/step", json=action)
    assert over.status_code == 409 and over.json()["error"]["code"] == "EPISODE_OVER"
    assert client.post("/v1/sessions", json={"env_id": "tiny", "max_steps": 10**9}
                       ).status_code == 422


def test_max_sessions_answers_503_with_retry_after(make_client):
    client = make_client(max_sessions=2)
    for _ in range(2):
        assert client.post("/v1/sessions", json={"env_id": "tiny"}).status_code == 201
    full = client.post("/v1/sessions", json={"env_id": "tiny"})
    assert full.status_code == 503 and full.headers["retry-after"] == "1"
    assert full.json()["error"]["code"] == "AT_CAPACITY"


# -- token auth --------------------------------------------------------------------------------
def test_token_auth(make_client, monkeypatch):
    client = make_client(token="s3cret")
    assert client.get("/v1/envs").status_code == 401
    assert client.get("/v1/envs", headers={"authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/v1/envs", headers={"authorization": "s3cret"}).status_code == 401
    assert client.post("/envs/tiny/mcp", json={}).status_code == 401
    assert client.get("/healthz").status_code == 200
    compared = []
    real = secrets.compare_digest
    monkeypatch.setattr(secrets, "compare_digest", lambda a, b: compared.append(1) or real(a, b))
    ok = client.get("/v1/envs", headers={"authorization": "Bearer s3cret"})
    assert ok.status_code == 200 and compared  # the comparison is constant-time
    with pytest.raises(Exception):  # noqa: B017  the socket is closed with 1008
        with client.websocket_connect("/v1/ws") as ws:
            ws.receive_json()
    with client.websocket_connect("/v1/ws?token=s3cret") as ws:
        ws.send_json({"op": "close"})
        assert ws.receive_json()["op"] == "close"


def test_session_mcp_tokens_are_unguessable_and_distinct(client):
    started = [client.post("/v1/sessions", json={"env_id": "tiny"}).json() for _ in range(20)]
    tokens = [s["mcp_url"].split("/")[2] for s in started]
    assert len(set(tokens)) == 20 and all(len(t) >= 32 for t in tokens)
    assert not {s["session_id"] for s in started} & set(tokens)


# -- loopback by default -----------------------------------------------------------------------
def test_everything_binds_to_loopback_by_default():
    assert HubSettings().host == "127.0.0.1"
    parser = build_parser()
    assert parser.parse_args(["hub"]).host == "127.0.0.1"
    assert parser.parse_args(["serve", "tiny"]).host == "127.0.0.1"
