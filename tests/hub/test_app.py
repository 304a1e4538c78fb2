"""The hub's REST and WebSocket routes, in process (Starlette's TestClient runs the lifespan)."""

import pytest

CALL = {"name": "complete_item", "arguments": {"item_id": "itm_3"}}


def reset(client, **body):
    response = client.post("/v1/sessions", json={"env_id": "tiny", **body})
    assert response.status_code == 201, response.text
    return response.json()


def test_catalog_listing_is_filtered_and_paged(client):
    listing = client.get("/v1/envs", params={"limit": 1}).json()
    assert listing["total"] == 1 and listing["envs"][0]["id"] == "tiny"
    assert client.get("/v1/envs", params={"category": "Finance & Markets"}).json()["total"] == 0
    described = client.get("/v1/envs/tiny").json()
    assert {t["name"] for t in described["tools"]} >= {"list_items", "add_item"}
    assert described["content_hash"] and described["rules"]
    assert client.get("/v1/envs/nope").status_code == 404


def test_reset_step_state_delete(client):
    started = reset(client, task_id="complete-item-3")
    sid, info = started["session_id"], started["info"]
    assert info["prompt"] == started["observation"] and info["task_id"] == "complete-item-3"
    assert info["env_version"] == "1.0.0" and info["tools"] and info["episode_id"] == sid
    step = client.post(f"/v1/sessions/{sid}/step", json={"action": CALL}).json()
    assert step["info"]["ok"] and step["reward"] == 0.0 and not step["terminated"]
    done = client.post(f"/v1/sessions/{sid}/step",
                       json={"action": {"name": "submit", "arguments": {"answer": "ok"}}}).json()
    assert done["terminated"] and done["reward"] == 1.0
    assert done["info"]["verdict"]["components"] == {"itm_3 done": 1.0, "nothing else": 1.0}
    over = client.post(f"/v1/sessions/{sid}/step", json={"action": CALL})
    assert over.status_code == 409 and over.json()["error"]["code"] == "EPISODE_OVER"
    state = client.get(f"/v1/sessions/{sid}").json()
    assert state["steps"] == 2 and state["terminated"] and state["db_hash"]
    assert client.delete(f"/v1/sessions/{sid}").status_code == 204
    assert client.get(f"/v1/sessions/{sid}").status_code == 404


@pytest.mark.parametrize("body, status", [
    ({"env_id": 5}, 422),
    ({}, 422),
    ({"env_id": "tiny", "surprise": 1}, 422),
    ({"env_id": "tiny", "seed": -1}, 422),
    ({"env_id": "tiny", "task_id": "nope"}, 404),
    ({"env_id": "x" * 10_000}, 422),
    ({"env_id": "nope"}, 404),
])
def test_bad_reset_bodies_get_clear_errors(client, body, status):
    response = client.post("/v1/sessions", json=body)
    assert response.status_code == status
    assert response.json()["error"]["message"]
    assert client.get("/healthz").json()["sessions"] == 0


def test_malformed_http_bodies_keep_the_hub_serving(client):
    for raw in (b"{", b"\x00\xff", b"[]", b'{"env_id": "tiny"' + b" " * 100):
        response = client.post("/v1/sessions", content=raw,
                               headers={"content-type": "application/json"})
        assert response.status_code == 422
    sid = reset(client)["session_id"]
    assert client.post(f"/v1/sessions/{sid}/step", content=b"nope").status_code == 422
    assert client.post(f"/v1/sessions/{sid}/step", json={"action": CALL}).status_code == 200


def test_capacity_answers_503_with_retry_after_and_recovers(make_client):
    client = make_client(max_sessions=2)
    sids = [reset(client)["session_id"] for _ in range(2)]
    full = client.post("/v1/sessions", json={"env_id": "tiny"})
    assert full.status_code == 503 and full.headers["Retry-After"] == "1"
    assert full.json()["error"]["code"] == "AT_CAPACITY"
    client.delete(f"/v1/sessions/{sids[0]}")
    assert client.post("/v1/sessions", json={"env_id": "tiny"}).status_code == 201


def test_bearer_token_protects_everything_but_health(make_client):
    client = make_client(token="s3cret")
    assert client.get("/healthz").status_code == 200
    assert client.get("/v1/envs").status_code == 401
    assert client.get("/v1/envs", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert client.get("/v1/envs", headers={"Authorization": "Bearer s3cret"}).status_code == 200
    assert client.get("/metrics").status_code == 401


def test_request_size_is_limited(make_client):
    client = make_client(max_request_bytes=10_000)
    sid = reset(client)["session_id"]
    arguments = {"list_id": "lst_home", "title": "x" * 20_000}
    big = {"action": {"name": "add_item", "arguments": arguments}}
    response = client.post(f"/v1/sessions/{sid}/step", json=big)
    assert response.status_code == 413 and response.json()["error"]["code"] == "REQUEST_TOO_LARGE"

    def chunks():
        yield b'{"action": "'
        for _ in range(20):
            yield b"y" * 1000
        yield b'"}'

    chunked = client.post(f"/v1/sessions/{sid}/step", content=chunks(),
                          headers={"content-type": "application/json"})
    assert chunked.status_code == 413
    assert client.get(f"/v1/sessions/{sid}").json()["steps"] == 0


def test_sessions_cannot_touch_each_other(client):
    a, b = reset(client)["session_id"], reset(client)["session_id"]
    client.post(f"/v1/sessions/{a}/step", json={"action": CALL})
    state_a, state_b = (client.get(f"/v1/sessions/{s}").json() for s in (a, b))
    assert state_a["db_hash"] != state_b["db_hash"] and state_b["steps"] == 0


def test_websocket_step_loop(client):
    with client.websocket_connect("/v1/ws") as ws:
        ws.send_json({"op": "step", "action": CALL})
        assert ws.receive_json()["error"]["code"] == "NO_EPISODE"
        ws.send_json({"op": "reset", "env_id": "tiny", "task_id": "complete-item-3"})
        started = ws.receive_json()
        assert started["op"] == "reset" and started["info"]["task_id"] == "complete-item-3"
        ws.send_json({"op": "step", "action": CALL})
        assert ws.receive_json()["info"]["ok"]
        for bad in ("garbage", "[1]", '{"op": "fly"}', '{"op": "reset", "env_id": 3}'):
            ws.send_text(bad)
            assert ws.receive_json()["op"] == "error"
        ws.send_bytes(b"\xff\xfe")
        assert ws.receive_json()["op"] == "error"
        ws.send_json({"op": "step", "action": {"name": "submit"}})
        assert ws.receive_json()["reward"] == 1.0
        ws.send_json({"op": "state"})
        assert ws.receive_json()["state"]["terminated"]
    assert client.get("/healthz").json()["sessions"] == 0


def test_metrics_cover_sessions_steps_latency_and_errors(client):
    sid = reset(client)["session_id"]
    client.post(f"/v1/sessions/{sid}/step", json={"action": CALL})
    client.post("/v1/sessions", json={"env_id": "nope"})
    text = client.get("/metrics").text
    assert 'agentworld_sessions_created_total{env="tiny"} 1.0' in text
    assert 'agentworld_steps_total{env="tiny",outcome="ok"} 1.0' in text
    assert "agentworld_step_latency_seconds_count 1.0" in text
    assert 'agentworld_errors_total{code="UNKNOWN_ENVIRONMENT"} 1.0' in text
    assert "agentworld_live_sessions 1.0" in text
