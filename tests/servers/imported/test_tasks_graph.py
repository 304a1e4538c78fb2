"""Graph-based task synthesis runs on imported environments like on ours."""

import random

from agentworld.servers.taskgen.gates import check_gates
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.servers.taskgen.graph_tasks import graph_task


def test_graph_tasks_on_an_imported_environment(catalog):
    env_id = next(i for i in catalog.ids() if "borrow_book" in catalog.load(i).tools)
    env = catalog.load(env_id)
    graph = ToolGraph.of(env.tools)
    assert any(node.kind == "mutation" for node in graph.nodes.values())
    rng, made = random.Random(2), []
    for index in range(300):
        record = graph_task(env, graph, rng, length=3, index=index)
        if record is not None and check_gates(env, record, graph=graph)[0]:
            made.append(record)
        if len(made) >= 2:
            break
    assert made, "no graph task survived the gates on the imported library"
    assert all(r.env_id == env_id and r.kind == "graph" for r in made)
