"""One prompt rendering and one tool-call parser for every backend."""

from __future__ import annotations

from typing import Literal

import pytest

from agentworld.servers.taskgen.export import task_row
from agentworld.servers.taskgen.record import TaskRecord
from agentworld.trainer.prompting import (
    CHAT_TEMPLATE,
    SUBMIT_TOOL,
    chat_messages,
    tool_functions,
    tool_schemas,
)

transformers = pytest.importorskip("transformers")

TOOL = {"name": "book", "description": "Book a seat.\nOnly open flights.",
        "inputSchema": {"type": "object", "required": ["flight", "seats"],
                        "properties": {"flight": {"type": "string", "description": "Flight id"},
                                       "seats": {"type": "integer"},
                                       "class": {"type": "string",
                                                 "enum": ["economy", "business"]},
                                       "tags": {"type": "array", "items": {"type": "string"}}}}}


def test_schemas_carry_the_tool_json_schema():
    [schema, submit] = tool_schemas([SUBMIT_TOOL, TOOL])      # sorted by name
    fn = schema["function"]
    assert fn["name"] == "book" and fn["description"] == "Book a seat. Only open flights."
    props = fn["parameters"]["properties"]
    assert props["flight"] == {"type": "string", "description": "Flight id"}
    assert props["seats"]["type"] == "integer"
    # `class` is a Python keyword: renamed for the signature, renamed back on the call.
    assert props["class_"]["enum"] == ["economy", "business"]
    assert props["tags"] == {"type": "array", "items": {"type": "string"}, "description": "tags"}
    assert fn["parameters"]["required"] == ["flight", "seats"]
    assert submit["function"]["name"] == "submit"
    assert "answer" in submit["function"]["parameters"]["properties"]


def test_tool_function_calls_with_the_original_argument_names():
    calls = []
    [fn] = tool_functions([TOOL], lambda name, args: calls.append((name, args)) or "ok")
    assert fn(flight="F1", seats=2, class_="business") == "ok"
    assert calls == [("book", {"flight": "F1", "seats": 2, "class": "business"})]
    assert fn.__signature__.parameters["class_"].annotation == Literal["economy", "business"]


def test_chat_messages_are_the_exported_rows():
    record = TaskRecord(id="t1", env_id="e", kind="graph", prompt="Do it.", checks=[],
                        reference_calls=[])
    row = task_row(record, env_title="Env", tool_names=["a", "b"])
    assert chat_messages(env_title="Env", tool_names=["a", "b"], task_prompt="Do it.") == \
        row["prompt"]


def test_template_is_trl_qwen2_5_so_trl_parses_its_tool_calls():
    chat_template_utils = pytest.importorskip("trl.chat_template_utils")
    assert CHAT_TEMPLATE == chat_template_utils.qwen2_5_chat_template
