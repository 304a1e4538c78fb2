import json
import re

import pytest

from agentworld.servers import Environment, Session
from agentworld.servers.world.filters import run_filters
from agentworld.servers.world.mined.compile import MIN_TOOLS, compile_mined, env_id_for

from ._surfaces import PRICES_TOOLS, STUDIO_TOOLS, TRACKER_TOOLS, _p, record


@pytest.fixture(scope="module")
def tracker():
    compiled = compile_mined(record("tracker-mcp", TRACKER_TOOLS))
    return compiled, Environment(compiled.definition).warm()


def _session(env):
    return Session(env, seed=0)


def test_the_real_surface_is_kept_name_for_name_and_type_for_type(tracker):
    compiled, env = tracker
    kept = {t["name"]: t for t in TRACKER_TOOLS}
    for spec in env.tools:
        if spec.name not in kept:
            continue
        declared = kept[spec.name]["params"]
        schema = spec.input_schema
        assert list(schema["properties"]) == [p["name"] for p in declared]
        assert schema["required"] == [p["name"] for p in declared if p["required"]]
        for p in declared:
            assert schema["properties"][p["name"]].get("type") == p["type"]
            if "enum" in p:
                assert schema["properties"][p["name"]]["enum"] == p["enum"]


def test_provenance_names_the_package_and_every_dropped_tool(tracker):
    compiled, _ = tracker
    prov = compiled.definition.manifest.provenance
    assert prov["package"] == "tracker-mcp" and prov["version"] == "1.2.0"
    assert prov["sha256"] == "ab" * 32 and prov["licence"] == "MIT"
    assert {d["tool"] for d in prov["dropped"]} == {"tracker_run_script",
                                                   "tracker_take_screenshot",
                                                   "tracker_frobnicate"}
    assert all(d["reason"] for d in prov["dropped"])
    assert len(prov["kept"]) + len(prov["added"]) >= MIN_TOOLS


def test_the_three_filters_pass(tracker):
    compiled, _ = tracker
    report = run_filters(compiled)
    assert report.passed, report.problems
    assert report.rules >= 3


def test_reads_read_and_writes_persist(tracker):
    _, env = tracker
    s = _session(env)
    page = s.call("tracker_list_tasks", {"status": "todo", "limit": 5})
    assert page.ok and page.data["total"] >= 1
    assert all(t["status"] == "todo" for t in page.data["tasks"])
    project = s.call("tracker_create_project", {"name": "Harbor data migration", "budget": 1200.0})
    assert project.ok and isinstance(project.data["project"]["id"], int)
    pid = project.data["project"]["id"]
    task = s.call("tracker_create_task", {"project_id": pid, "title": "Map the old schema",
                                          "priority": 2, "labels": ["backend"]})
    assert task.ok and task.data["task"]["status"] == "todo"
    assert task.data["task"]["labels"] == ["backend"]
    listed = s.call("tracker_list_tasks", {"project_id": pid})
    assert [t["title"] for t in listed.data["tasks"]] == ["Map the old schema"]
    assert s.call("tracker_get_project", {"project_id": pid}).data["project"]["name"] == \
        "Harbor data migration"


def test_rules_refuse_and_leave_the_state_as_it_was(tracker):
    _, env = tracker
    s = _session(env)
    before = s.hash()
    assert s.call("tracker_create_task", {"project_id": 987654, "title": "x"}).code == "NOT_FOUND"
    assert s.call("tracker_get_task", {"task_id": 987654}).code == "NOT_FOUND"
    open_task = s.call("tracker_list_tasks", {"status": "todo", "limit": 1}).data["tasks"][0]
    assert s.call("tracker_reopen_task", {"task_id": open_task["id"]}).code == \
        "PRECONDITION_FAILED"
    used = s.call("tracker_get_task", {"task_id": open_task["id"]}).data["task"]["project_id"]
    assert s.call("tracker_delete_project", {"project_id": used}).code == "CONFLICT"
    assert s.call("tracker_list_tasks", {"sort_by": "shoe_size"}).code == "VALIDATION_ERROR"
    assert s.call("tracker_list_tasks", {"limit": 0}).code == "VALIDATION_ERROR"
    assert s.call("tracker_create_project", {"name": "x" * 5000}).code == "VALIDATION_ERROR"
    assert s.call("tracker_get_task", {"task_id": "1; DROP TABLE tasks"}).code == \
        "VALIDATION_ERROR"
    assert s.hash() == before
    closed = s.call("tracker_close_task", {"task_id": open_task["id"], "resolution": "fixed"})
    assert closed.ok and closed.data["task"]["status"] == "closed"
    assert s.call("tracker_reopen_task", {"task_id": open_task["id"]}).data["task"][
        "status"] == "open"


