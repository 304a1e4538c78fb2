"""The web page's server side, in process: its static files and headers, the read-only JSON it
reads, and the guard that keeps other origins from driving the hub."""

from __future__ import annotations

import fnmatch
import tomllib

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from agentworld.hub.app import create_app
from agentworld.hub.settings import HubSettings
from agentworld.hub.web_routes import WEB_DIR
from agentworld.servers.taskgen.run import reference_records
from tests.hub.web_support import HOSTILE, web_catalog


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    return web_catalog(tmp_path_factory.mktemp("web"))


@pytest.fixture(scope="module")
def client(catalog):
    with TestClient(create_app(catalog)) as client:
        yield client


@pytest.fixture(scope="module")
def guarded(catalog):
    with TestClient(create_app(catalog, settings=HubSettings(token="s3cret"))) as client:
        yield client


# -- the page's files ----------------------------------------------------------------------------
def test_the_page_is_served_at_the_root_with_a_strict_policy(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "default-src 'none'" in policy
    assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    assert '<script type="module" src="/web/app.js">' in page.text
    script = client.get("/web/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert script.headers["x-content-type-options"] == "nosniff"


def test_every_shipped_file_is_served_and_nothing_else(client):
    names = sorted(p.name for p in WEB_DIR.iterdir() if p.is_file())
    assert {"index.html", "app.js", "app.css"} <= set(names)
    for name in names:
        assert client.get(f"/web/{name}").status_code == 200, name
    for bad in ("../app.py", "..%2Fapp.py", "%2e%2e/web_routes.py", "nope.js", "app.py"):
        response = client.get(f"/web/{bad}")
        assert response.status_code == 404 and "import" not in response.text


def test_the_wheel_ships_every_file_of_the_page():
    config = tomllib.loads((WEB_DIR.parents[1] / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["agentworld.hub"]
    for path in WEB_DIR.iterdir():
        assert any(fnmatch.fnmatch(f"web/{path.name}", p) for p in patterns), path.name


def test_no_third_party_code_is_shipped():
    # The page's scripts import only one another: no CDN, no vendored library.
    for path in WEB_DIR.glob("*.js"):
        text = path.read_text()
        for line in text.splitlines():
            if line.startswith("import "):
                assert '"./' in line, (path.name, line)
        assert "innerHTML" not in text and "insertAdjacentHTML" not in text, path.name
        assert "http://" not in text and "https://" not in text, path.name
    html = (WEB_DIR / "index.html").read_text()
    assert "http://" not in html and "https://" not in html


def test_the_files_are_open_but_the_data_needs_the_token(guarded):
    assert guarded.get("/").status_code == 200
    assert guarded.get("/web/app.css").status_code == 200
    assert guarded.get("/v1/web/catalog").status_code == 401
    wrong = guarded.get("/v1/web/catalog", headers={"authorization": "Bearer wrong"})
    assert wrong.status_code == 401
    ok = guarded.get("/v1/web/catalog", headers={"authorization": "Bearer s3cret"})
    assert ok.status_code == 200


# -- the JSON the page reads -----------------------------------------------------------------------
def test_catalog_lists_every_environment_with_provenance_and_tools(client, catalog):
    rows = client.get("/v1/web/catalog").json()["envs"]
    assert [r["id"] for r in rows] == catalog.ids()
    by_id = {r["id"]: r for r in rows}
    assert by_id["airline"]["provenance"] == "reference"
    assert by_id["airline"]["tools"] == len(catalog.load("airline").tools.names())
    assert by_id["airline"]["l1"] == catalog.manifest("airline").taxonomy.l1
    assert by_id["xss-probe"]["provenance"] == "added"


def test_environment_card_has_manifest_tools_and_rules(client, catalog):
    card = client.get("/v1/web/envs/airline").json()
    env = catalog.load("airline")
    assert card["description"] == env.manifest.description
    assert [t["name"] for t in card["tools"]] == env.tools.names()
    assert card["rules"][0]["text"] == env.manifest.rules[0].text
    assert card["data_sources"][0]["licence"] and card["origin"] == "reference"
    assert client.get("/v1/web/envs/nope").status_code == 404


def test_tasks_show_splits_and_points_but_not_the_answers(client):
    records = reference_records("airline")
    tasks = client.get("/v1/web/envs/airline/tasks").json()["tasks"]
    assert [t["id"] for t in tasks] == [r.id for r in records]
    assert {t["split"] for t in tasks} == {r.split for r in records}
    first = tasks[0]
    assert [c["name"] for c in first["checks"]] == [c["name"] for c in records[0].checks]
    assert sum(c["points"] for c in first["checks"]) == sum(c["points"] for c in records[0].checks)
    # The expected answer (23 seats) is in the rubric's spec, which the page never receives.
    assert "spec" not in str(first["checks"]) and records[0].reference_answer not in str(first)


def test_tables_are_read_from_the_state_a_fresh_session_starts_in(client, catalog):
    sid = client.post("/v1/sessions", json={"env_id": "xss-probe", "seed": 0}).json()["session_id"]
    step = client.post(f"/v1/sessions/{sid}/step", json={
        "action": {"name": "add_item", "arguments": {"list_id": "lst_home", "title": "new"}}})
    assert step.json()["info"]["ok"]
    preview = client.get("/v1/web/envs/xss-probe/tables?rows=3").json()
    tables = {t["name"]: t for t in preview["tables"]}
    assert set(tables) == {"items", "lists"}
    assert tables["items"]["count"] == 10 and len(tables["items"]["rows"]) == 3  # not 11
    assert tables["items"]["columns"] == ["id", "list_id", "title", "status", "created_at"]
    assert HOSTILE in {row[1] for row in tables["lists"]["rows"]}
    assert client.get("/v1/web/envs/xss-probe/tables?rows=0").status_code == 422
    assert client.get("/v1/web/envs/xss-probe/tables?rows=51").status_code == 422


def test_a_sessions_trajectory_has_every_step_and_the_verdict(client):
    record = reference_records("airline")[0]
    sid = client.post("/v1/sessions", json={"env_id": "airline", "task_id": record.id}
                      ).json()["session_id"]
    for name, arguments in record.reference_calls:
        client.post(f"/v1/sessions/{sid}/step", json={"action": {"name": name,
                                                                 "arguments": arguments}})
    client.post(f"/v1/sessions/{sid}/step", json={"action": {"name": "nope", "arguments": {}}})
    live = client.get(f"/v1/sessions/{sid}/trajectory").json()
    assert not live["finished"] and live["steps"][-1]["error_code"] == "UNKNOWN_TOOL"
    client.post(f"/v1/sessions/{sid}/step", json={"action": {
        "name": "submit", "arguments": {"answer": record.reference_answer}}})
    done = client.get(f"/v1/sessions/{sid}/trajectory").json()
    assert done["finished"] and done["passed"] and done["answer"] == record.reference_answer
    assert [s["tool"] for s in done["steps"]] == [n for n, _ in record.reference_calls] + ["nope"]
    assert done["steps"][0]["output"]["flight"]["flight_id"] == "MW342-2026-03-03"
    assert set(done["components"]) == {c["name"] for c in done["checks"]}
    assert client.get("/v1/sessions/unknown/trajectory").status_code == 404


# -- requests from another origin ------------------------------------------------------------------
def test_state_changing_requests_from_another_origin_are_refused(client):
    before = client.get("/healthz").json()["sessions"]
    body = {"env_id": "xss-probe", "seed": 0}
    for origin in ("http://evil.example", "null", "http://127.0.0.1.evil.example"):
        forged = client.post("/v1/sessions", json=body, headers={"origin": origin})
        assert forged.status_code == 403 and forged.json()["error"]["code"] == "CROSS_ORIGIN"
    assert client.get("/healthz").json()["sessions"] == before
    # The page itself (same origin) and clients that are not browsers (no Origin) are served.
    same = client.post("/v1/sessions", json=body, headers={"origin": "http://testserver"})
    assert same.status_code == 201
    assert client.post("/v1/sessions", json=body).status_code == 201
    sid = same.json()["session_id"]
    forged_step = client.post(f"/v1/sessions/{sid}/step",
                              content=b'{"action":{"name":"list_items"}}',
                              headers={"origin": "http://evil.example",
                                       "content-type": "text/plain"})
    assert forged_step.status_code == 403
    assert client.delete(f"/v1/sessions/{sid}", headers={"origin": "http://evil.example"}
                         ).status_code == 403
    assert client.get(f"/v1/sessions/{sid}").json()["steps"] == 0
    # Reading stays open to the same rules as before (a browser cannot read it cross-origin).
    read = client.get("/v1/web/catalog", headers={"origin": "http://evil.example"})
    assert read.status_code == 200


def test_websockets_from_another_origin_are_refused(client):
    with pytest.raises(WebSocketDisconnect) as closed:
        with client.websocket_connect("/v1/ws", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_text()
    assert closed.value.code == 1008
    with client.websocket_connect("/v1/ws", headers={"origin": "http://testserver"}) as ws:
        ws.send_json({"op": "reset", "env_id": "xss-probe"})
        assert "session_id" in ws.receive_json()


def test_a_world_environment_is_counted_once_it_is_opened(tmp_path):
    catalog = web_catalog(tmp_path, world=True)
    with TestClient(create_app(catalog)) as client:
        world_id = next(r["id"] for r in client.get("/v1/web/catalog").json()["envs"]
                        if catalog.is_synthesized(r["id"]))
        row = lambda: next(r for r in client.get("/v1/web/catalog").json()["envs"]  # noqa: E731
                           if r["id"] == world_id)
        before = row()["tools"]  # None unless the world's index carries tool counts
        tools = client.get(f"/v1/web/envs/{world_id}").json()["tools"]
        assert row()["tools"] == len(tools) == len(catalog.load(world_id).tools.names())
        assert before in (None, len(tools)) and row()["provenance"] == "synthesized"
