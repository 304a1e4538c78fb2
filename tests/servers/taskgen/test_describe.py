"""Graph-task text: a request names the act, never the server's prefix or an empty argument."""

from agentworld.servers.taskgen.describe import describe_chain
from agentworld.servers.taskgen.graph import ToolGraph, server_prefix
from agentworld.servers.taskgen.walk import Chain, Step
from agentworld.servers.world.mined.compile import compile_mined

from ..world.mined._surfaces import TRACKER_TOOLS, _p, record


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


def test_a_request_leaves_out_the_my_and_all_of_a_tool_name():
    # Canvas's list_my_announcements read "Find the my announcements".
    tools = [{"name": "list_my_announcements", "source": "decorator", "params": []},
             {"name": "get_all_statuses", "source": "decorator", "params": []},
             {"name": "create_page_rule_tool", "source": "decorator",
              "params": [_p("target", required=True)]},
             {"name": "create_announcement", "source": "decorator",
              "params": [_p("title", required=True), _p("confirmation_token", required=True)]}]
    env = compile_mined(record("lms-mcp", tools)).definition
    graph = ToolGraph.of(env.tools)
    assert graph.nodes["list_my_announcements"].noun == "announcement"
    assert graph.nodes["get_all_statuses"].noun == "status"
    assert graph.nodes["create_page_rule_tool"].noun == "page_rule"
    chain = Chain([Step("list_my_announcements", {}, {}, {"announcements": [], "total": 0}),
                   Step("get_all_statuses", {}, {}, {"statuses": []}),
                   Step("create_announcement", {"title": "Exam moved",
                                                "confirmation_token": "Confirmed"}, {},
                        {"announcement": {"id": 1}})])
    text = describe_chain(chain, graph, None, title="the course")
    assert "Find the announcements" in text and " my " not in text
    # A token the server takes is no part of the request (Canvas's confirmation_token).
    assert 'title "Exam moved"' in text and "token" not in text and "Confirmed" not in text
