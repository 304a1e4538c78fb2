"""Static extraction: decorator forms, signatures, Tool literals, bad sources."""

from __future__ import annotations

import json

from agentworld.servers.world.mine.extract import MAX_SCHEMA_BYTES, extract_sources

from ._packages import LOW_LEVEL_SOURCE, SERVER_SOURCE


def _tools(*sources: str):
    surface = extract_sources([(f"pkg/m{i}.py", s) for i, s in enumerate(sources)])
    return {t.name: t for t in surface.tools}, surface


def _params(tool):
    return {p.name: p for p in tool.params}


def test_every_decorator_form_names_its_tool():
    tools, _ = _tools(SERVER_SOURCE)
    assert list(tools) == ["list_dogs", "get_dog", "book_stay", "cancel_stay", "checkout_stay"]
    assert all(t.source == "decorator" for t in tools.values())


def test_signature_types_defaults_and_enums():
    tools, _ = _tools(SERVER_SOURCE)
    listing = _params(tools["list_dogs"])
    assert listing["status"].enum == ["boarding", "home"] and listing["status"].type == "string"
    assert listing["status"].default == "boarding" and not listing["status"].required
    assert listing["limit"].type == "integer" and listing["limit"].default == 20
    book = _params(tools["book_stay"])
    assert book["dog_id"].required and book["dog_id"].description == "the dog"
    assert book["nights"].required and book["nights"].type == "integer"
    assert book["nights"].description == "how many nights"
    assert book["size"].enum == ["small", "large"]          # a local Enum class
    assert book["notes"].type == "string" and not book["notes"].required
    assert book["tags"].type == "array" and book["tags"].items == "string"
    assert _params(tools["cancel_stay"])["reason"].default == "owner request"


def test_context_is_not_a_parameter_and_docstrings_describe():
    tools, _ = _tools(SERVER_SOURCE)
    assert list(_params(tools["get_dog"])) == ["dog_id"]
    assert tools["get_dog"].description == "Read one dog."
    assert tools["book_stay"].description == "Book a stay for a dog."


def test_tool_literals_read_their_schema():
    tools, _ = _tools(LOW_LEVEL_SOURCE)
    update = _params(tools["update_dog"])
    assert tools["update_dog"].source == "tool-literal"
    assert update["dog_id"].required and not update["weight"].required
    assert update["weight"].type == "number" and update["size"].enum == ["small", "large"]
    assert update["tags"].items == "string"
    assert tools["delete_dog"].params is None      # built at run time: name kept, params unknown


def test_facts_hold_no_words_of_the_author():
    tools, _ = _tools(SERVER_SOURCE, LOW_LEVEL_SOURCE)
    text = json.dumps([t.facts() for t in tools.values()])
    assert "the dog" not in text and "Book a stay" not in text and "Change a dog" not in text
    assert "description" not in text


def test_a_syntax_error_is_reported_and_the_rest_still_read():
    tools, surface = _tools("import mcp\n@mcp.tool(\ndef broken(:\n", SERVER_SOURCE)
    assert "list_dogs" in tools
    assert [p.code for p in surface.problems] == ["syntax-error"]


def test_first_definition_of_a_name_wins():
    tools, _ = _tools(SERVER_SOURCE, SERVER_SOURCE.replace("limit: int = 20", "page: int = 1"))
    assert "limit" in _params(tools["list_dogs"])


def _literal_tool(schema_text: str) -> str:
    return f"from mcp.types import Tool\nT = Tool(name='deep', inputSchema={schema_text})\n"


def test_recursive_schema_drops_the_tool_with_a_problem():
    schema = ('{"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}, '
              '"$defs": {"Node": {"type": "object", '
              '"properties": {"next": {"$ref": "#/$defs/Node"}}}}}')
    tools, surface = _tools(_literal_tool(schema))
    assert tools == {} and [p.code for p in surface.problems] == ["recursive-schema"]
    tools, surface = _tools(_literal_tool('{"properties": {"me": {"$ref": "#"}}}'))
    assert tools == {} and surface.problems[0].code == "recursive-schema"


def test_a_schema_nested_too_deep_is_refused():
    deep = "{'a': " * 60 + "1" + "}" * 60
    tools, surface = _tools(_literal_tool(deep))
    assert tools == {} and surface.problems[0].code == "deep-schema"


def test_an_oversized_schema_is_refused():
    enum = json.dumps(["x" * 100] * (MAX_SCHEMA_BYTES // 100 + 10))
    tools, surface = _tools(_literal_tool('{"properties": {"v": {"enum": ' + enum + "}}}"))
    assert tools == {} and surface.problems[0].code == "too-large"


def test_files_without_tools_are_not_parsed():
    # no marker: a file that would not even parse is skipped silently, not reported
    tools, surface = _tools("def broken(:\n")
    assert tools == {} and surface.problems == []


def test_a_servers_own_registrars_and_bare_tool_decorators():
    source = """
from myserver import tool, write_tool, registry

@tool
def list_boats(harbour: str): ...

@write_tool("book_berth")
def book(boat_id: str, nights: int = 1): ...

@registry.register_tool(name="release_berth")
def release(berth_id: str): ...

@tool_errors
def not_a_tool(x): ...

@server.call_tool()
async def handle_call_tool(name: str, arguments: dict): ...
"""
    tools, _ = _tools(source)
    assert list(tools) == ["list_boats", "book_berth", "release_berth"]
    assert _params(tools["book_berth"])["nights"].default == 1


def test_tools_declared_as_dict_literals():
    source = """
TOOLS = [
    {"name": "list_berths", "description": "Berths.",
     "inputSchema": {"type": "object", "properties": {"harbour": {"type": "string"}},
                     "required": ["harbour"]}},
    {"name": "not_a_tool", "colour": "red"},
]
"""
    tools, _ = _tools(source)
    assert list(tools) == ["list_berths"] and tools["list_berths"].source == "tool-literal"
    assert _params(tools["list_berths"])["harbour"].required


def test_behaviour_hints_are_read_and_kept_as_facts():
    source = """
from mcp.types import Tool, ToolAnnotations

@mcp.tool(annotations=ToolAnnotations(title="List", readOnlyHint=True, openWorldHint=False))
def list_boats(): ...

@mcp.tool(annotations={"destructiveHint": True, "title": "Sink"})
def sink_boat(boat_id: str): ...

T = Tool(name="repair_boat", inputSchema={}, annotations=ToolAnnotations(idempotentHint=True))
"""
    tools, _ = _tools(source)
    assert tools["list_boats"].facts()["hints"] == {"openWorldHint": False, "readOnlyHint": True}
    assert tools["sink_boat"].hints == {"destructiveHint": True}
    assert tools["repair_boat"].hints == {"idempotentHint": True}
    assert "title" not in json.dumps(tools["list_boats"].facts())
