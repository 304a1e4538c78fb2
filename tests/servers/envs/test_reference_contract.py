"""What every reference environment must do, checked the same way for each.

Hostile arguments to every tool: a clear tool error with the right code, the database unchanged,
and the session still serving. Sessions isolated from each other, starting at the template.
"""

from __future__ import annotations

import importlib

import pytest

from agentworld.servers import Session, default_catalog
from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS

CASES = [(env_id, tool) for env_id in sorted(REFERENCE_ENVIRONMENTS)
         for tool in default_catalog().load(env_id).tools.names()]
HOSTILE_STRINGS = ["' OR '1'='1", "x'); DROP TABLE users; --", "Zoë 🚀 日本 \u202e", "%", "_", ""]


def _example_arguments(env_id: str, tool: str) -> dict:
    calls = importlib.import_module(REFERENCE_ENVIRONMENTS[env_id]).EXAMPLE_CALLS
    return next(args for name, args in calls if name == tool)


def _wrong_type(schema: dict):
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    return {"string": 12345, "integer": "twelve", "number": "1.5x", "boolean": "yes",
            "array": {"not": "a list"}, "object": ["not", "an", "object"]}.get(kind, object)


def _refused(session: Session, tool: str, arguments, code: str = "VALIDATION_ERROR") -> None:
    """The call is refused and the session stays at the template state it started in."""
    result = session.call(tool, arguments)
    assert not result.ok and result.code == code, (tool, arguments, result.error)
    assert session.hash() == session.env.template.hash


@pytest.mark.parametrize("env_id, tool", CASES)
def test_every_tool_refuses_malformed_arguments(env_id, tool):
    env = default_catalog().load(env_id)
    session = Session(env, seed=5)
    schema = env.tool(tool).input_schema
    good = _example_arguments(env_id, tool)
    _refused(session, tool, {**good, "unexpected_argument": 1})
    _refused(session, tool, "not an object")
    for name in schema.get("required", []):
        _refused(session, tool, {k: v for k, v in good.items() if k != name})
    for name, prop in schema["properties"].items():
        wrong = _wrong_type(prop)
        if wrong is not object:
            _refused(session, tool, {**good, name: wrong})
        kinds = prop.get("type") if isinstance(prop.get("type"), list) else [prop.get("type")]
        if "string" in kinds:
            _refused(session, tool, {**good, name: "x" * 1_000_000})
            _refused(session, tool, {**good, name: "nul\x00inside"})
    # After all of that the session still serves, from the template state.
    assert session.hash() == env.template.hash
    probe, probe_args = next((n, a) for n, a in importlib.import_module(
        REFERENCE_ENVIRONMENTS[env_id]).EXAMPLE_CALLS if env.tool(n).annotations.read_only)
    assert session.call(probe, probe_args).ok
    session.close()


@pytest.mark.parametrize("env_id, tool", CASES)
def test_hostile_strings_are_data_never_sql_or_crashes(env_id, tool):
    env = default_catalog().load(env_id)
    schema = env.tool(tool).input_schema
    good = _example_arguments(env_id, tool)
    strings = [n for n, p in schema["properties"].items() if p.get("type") == "string"
               and "enum" not in p and "pattern" not in p]
    schema_sql = "SELECT group_concat(sql) FROM sqlite_master"
    template_schema = env.template.clone().execute(schema_sql).fetchone()[0]
    for name in strings:
        for value in HOSTILE_STRINGS:
            session = Session(env, seed=5)
            result = session.call(tool, {**good, name: value})
            assert result.code != "INTERNAL_ERROR", (tool, name, value, result.error)
            if not result.ok:
                assert session.hash() == env.template.hash  # a fresh session is the template
            assert session.db.execute(schema_sql).fetchone()[0] == template_schema
            assert session.db.execute("PRAGMA foreign_key_check").fetchall() == []
            session.close()


@pytest.mark.parametrize("env_id", sorted(REFERENCE_ENVIRONMENTS))
def test_sessions_are_isolated_and_start_at_the_template(env_id):
    env = default_catalog().load(env_id)
    busy, quiet = Session(env, seed=0), Session(env, seed=0)  # EXAMPLE_CALLS are for seed 0
    for name, arguments in importlib.import_module(REFERENCE_ENVIRONMENTS[env_id]).EXAMPLE_CALLS:
        assert busy.call(name, arguments).ok
    assert busy.hash() != env.template.hash
    assert quiet.hash() == env.template.hash == Session(env).hash()
