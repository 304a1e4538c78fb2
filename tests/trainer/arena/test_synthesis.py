"""Targeted synthesis: the focused tool graph and how far synthesis goes to meet the focus."""

from agentworld.servers import default_catalog
from agentworld.servers.taskgen.graph import ToolGraph
from agentworld.trainer.arena.synthesis import Focus, _on_target, focused_graph


def test_the_focused_graph_keeps_the_graphs_order_and_drops_other_writes():
    env = default_catalog().load("airline")
    graph = ToolGraph.of(env.tools)
    writes = [n for n, node in graph.nodes.items() if node.kind == "mutation"]
    focus = writes[:1]
    focused = focused_graph(graph, focus)
    # A walk draws from the nodes as listed: the order is the graph's, never a set's.
    assert list(focused.nodes) == [n for n in graph.nodes if n in focused.nodes]
    assert {n for n, node in focused.nodes.items() if node.kind == "mutation"} == set(focus)
    assert all(focused.edges[n] <= set(focused.nodes) for n in focused.nodes)


class _Record:
    def __init__(self, calls):
        self.reference_calls = [[name, {}] for name in calls]


def test_a_candidate_is_on_target_when_it_calls_a_focus_tool_at_the_asked_length():
    focus = Focus(tools=("cancel_booking",), min_calls=4)
    assert _on_target(_Record(["search_flights", "get_booking", "get_seat", "cancel_booking"]),
                      focus)
    assert not _on_target(_Record(["get_booking", "cancel_booking"]), focus)
    assert not _on_target(_Record(["a", "b", "c", "d"]), focus)
    easier = Focus(tools=("cancel_booking",), max_calls=2)
    assert _on_target(_Record(["get_booking", "cancel_booking"]), easier)