def test_a_small_surface_is_topped_up_and_the_added_tools_are_counted_apart():
    compiled = compile_mined(record("prices-mcp", PRICES_TOOLS, l2="Trading & Investing"))
    prov = compiled.definition.manifest.provenance
    assert len(prov["kept"]) == len(PRICES_TOOLS) and prov["added"]
    assert len(compiled.definition.tools) == MIN_TOOLS
    assert run_filters(compiled).passed
    env = Environment(compiled.definition).warm()
    s = _session(env)
    symbol = s.call("list_orders", {"limit": 1}).data["orders"][0]["symbol"]
    assert s.call("get_price", {"symbol": symbol}).ok       # one key pool for every table
    assert s.call("get_order_book", {"symbol": symbol}).ok


def test_env_ids_come_from_the_package_name():
    assert env_id_for("mcp-server-taiga") == "taiga"
    assert env_id_for("iflow-mcp-acme-netbox-mcp") == "acme-netbox"
    assert env_id_for("superset-mcp") == "superset"


@pytest.fixture(scope="module")
def studio():
    compiled = compile_mined(record("studio-mcp", STUDIO_TOOLS, l1="Media & Entertainment",
                                    l2="Music & Audio"))
    return compiled, Environment(compiled.definition).warm()


def test_a_title_the_tools_say_nothing_of_names_what_the_service_keeps(studio, tracker):
    assert studio[0].card.title == "Studio (items)"           # "studio" is in no tool name
    assert tracker[0].card.title == "Tracker"                 # tracker_list_tasks already says it


def test_seeded_values_take_the_shape_their_column_names_say(studio):
    compiled, env = studio
    db = _session(env).db
    tracks = {r["track_index"] for r in db.execute("SELECT track_index FROM tracks")}
    assert tracks == set(range(len(tracks)))                  # indexes count from 0
    for row in db.execute("SELECT * FROM items"):
        assert row["track_index"] in tracks                   # an item sits on a real track
        assert row["start_time"] <= row["end_time"]
        assert not row["title"].startswith("{")                # text, not a JSON object
        assert re.fullmatch(r"\d+\.\d+\.\d+", row["version"])
        assert re.fullmatch(r"[0-9a-f]{64}", row["checksum_sha256"])
        assert row["file_path"].startswith("/") and "." in row["file_path"].rsplit("/", 1)[-1]
        assert "source" not in json.loads(row["take_metadata"])
    colours = {r["color"] for r in db.execute("SELECT color FROM tracks")}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in colours)


def test_the_studio_passes_the_filters_and_renames_a_track(studio):
    compiled, env = studio
    report = run_filters(compiled)
    assert report.passed, report.problems
    s = _session(env)
    assert s.call("rename_track", {"track_index": 3, "new_name": "Lead vocal"}).ok
    assert s.db.execute("SELECT name FROM tracks WHERE track_index = 3").fetchone()[0] == \
        "Lead vocal"
    bad = s.call("get_item_properties", {"item": "ite_999999"})
    assert bad.code == "NOT_FOUND"


def test_a_record_that_has_a_total_of_its_own_is_read_as_a_record_not_as_a_page():
    from agentworld.servers.world.filters import _has_data

    # A mined record may be called "total" (get_order_total -> {"total": {...}}).
    assert _has_data("get_order_total", {"total": {"amount": 12.5, "currency": "EUR"}})
    assert not _has_data("list_orders", {"orders": [], "total": 0})
    assert _has_data("list_orders", {"orders": [{"id": 1}], "total": 1})


