"""TextSpace and ToolCallSpace: membership, sampling from tool schemas, copying, batching."""

from __future__ import annotations

import copy
import pickle
import re
from datetime import date, datetime

import numpy as np
import pytest
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate
from jsonschema import Draft202012Validator

from agentworld.gym_api import TextSpace, ToolCallSpace
from agentworld.gym_api._schema_sampler import DATE_PATTERN, DATETIME_PATTERN, sample_value
from agentworld.servers import Environment, default_catalog
from agentworld.servers import schema as s
from agentworld.servers.catalog import REFERENCE_ENVIRONMENTS
from tests.fixtures.tiny_env import DEFINITION as TINY
from tests.gym_api.conftest import require_reference

TINY_TOOLS = Environment(TINY).tool_list()

RICH = s.obj({
    "title": s.string(min_length=3, max_length=5),
    "due": s.date(), "at": s.datetime(),
    "count": s.integer(minimum=2, maximum=4), "ratio": s.number(minimum=0.5, maximum=0.75),
    "flag": s.boolean(), "state": s.enum(["open", "done"]),
    "tags": s.array(s.string(max_length=3), min_items=1, max_items=2),
    "ref": s.string(pattern=r"^[A-Za-z0-9]{6}$"),
    "repo": s.string(pattern=r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$", max_length=80),
    "maybe": s.nullable(s.integer(minimum=10, maximum=10)),
    "choice": {"anyOf": [{"type": "string", "const": "x"}, {"type": "integer", "minimum": 0}]},
    "props": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "note": s.text(),
}, required=["title", "due", "at", "count", "ratio", "flag", "state", "tags", "ref", "repo"])


def test_text_space_holds_any_string_and_samples_json():
    space = TextSpace(seed=0)
    assert "any ünïcode {json} or prose" in space and "" in space
    assert b"bytes" not in space and 3 not in space
    assert space.sample() in space and isinstance(space.sample(), str)
    short = TextSpace(max_length=10, seed=1)
    assert "x" * 11 not in short and short.sample() in short
    assert TextSpace() == TextSpace(seed=3) != TextSpace(max_length=10)


def test_tool_call_space_validates_calls_against_input_schemas():
    space = ToolCallSpace(TINY_TOOLS)
    assert space.names == ["list_items", "add_item", "complete_item", "write_then_crash",
                           "submit"]
    assert {"name": "list_items", "arguments": {"list_id": "lst_home"}} in space
    assert {"name": "submit", "arguments": {"answer": "5"}} in space
    assert {"name": "submit", "arguments": {}} in space
    for bad in [
        {"name": "list_items", "arguments": {}},                      # required key missing
        {"name": "list_items", "arguments": {"list_id": ""}},          # minLength
        {"name": "list_items", "arguments": {"list_id": "x" * 65}},    # maxLength
        {"name": "list_items", "arguments": {"list_id": 3}},           # type
        {"name": "list_items", "arguments": {"list_id": "a", "x": 1}},  # additionalProperties
        {"name": "nope", "arguments": {}},
        {"name": "list_items", "arguments": {"list_id": "a"}, "id": 1},
        {"name": "list_items"}, '{"name": "list_items"}', None,
    ]:
        assert bad not in space, bad


def test_samples_are_valid_deterministic_and_cover_every_tool():
    space = ToolCallSpace(TINY_TOOLS, seed=7)
    samples = [space.sample() for _ in range(300)]
    assert all(call in space for call in samples)
    assert {call["name"] for call in samples} == set(space.names)
    space.seed(7)
    assert [space.sample() for _ in range(300)] == samples


def test_mask_restricts_the_sampled_tool():
    space = ToolCallSpace(TINY_TOOLS, seed=0)
    mask = np.array([0, 1, 0, 0, 0], dtype=np.int8)
    assert {space.sample(mask=mask)["name"] for _ in range(20)} == {"add_item"}
    with pytest.raises(ValueError):
        space.sample(mask=np.zeros(5, dtype=np.int8))


def test_the_sampler_satisfies_rich_schemas():
    validator = Draft202012Validator(RICH)
    rng = np.random.default_rng(0)
    for _ in range(300):
        value = sample_value(rng, RICH)
        assert validator.is_valid(value), list(validator.iter_errors(value))
        date.fromisoformat(value["due"])  # real calendar dates, not just the right digits
        datetime.fromisoformat(value["at"].replace("Z", "+00:00"))
        assert re.fullmatch(DATE_PATTERN, value["due"]) and re.match(DATETIME_PATTERN, value["at"])


def test_a_schema_the_sampler_cannot_satisfy_falls_back_to_submit():
    lookahead = s.obj({"code": s.string(pattern=r"^(?=x)y$")})
    space = ToolCallSpace([{"name": "weird", "inputSchema": lookahead}], seed=0)
    samples = [space.sample() for _ in range(20)]
    assert all(call["name"] == "submit" and call in space for call in samples)


def test_spaces_copy_pickle_and_compare_by_value():
    space = ToolCallSpace(TINY_TOOLS, seed=1)
    call = space.sample()
    for other in (copy.deepcopy(space), pickle.loads(pickle.dumps(space))):
        assert other == space and call in other
    assert space != ToolCallSpace(TINY_TOOLS[:2])
    assert space.from_jsonable(space.to_jsonable([call])) == [call]


def test_vector_utilities_batch_both_spaces():
    obs_space, act_space = TextSpace(seed=0), ToolCallSpace(TINY_TOOLS, seed=0)
    batched_obs, batched_act = batch_space(obs_space, 3), batch_space(act_space, 3)
    assert create_empty_array(obs_space, 3) == ("", "", "")
    obs = concatenate(obs_space, ["a", "b", "c"], create_empty_array(obs_space, 3))
    assert obs == ("a", "b", "c") and obs in batched_obs
    actions = batched_act.sample()
    assert actions in batched_act and len(list(iterate(batched_act, actions))) == 3


@pytest.mark.parametrize("env_id", sorted(REFERENCE_ENVIRONMENTS))
def test_samples_are_valid_for_reference_envs(env_id):
    require_reference(env_id)
    space = ToolCallSpace(default_catalog().load(env_id).tool_list(), seed=0)
    samples = [space.sample() for _ in range(400)]
    assert all(call in space for call in samples)
    # Every tool gets sampled: the sampler supports every schema the environment uses.
    assert {call["name"] for call in samples} == set(space.names)


@pytest.mark.parametrize("schema", [
    {"type": "integer", "exclusiveMinimum": 3, "maximum": 5},
    {"type": "integer", "minimum": -10, "exclusiveMaximum": -9},
    {"type": "number", "exclusiveMaximum": -2},
    {"type": "number", "minimum": 1.5, "maximum": 1.5},
    {"type": ["string", "null"], "enum": ["a", None]},
    {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 3},
     "uniqueItems": True, "maxItems": 2},
])
def test_the_sampler_respects_bounds(schema):
    validator = Draft202012Validator(schema)
    rng = np.random.default_rng(1)
    assert all(validator.is_valid(sample_value(rng, schema)) for _ in range(100))
