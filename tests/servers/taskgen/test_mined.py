"""Requests for mined environments, written from the compiler's bindings: every shape the
tracker surface supports, graded by the same gates as every task."""

from __future__ import annotations

import random
import re

import pytest

from agentworld.servers import Environment
from agentworld.servers.taskgen.gates import check_gates, replay
from agentworld.servers.taskgen.generate import generate_tasks
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.servers.taskgen.mined import _Context, mined_tasks
from agentworld.servers.tasks import VerifierInput
from agentworld.servers.world.mined.compile import compile_mined

from ..world.mined._surfaces import PRICES_TOOLS, TRACKER_TOOLS, record


@pytest.fixture(scope="module")
def tracker():
    compiled = compile_mined(record("tracker-mcp", TRACKER_TOOLS))
    return compiled, Environment(compiled.definition).warm()


def _tasks(compiled, env, count=12, seed=3):
    db = env.template.clone()
    try:
        return mined_tasks(env, compiled, db, random.Random(seed), count=count)
    finally:
        db.close()


def test_the_tracker_gets_requests_of_many_shapes_that_replay_and_pass_the_gates(tracker):
    compiled, env = tracker
    records = _tasks(compiled, env)
    shapes = {r.metadata["template"].split("+")[0] for r in records}
    assert {"change_field", "move", "add", "remove", "read_field"} <= shapes, shapes
    graph = ToolGraph.of(env.tools)
    for r in records:
        assert replay(env, r)[0] == 1.0, r.prompt
        ok, gate, _ = check_gates(env, r, graph=graph)
        assert ok, (gate, r.prompt)
        task = r.to_task()
        untouched = task.verifier(VerifierInput(env.template.clone(), env.template.clone(),
                                                None, ()))
        assert untouched.reward == 0.0, r.prompt


def test_requests_name_records_by_their_labels_never_by_tool_names(tracker):
    compiled, env = tracker
    tools = set(env.tools.names())
    for r in _tasks(compiled, env):
        assert not any(t in r.prompt for t in tools), r.prompt
        assert not re.search(r"\b(tsk|pro)_\d+", r.prompt), r.prompt
        assert '"' in r.prompt                       # a record or a value, quoted
        assert r.prompt.startswith(("I", "Quick", "Some")), r.prompt


def test_a_finder_is_the_servers_own_listing_and_shows_the_record(tracker):
    compiled, env = tracker
    ctx = _Context(env, compiled, env.template.clone(), random.Random(0))
    update = next(b for b in ctx.of("update") if b.entity == "task")
    row = ctx.rows("task")[25]
    calls = ctx.finder("task", row, update)
    assert calls and calls[0][0] == "tracker_list_tasks"
    assert ctx._shows(ctx.of("list", "task")[0], calls[0][1], row["id"])


def test_a_server_keyed_by_plain_values_states_the_key_and_needs_no_lookup():
    compiled = compile_mined(record("prices-mcp", PRICES_TOOLS, l1="Finance & Markets",
                                    l2="Trading & Investing"))
    env = Environment(compiled.definition).warm()
    for r in _tasks(compiled, env, count=6):
        assert replay(env, r)[0] == 1.0, r.prompt


def test_generation_serves_mined_requests_beside_graph_tasks(tracker):
    compiled, env = tracker
    records, report = generate_tasks(env, compiled=compiled, per_env=6)
    mined = [r for r in records if "/mined-" in r.id]
    assert len(mined) >= 3 and report.kept == len(records)
    assert all(r.kind == "programmatic" for r in mined)


def test_a_tool_that_takes_no_key_is_never_pointed_at_a_named_record(tracker):
    compiled, env = tracker
    ctx = _Context(env, compiled, env.template.clone(), random.Random(0))
    keyless = next(b for b in ctx.of("list") if b.entity == "task")
    assert ctx.finder("task", ctx.rows("task")[0], keyless) is None
    for r in _tasks(compiled, env):
        if r.metadata["template"] == "read_field":
            assert all(args for _, args in r.reference_calls[1:]), r.reference_calls
