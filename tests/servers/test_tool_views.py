"""Tool views: compact schemas keep only types, the relevant subset puts the reference
solution's tools first, and a bad spec is a clear error."""

from __future__ import annotations

import json

import pytest

from agentworld.servers.tool_views import (
    ToolView,
    ToolViewError,
    apply_view,
    compact_schema,
    parse_view,
    relevant_tool_names,
)

TOOLS = [
    {"name": "list_orders", "description": "List the orders. Newest first, paged.",
     "inputSchema": {"type": "object", "properties": {
         "status": {"type": "string", "enum": ["open", "paid"], "description": "Filter."},
         "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}}}},
    {"name": "refund_order", "description": "Refund a paid order.",
     "inputSchema": {"type": "object", "required": ["order_id"], "properties": {
         "order_id": {"type": "string", "pattern": "^ord_", "description": "The order."},
         "lines": {"type": "array", "items": {"type": "object", "properties": {
             "sku": {"type": "string", "description": "x"}}}}}}},
    {"name": "get_weather", "description": "Weather for a city.",
     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}},
]


def test_compact_keeps_types_only():
    schema = compact_schema(TOOLS[1]["inputSchema"])
    assert schema == {"type": "object", "required": ["order_id"], "properties": {
        "order_id": {"type": "string"},
        "lines": {"type": "array", "items": {"type": "object",
                                             "properties": {"sku": {"type": "string"}}}}}}
    [first] = apply_view(TOOLS[:1], "compact")
    assert first["description"] == "List the orders."
    assert first["inputSchema"]["properties"] == {
        "status": {"type": "string", "enum": ["open", "paid"]}, "limit": {"type": "integer"}}
    assert len(json.dumps(apply_view(TOOLS, "compact"))) < len(json.dumps(TOOLS)) * 0.8


def test_relevant_order_puts_the_solution_first_then_shared_words():
    order = relevant_tool_names(TOOLS, prompt="What's the weather in Paris?",
                                used=["refund_order"])
    assert order == ["refund_order", "get_weather", "list_orders"]
    assert [t["name"] for t in apply_view(TOOLS, "full:2", relevant=order)] == \
        ["refund_order", "get_weather"]            # the environment's order, not the ranking
    assert [t["name"] for t in apply_view(TOOLS, "compact:1")] == ["list_orders"]
    assert apply_view(TOOLS, "full") == TOOLS


@pytest.mark.parametrize("spec", ["tiny", "compact:0", "compact:x", "full:-1", "compact:"])
def test_bad_specs(spec):
    with pytest.raises(ToolViewError, match="full, compact"):
        parse_view(spec)


def test_spec_round_trip():
    assert parse_view(None) == ToolView() and str(parse_view("compact:5")) == "compact:5"
    assert parse_view("full") == ToolView(compact=False, limit=None)


def test_hub_reset_names_the_relevance_order():
    from agentworld.hub.episode import Episode
    from agentworld.servers import Catalog
    from tests.fixtures.tiny_env import DEFINITION

    catalog = Catalog(modules={})
    catalog.add(DEFINITION)
    env = catalog.load("tiny")
    task = env.task("count-home")
    info = Episode(env, task=task).reset_info()
    assert info["relevant_tools"][0] == "list_items"
    assert sorted(info["relevant_tools"]) == sorted(t["name"] for t in info["tools"])