def test_paging_numbers_sent_as_digits_are_read_as_numbers():
    # A server that declares its paging parameters as strings, as some do.
    tools = [dict(t, params=[dict(p, type="string") if p["name"] in ("limit", "page") else p
                             for p in t["params"]]) for t in TRACKER_TOOLS]
    env = Environment(compile_mined(record("strpage-mcp", tools)).definition).warm()
    s = _session(env)
    first = s.call("tracker_list_projects", {"limit": "2", "page": "1"})
    second = s.call("tracker_list_projects", {"limit": "2", "page": "2"})
    assert first.ok and second.ok and len(first.data["projects"]) == 2
    assert {p["id"] for p in first.data["projects"]}.isdisjoint(
        p["id"] for p in second.data["projects"])
    for bad in ("0", "-1", "two", "1e9"):
        refused = s.call("tracker_list_projects", {"page": bad})
        assert not refused.ok and refused.error["code"] == "VALIDATION_ERROR"


def test_untagging_a_map_column_removes_its_keys_and_refuses_a_missing_one():
    tools = [
        {"name": "create_device", "source": "decorator",
         "params": [_p("name", required=True), _p("labels", "object")]},
        {"name": "get_device", "source": "decorator",
         "params": [_p("device_id", "integer", True)]},
        {"name": "list_devices", "source": "decorator", "params": [_p("limit", "integer")]},
        {"name": "untag_device", "source": "decorator",
         "params": [_p("device_id", "integer", True), _p("labels", "object", True)]},
    ]
    env = Environment(compile_mined(record("fleet-mcp", tools)).definition).warm()
    s = _session(env)
    before = s.call("get_device", {"device_id": 1}).data["device"]["labels"]
    assert set(before) == {"owner", "team"}
    after = s.call("untag_device", {"device_id": 1, "labels": {"owner": before["owner"]}})
    assert after.ok and after.data["device"]["labels"] == {"team": before["team"]}
    again = s.call("untag_device", {"device_id": 1, "labels": {"owner": ""}})
    assert not again.ok and again.error["code"] == "PRECONDITION_FAILED"
    assert s.call("get_device", {"device_id": 1}).data["device"]["labels"] == {
        "team": before["team"]}


# A calendar server's surface, the shape of the Google Calendar MCP servers on PyPI.
CALENDAR_TOOLS = [
    {"name": "list_calendars", "source": "decorator", "params": [_p("max_results", "integer")]},
    {"name": "create_calendar", "source": "decorator", "params": [_p("summary", required=True)]},
    {"name": "find_events", "source": "decorator",
     "params": [_p("calendar_id"), _p("time_min"), _p("time_max"), _p("query"),
                _p("max_results", "integer")]},
    {"name": "create_event", "source": "decorator",
     "params": [_p("calendar_id", required=True), _p("summary", required=True),
                _p("start_time", required=True), _p("end_time", required=True),
                _p("location")]},
    {"name": "update_event", "source": "decorator",
     "params": [_p("event_id", required=True), _p("summary"), _p("start_time"),
                _p("end_time")]},
    {"name": "delete_event", "source": "decorator", "params": [_p("event_id", required=True)]},
]


def test_a_calendars_time_window_lists_the_events_that_overlap_it_and_is_no_column():
    compiled = compile_mined(record("calendar-mcp", CALENDAR_TOOLS, l1="Productivity",
                                    l2="Calendar & Scheduling"))
    env = Environment(compiled.definition).warm()
    s = _session(env)
    columns = {r[1] for r in s.db.execute("PRAGMA table_info(events)")}
    assert {"start_time", "end_time"} <= columns and not columns & {"time_min", "time_max"}
    params = compiled.definition.tools.get("find_events").input_schema["properties"]
    assert "end time is at or after" in params["time_min"]["description"]
    assert "start time is at or before" in params["time_max"]["description"]
    events = s.db.execute("SELECT id, start_time, end_time FROM events").fetchall()
    window = ("2026-01-10T00:00:00Z", "2026-01-20T00:00:00Z")
    overlapping = {e["id"] for e in events if e["end_time"] >= window[0]
                   and e["start_time"] <= window[1]}
    listed = s.call("find_events", {"time_min": window[0], "time_max": window[1],
                                    "max_results": 100})
    assert listed.ok, listed
    assert {e["id"] for e in listed.data["events"]} == overlapping
    assert 0 < len(overlapping) < len(events)
