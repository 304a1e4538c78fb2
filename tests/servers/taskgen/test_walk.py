"""Where a walk takes a value it states: the tool's own table before any other."""

import random

from agentworld.servers import Environment, Session
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.servers.taskgen.walk import Binder
from agentworld.servers.world.mined.compile import compile_mined

from ..world.mined._surfaces import _p, record

# A google-analytics-4 shape: custom dimensions and custom metrics both have a display name.
ANALYTICS_TOOLS = [
    {"name": "list_custom_dimensions", "source": "decorator", "params": [_p("property_id")]},
    {"name": "create_custom_dimension", "source": "decorator",
     "params": [_p("property_id", required=True), _p("display_name", required=True)]},
    {"name": "list_custom_metrics", "source": "decorator", "params": [_p("property_id")]},
    {"name": "create_custom_metric", "source": "decorator",
     "params": [_p("property_id", required=True), _p("display_name", required=True)]},
    {"name": "list_properties", "source": "decorator", "params": [_p("account_id")]},
    {"name": "create_property", "source": "decorator",
     "params": [_p("display_name", required=True)]},
]


def test_a_value_comes_from_the_tools_own_table_when_it_has_the_column():
    env = Environment(compile_mined(record("analytics-mcp", ANALYTICS_TOOLS)).definition)
    graph = ToolGraph.of(env.tools)
    session = Session(env, seed=0)
    try:
        binder = Binder(session, random.Random(0))
        value, source = binder._from_db(graph.nodes["create_custom_metric"], "display_name")
        assert source == "db:custom_metrics" and value.endswith("custom metric")
        value, source = binder._from_db(graph.nodes["create_custom_dimension"], "display_name")
        assert source == "db:custom_dimensions" and value.endswith("custom dimension")
    finally:
        session.close()


CALENDAR_TOOLS = [
    {"name": "list_events", "source": "decorator", "params": [_p("calendar_id")]},
    {"name": "create_event", "source": "decorator",
     "params": [_p("calendar_id", required=True), _p("summary", required=True),
                _p("start_time", required=True), _p("end_time", required=True)]},
    {"name": "list_calendars", "source": "decorator", "params": []},
    {"name": "create_calendar", "source": "decorator", "params": [_p("summary", required=True)]},
]


def test_a_new_records_start_and_end_come_from_one_row_so_it_ends_after_it_starts():
    env = Environment(compile_mined(record("calendar-mcp", CALENDAR_TOOLS)).definition)
    graph = ToolGraph.of(env.tools)
    session = Session(env, seed=0)
    try:
        spans = {tuple(r) for r in session.db.execute("SELECT start_time, end_time FROM events")}
        for seed in range(20):
            bound = Binder(session, random.Random(seed)).bind(graph.nodes["create_event"], [])
            assert bound is not None
            args, sources = bound
            assert sources["start_time"] == sources["end_time"] == "db:events"
            assert (args["start_time"], args["end_time"]) in spans
            assert args["start_time"] < args["end_time"]
    finally:
        session.close()


NOTE_TOOLS = [
    {"name": "list_notes", "source": "decorator", "params": [_p("folder")]},
    {"name": "create_note", "source": "decorator",
     "params": [_p("title", required=True), _p("folder")]},
    {"name": "update_note", "source": "decorator",
     "params": [_p("note_id", required=True), _p("title"), _p("dry_run", "boolean"),
                _p("include_archived", "boolean")]},
    {"name": "delete_note", "source": "decorator",
     "params": [_p("note_id", required=True), _p("dry_run", "boolean", True),
                _p("confirm", "boolean", True)]},
]


def test_a_walk_sets_call_switches_only_when_required_and_so_the_work_happens():
    # OBS Studio's tasks read "Stop a sfx (dry run yes)": work that was not to happen.
    env = Environment(compile_mined(record("notes-mcp", NOTE_TOOLS)).definition)
    graph = ToolGraph.of(env.tools)
    session = Session(env, seed=0)
    try:
        for seed in range(30):
            binder = Binder(session, random.Random(seed))
            args, _ = binder.bind(graph.nodes["update_note"], [])
            assert not {"dry_run", "include_archived"} & set(args)
            args, _ = binder.bind(graph.nodes["delete_note"], [])
            assert args["dry_run"] is False and args["confirm"] is True
    finally:
        session.close()


BUDGET_TOOLS = [
    {"name": "list_budgets", "source": "decorator", "params": []},
    {"name": "create_budget", "source": "decorator",
     "params": [_p("name", required=True), _p("amount_micros", "integer", True)]},
    {"name": "update_budget", "source": "decorator",
     "params": [_p("budget_id", required=True), _p("new_amount_micros", "integer", True)]},
]


def test_a_new_value_comes_from_the_column_it_sets():
    # Google Ads' update_budget(new_amount_micros) asked for "new amount micros 11".
    env = Environment(compile_mined(record("ads-mcp", BUDGET_TOOLS)).definition)
    graph = ToolGraph.of(env.tools)
    session = Session(env, seed=0)
    try:
        seeded = {r[0] for r in session.db.execute("SELECT amount_micros FROM budgets")}
        args, sources = Binder(session, random.Random(0)).bind(graph.nodes["update_budget"], [])
        assert args["new_amount_micros"] in seeded and sources["new_amount_micros"] == \
            "db:budgets"
        assert args["new_amount_micros"] >= 5_000_000
    finally:
        session.close()
