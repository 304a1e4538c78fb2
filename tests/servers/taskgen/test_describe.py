"""Graph-task text: a request names the act, never the server's prefix or an empty argument."""

from agentworld.servers.taskgen.describe import describe_chain
from agentworld.servers.taskgen.graph import ToolGraph, server_prefix
from agentworld.servers.taskgen.walk import Chain, Step
from agentworld.servers.world.mined.compile import compile_mined

from ..world.mined._surfaces import TRACKER_TOOLS, record


def test_the_server_prefix_is_the_shared_first_word_that_is_no_act():
    assert server_prefix(["fintable_list_rules", "fintable_create_rule", "fintable_list_accounts",
                          "fintable_delete_rule"]) == "fintable_"
    assert server_prefix(["list_rules", "list_accounts", "list_categories"]) == ""
    assert server_prefix(["search_flights", "book_flight", "get_reservation"]) == ""


def test_a_prefixed_servers_request_names_acts_and_leaves_out_empty_arguments():
    env = compile_mined(record("tracker-mcp", TRACKER_TOOLS)).definition
    graph = ToolGraph.of(env.tools)
    assert graph.nodes["tracker_list_projects"].name == "list_projects"
    chain = Chain([
        Step("tracker_list_projects", {}, {}, {"projects": [], "total": 0}),
        Step("tracker_create_task", {"title": "Quarterly close", "labels": []}, {},
             {"task": {"id": 1}}),
    ])
    text = describe_chain(chain, graph, None, title="the team's board")
    assert "tracker" not in text.lower()
    assert "labels" not in text and "[]" not in text
    assert "Find the projects" in text and 'title "Quarterly close"' in text
