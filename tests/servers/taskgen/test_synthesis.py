"""Graph-based and programmatic synthesis, and the gates every task passes."""

import random

import pytest

from agentworld.servers import default_catalog
from agentworld.servers.taskgen.gates import check_gates, random_agent_passes, replay
from agentworld.servers.taskgen.generate import generate_tasks, split_of
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.servers.taskgen.graph_tasks import graph_task
from agentworld.servers.taskgen.programmatic import programmatic_tasks


def test_graph_labels_tools_and_links_outputs_to_inputs(hotel):
    env, _ = hotel
    graph = ToolGraph.of(env.tools)
    assert graph.nodes["search_reservations"].kind == "query"
    assert graph.nodes["cancel_reservation"].kind == "mutation"
    # A listed reservation's id feeds the tools about one reservation...
    assert {"get_reservation", "cancel_reservation"} <= graph.edges["search_reservations"]
    # ...and a room's id feeds reservation searches filtered by room.
    assert "search_reservations" in graph.edges["get_room"]


def _graph_tasks(env, n, seed=1):
    graph, rng, out, i = ToolGraph.of(env.tools), random.Random(seed), [], 0
    while len(out) < n and i < 600:
        i += 1
        record = graph_task(env, graph, rng, length=rng.randint(3, 6), index=i)
        if record is not None:
            out.append(record)
    return out


def test_graph_tasks_pass_the_gates_and_never_quote_observed_ids(hotel):
    env, _ = hotel
    records = _graph_tasks(env, 5)
    assert len(records) == 5
    for record in records:
        ok, gate, _ = check_gates(env, record)
        assert ok, (gate, record.prompt)
        for _, args in record.reference_calls:
            for value in args.values():
                created = isinstance(value, str) and value[4:].isalnum() and len(value) == 14
                if created:  # an id generated during the chain (not a seeded row)
                    assert value not in record.prompt


def test_graph_tasks_on_a_hand_built_environment():
    env = default_catalog().load("airline")
    records = _graph_tasks(env, 2, seed=3)
    assert records and all(check_gates(env, r)[0] for r in records)


@pytest.mark.parametrize("long", [False, True])
def test_programmatic_tasks_replay_to_one_and_noop_to_zero(hotel, long):
    env, compiled = hotel
    db = env.template.clone()
    records = programmatic_tasks(env, compiled, db, random.Random(5), count=4, long=long)
    assert len(records) == 4
    for record in records:
        assert replay(env, record)[0] == 1.0
        assert check_gates(env, record)[0]
        if long:
            assert len(record.reference_calls) >= 15


def test_random_agents_almost_never_pass(hotel):
    env, compiled = hotel
    db = env.template.clone()
    records = programmatic_tasks(env, compiled, db, random.Random(9), count=6)
    records += _graph_tasks(env, 4, seed=9)
    passes = sum(random_agent_passes(env, r, episodes=5, steps=10, seed=1) for r in records)
    assert passes / (5 * len(records)) < 0.02


def test_generation_is_deterministic_and_split(hotel):
    env, compiled = hotel
    first, report = generate_tasks(env, compiled=compiled, per_env=10)
    second, _ = generate_tasks(env, compiled=compiled, per_env=10)
    assert [r.to_dict() for r in first] == [r.to_dict() for r in second]
    assert len(first) >= 10 and report.kept == len(first)
    assert sum(r.split == "long_horizon" for r in first) >= 1
    assert {split_of(r.id) for r in first} <= {"train", "eval", "test"}
    assert {r.kind for r in first} == {"graph", "programmatic"}


def test_a_walk_passes_json_columns_as_the_arrays_and_objects_their_parameters_declare():
    from agentworld.servers.taskgen.walk import _fit

    assert _fit('["a", "b"]', {"type": "array"}) == ["a", "b"]
    assert _fit('{"k": 1}', {"type": ["object", "null"]}) == {"k": 1}
    assert _fit("tag", {"type": "array"}) == ["tag"]
    assert _fit("[not json", {"type": "array"}) is None
    assert _fit(3, {"type": "object"}) is None
    assert _fit('["x"]', {"type": "string"}) == '["x"]'      # a string stays the text it is
    assert _fit(7, {"type": "integer"}) == 7
