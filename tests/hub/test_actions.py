import json

import pytest

from agentworld.hub.actions import MalformedAction, Submit, ToolCall, parse_action

CALL = ToolCall("get_page", {"page_id": "pg_1"})


@pytest.mark.parametrize("action", [
    {"name": "get_page", "arguments": {"page_id": "pg_1"}},
    {"name": "get_page", "arguments": '{"page_id": "pg_1"}'},
    json.dumps({"name": "get_page", "arguments": {"page_id": "pg_1"}}),
    json.dumps({"name": "get_page", "arguments": {"page_id": "pg_1"}}).encode(),
    {"tool_calls": [{"id": "c1", "type": "function",
                     "function": {"name": "get_page", "arguments": '{"page_id": "pg_1"}'}}]},
    {"type": "function", "function": {"name": "get_page", "arguments": '{"page_id": "pg_1"}'}},
])
def test_tool_call_shapes(action):
    assert parse_action(action) == CALL


def test_missing_arguments_mean_an_empty_object():
    assert parse_action({"name": "list_members"}) == ToolCall("list_members", {})


def test_submit_with_and_without_answer():
    assert parse_action({"name": "submit", "arguments": {"answer": 42}}) == Submit("42")
    assert parse_action({"name": "submit"}) == Submit(None)


@pytest.mark.parametrize("action, fragment", [
    ("not json", "malformed"),
    (17, "JSON object"),
    ([1, 2], "JSON object"),
    ({"arguments": {}}, "no tool name"),
    ({"name": "", "arguments": {}}, "no tool name"),
    ({"name": "x", "arguments": "{broken"}, "not valid JSON"),
    ({"name": "x", "arguments": [1]}, "JSON object"),
    ({"tool_calls": []}, "non-empty"),
    (b"\xff\xfe", "malformed"),
    ("x" * 300_000, "longer than"),
])
def test_malformed_actions_explain_themselves(action, fragment):
    parsed = parse_action(action)
    assert isinstance(parsed, MalformedAction)
    assert fragment in parsed.reason
