"""Property-based fuzzing of every tool of the reference environments and the tiny fixture.

Arguments are drawn from each tool's own input schema, then made hostile: injection strings,
control characters, huge and negative numbers, wrong types, missing and extra keys, or an
arbitrary JSON object. Every call must end as a success or a clear tool error (never
INTERNAL_ERROR, never an exception), and the database must stay consistent: no foreign key
violations, ``integrity_check`` ok, and CHECK constraints still enforced.

Also checks the runtime's fast schema pre-check against jsonschema: it may never call valid
what jsonschema calls invalid.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from agentworld.servers import Catalog, Session, default_catalog
from agentworld.servers.runtime import _certainly_valid, _compiled
from tests.fixtures.tiny_env import DEFINITION as TINY

HOSTILE_STRINGS = ["", " ", "' OR '1'='1", "'); DROP TABLE users;--", '" OR ""="', "%", "_",
                   "../../etc/passwd", "\\", "\u202e\u0000"[:1], "😀" * 50, "a" * 300,
                   "null", "None", "-1", "1e309", "\n\r\t", "<script>", "${jndi:x}",
                   "usr_0000000000", "2026-02-30", "9999-99-99T99:99:99Z"]
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                         st.floats(allow_nan=False, allow_infinity=False),
                         st.text(max_size=30), st.sampled_from(HOSTILE_STRINGS))
ANY_JSON = st.recursive(JSON_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=10), inner, max_size=3)),
    max_leaves=8)


def _strings(schema: dict) -> st.SearchStrategy:
    base = st.text(min_size=schema.get("minLength", 0), max_size=min(
        schema.get("maxLength", 40), 40))
    if "enum" in schema:
        base = st.sampled_from([v for v in schema["enum"] if v is not None] or [""])
    return st.one_of(base, st.sampled_from(HOSTILE_STRINGS))


def from_schema(schema: Any, depth: int = 0) -> st.SearchStrategy:
    """Values shaped by ``schema``, with a hostile or wrong-typed value some of the time."""
    if not isinstance(schema, dict) or depth > 4:
        return ANY_JSON
    if "anyOf" in schema:
        return st.one_of([from_schema(s, depth + 1) for s in schema["anyOf"]])
    kind = schema.get("type")
    kind = kind[0] if isinstance(kind, list) else kind
    if kind == "object":
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if k in props]
        optional = [k for k in props if k not in required]
        shaped = st.fixed_dictionaries(
            {k: from_schema(props[k], depth + 1) for k in required},
            optional={k: from_schema(props[k], depth + 1) for k in optional})
        extra = st.dictionaries(st.sampled_from(["evil", "__class__", "actor_id'--"]),
                                JSON_SCALARS, max_size=1)
        dropped = shaped.map(lambda d: dict(list(d.items())[1:]))
        return st.one_of(shaped, shaped, shaped, st.tuples(shaped, extra).map(
            lambda p: {**p[0], **p[1]}), dropped, ANY_JSON)
    if kind == "array":
        return st.one_of(st.lists(from_schema(schema.get("items", {}), depth + 1), max_size=4),
                         ANY_JSON)
    if kind == "string":
        return st.one_of(_strings(schema), _strings(schema), JSON_SCALARS)
    if kind in ("integer", "number"):
        lo, hi = schema.get("minimum"), schema.get("maximum")
        edges = [v for v in (lo, hi, 0, -1, 1, 2**31, 2**63, -(2**63), 10**20) if v is not None]
        return st.one_of(st.integers(-(2**64), 2**64), st.sampled_from(edges), JSON_SCALARS)
    if kind == "boolean":
        return st.one_of(st.booleans(), JSON_SCALARS)
    return ANY_JSON


def _catalog() -> Catalog:
    return default_catalog()


def _tiny() -> Catalog:
    catalog = Catalog(modules={})
    catalog.add(TINY)
    return catalog


def _cases() -> list[tuple[str, str]]:
    # write_then_crash crashes on purpose (it tests rollback), so it is left out.
    cases = [("tiny", name) for name in TINY.tools.names() if name != "write_then_crash"]
    for env_id in ("notion", "github", "airline"):
        cases += [(env_id, name) for name in _catalog().definition(env_id).tools.names()]
    return cases


def _env(env_id: str):
    return (_tiny() if env_id == "tiny" else _catalog()).load(env_id)


def _assert_consistent(db: sqlite3.Connection) -> None:
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize("env_id,tool", _cases())
def test_hostile_arguments_never_crash_a_tool(env_id, tool):
    env = _env(env_id)
    session = Session(env, seed=1)
    seen: set[str] = set()

    @settings(max_examples=12, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(arguments=from_schema(env.tool(tool).input_schema))
    def call(arguments):
        result = session.call(tool, arguments)
        assert result.ok or result.code != "INTERNAL_ERROR", (tool, arguments, result.error)
        seen.add("ok" if result.ok else result.code)

    try:
        call()
        _assert_consistent(session.db)
    finally:
        session.close()
    assert seen


def test_check_constraints_hold_against_direct_writes():
    """SQLite enforces CHECK: an UPDATE that would break one fails and is not persisted, and a
    tool's attempt comes back as a CONFLICT with the database unchanged."""
    session = Session(_env("tiny"))
    try:
        with pytest.raises(sqlite3.IntegrityError):
            session.db.execute("UPDATE items SET status = 'bogus' WHERE id = 'itm_1'")
        assert session.db.execute(
            "SELECT status FROM items WHERE id = 'itm_1'").fetchone()[0] == "open"
        with pytest.raises(sqlite3.IntegrityError):
            session.db.execute("INSERT INTO items VALUES ('x', 'no_such_list', 't', 'open', 'c')")
        _assert_consistent(session.db)
    finally:
        session.close()


