import pytest

from agentworld.servers import Toolset
from agentworld.servers import schema as s
from agentworld.servers.errors import EnvironmentDefinitionError


def _declare(tools, **overrides):
    spec = {"description": "d", "input": s.obj({"a": s.string()}), "output": s.obj({})}
    spec.update(overrides)

    @tools.tool(**spec)
    def some_tool(ctx, a):
        return {}


@pytest.mark.parametrize("name", ["reset", "step", "state", "verify", "close", "submit"])
def test_reserved_names_are_refused(name):
    with pytest.raises(EnvironmentDefinitionError, match="reserved"):
        _declare(Toolset(), name=name)


def test_input_schema_must_forbid_extra_keys():
    with pytest.raises(EnvironmentDefinitionError, match="extra keys"):
        _declare(Toolset(), input={"type": "object", "properties": {}})


def test_invalid_schema_is_refused():
    with pytest.raises(EnvironmentDefinitionError, match="invalid JSON Schema"):
        _declare(Toolset(), output={"type": "object", "properties": {"x": {"type": 12}}})


@pytest.mark.parametrize("bad", [
    {"type": "object", "required": ["a", "a"]},                 # required names repeat
    {"type": "object", "required": "a"},
    {"type": "object", "description": 7},
    {"type": "object", "properties": {"x": {"type": "object", "properties": {
        "y": {"enum": "not-a-list"}}}}},                         # deep in a property
    {"type": "object", "properties": {"x": {"description": "ok", "minimum": "low"}}},
])
def test_the_part_by_part_check_refuses_what_the_meta_schema_refuses(bad):
    from jsonschema import Draft202012Validator, SchemaError

    with pytest.raises(SchemaError):
        Draft202012Validator.check_schema(bad)
    with pytest.raises(EnvironmentDefinitionError, match="invalid JSON Schema"):
        _declare(Toolset(), output=bad)


def test_duplicate_tool_is_refused():
    tools = Toolset()
    _declare(tools)
    with pytest.raises(EnvironmentDefinitionError, match="duplicate"):
        _declare(tools)


def test_read_only_tools_are_queries_and_idempotent():
    tools = Toolset()
    _declare(tools, read_only=True)
    spec = tools.get("some_tool")
    assert spec.kind == "query" and spec.annotations.idempotent
    assert spec.describe()["annotations"]["readOnlyHint"] is True


def test_obj_rejects_unknown_required_names():
    with pytest.raises(ValueError):
        s.obj({"a": s.string()}, required=["b"])
