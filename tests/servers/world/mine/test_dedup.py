"""Republished copies are found by their tool surface and one of each is kept."""

from __future__ import annotations

from agentworld.servers.world.mine.dedup import base_name, find_copies

TOOLS = ["list_flows", "get_flow", "cancel_flow_run", "create_flow_run"]
OTHER = ["list_dogs", "get_dog", "book_stay", "cancel_stay"]


def test_a_prefixed_copy_with_the_same_surface_loses_to_the_original():
    copies = find_copies({"mseep-prefect-mcp": TOOLS, "prefect-mcp": list(reversed(TOOLS)),
                          "iflow-mcp-someone-prefect-mcp": TOOLS})
    assert {(c.name, c.kept, c.how) for c in copies} == {
        ("mseep-prefect-mcp", "prefect-mcp", "same-surface"),
        ("iflow-mcp-someone-prefect-mcp", "prefect-mcp", "same-surface")}


def test_a_copy_a_release_apart_is_found_by_its_base_name():
    newer = TOOLS + ["delete_flow"]
    copies = find_copies({"prefect-mcp": newer, "mseep-prefect-mcp": TOOLS})
    assert [(c.name, c.kept, c.how) for c in copies] == [
        ("mseep-prefect-mcp", "prefect-mcp", "same-base-name")]


def test_different_servers_are_not_copies():
    surfaces = {"prefect-mcp": TOOLS, "mseep-airflow-mcp": ["list_dags", "get_dag", "pause_dag"],
                "mseep-prefect-mcp": ["search_docs"], "empty-mcp": []}
    assert find_copies(surfaces) == []


def test_without_an_original_the_fuller_then_shorter_name_is_kept():
    copies = find_copies({"mseep-a-mcp": TOOLS, "iflow-mcp-x-a-mcp": TOOLS,
                          "mseep-b-mcp": OTHER, "iflow-mcp-b-mcp": OTHER + ["x"]})
    assert [(c.name, c.kept) for c in copies] == [("iflow-mcp-x-a-mcp", "mseep-a-mcp"),
                                                  ("mseep-b-mcp", "iflow-mcp-b-mcp")]


def test_base_name_strips_one_republishing_prefix():
    assert base_name("mseep_Prefect.MCP") == "prefect-mcp"
    assert base_name("mseep-") == "mseep-"