def _all_validators():
    for env_id in ("tiny", "notion", "github", "airline"):
        env = _env(env_id)
        for name in env.tools.names():
            yield f"{env_id}.{name}.in", env.input_validators[name]
            yield f"{env_id}.{name}.out", env.output_validators[name]


@pytest.mark.parametrize("label,validator", list(_all_validators()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_the_fast_precheck_never_accepts_what_jsonschema_rejects(label, validator):
    assert _compiled(validator) is not None, f"{label}: jsonschema-rs refused the schema"

    def check(value: Any) -> bool:
        return _certainly_valid(validator, value)

    @settings(max_examples=25, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(value=from_schema(validator.schema))
    def agree(value):
        if check(value):
            assert validator.is_valid(value), (label, value)

    agree()


def test_the_fast_precheck_on_edge_values():
    schema = {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 0}, "x": {"type": "number", "maximum": 1},
        "e": {"type": ["string", "null"], "enum": ["a", None]},
        "m": {"type": "object", "additionalProperties": {"type": "string"},
              "propertyNames": {"maxLength": 2}}},
        "required": ["n"], "additionalProperties": False}
    strict = Draft202012Validator(schema)

    def check(value: Any) -> bool:
        return _certainly_valid(strict, value)

    for value in [{"n": 0}, {"n": True}, {"n": 1.0}, {"n": -1}, {"n": 0, "x": float("nan")},
                  {"n": 0, "e": None}, {"n": 0, "e": "b"}, {"n": 0, "z": 1}, {},
                  {"n": 0, "m": {"ab": "x"}}, {"n": 0, "m": {"abc": "x"}}, {"n": 0, "m": {"a": 1}},
                  {"n": 0, "x": False}, {"n": 0, "e": 0}, {"n": 2**70}, {"n": -(2**70)},
                  {"n": 0, "m": {"ab": "\ud800"}}, {1: 0}]:
        if check(value):
            assert strict.is_valid(value), value
    assert check({"n": 0, "m": {"ab": "x"}}) and not check({"n": True})
    # A value the Rust validator cannot read (a non-string key) falls back instead of raising.
    assert check({1: 0}) is False
