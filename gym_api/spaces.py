"""Gymnasium spaces for tool-use environments: text observations and tool-call actions.

``gymnasium.spaces.Text`` needs a ``max_length`` and draws from a fixed alphabet, which fits
neither a prompt nor a JSON tool result, so observations use :class:`TextSpace` (any Unicode
string). Actions are tool calls; :class:`ToolCallSpace` knows every tool's input JSON Schema, so
``call in space`` validates a call and ``space.sample()`` makes a random valid one.

Both spaces are registered with Gymnasium's vector utilities (``batch_space``, ``concatenate``,
``create_empty_array``): a batch is a ``Tuple`` of per-environment spaces and a batched
observation is a tuple of strings, as Gymnasium does for its own ``Text`` space.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array
from gymnasium.vector.utils.space_utils import batch_differing_spaces
from jsonschema import Draft202012Validator

from agentworld.hub.actions import SUBMIT

from ._schema_sampler import Unsupported, sample_value

__all__ = ["TextSpace", "ToolCallSpace", "SUBMIT_SCHEMA"]

# `submit` is the episode's own verb, not a tool of the environment; it takes an optional answer.
SUBMIT_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {"answer": {"type": "string", "maxLength": 200}},
    "required": [], "additionalProperties": False}
_SAMPLE_TRIES = 20


class TextSpace(spaces.Space[str]):
    """Any Unicode string up to ``max_length`` characters (unbounded when None).

    An agentworld observation is the task prompt after ``reset`` and a JSON document (a tool's
    result or an error) after each ``step``. :meth:`sample` gives a small random JSON object.
    """

    def __init__(self, max_length: int | None = None, *, seed: int | None = None) -> None:
        if max_length is not None and max_length < 2:
            raise ValueError("max_length must be at least 2 (room for '{}')")
        self.max_length = max_length
        super().__init__(dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        if mask is not None or probability is not None:
            raise ValueError("TextSpace.sample takes no mask or probability")
        limit = 24 if self.max_length is None else max(0, min(24, self.max_length - 9))
        value = "".join(chr(int(c)) for c in self.np_random.integers(97, 123, size=limit))
        text = json.dumps({"text": value})
        return text if self.max_length is None or len(text) <= self.max_length else "{}"

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and (self.max_length is None or len(x) <= self.max_length)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TextSpace) and other.max_length == self.max_length

    __hash__ = None  # type: ignore[assignment]  # mutable (np_random), compared by value

    def __repr__(self) -> str:
        return f"TextSpace(max_length={self.max_length})"

    def to_jsonable(self, sample_n: Sequence[str]) -> list[str]:
        return list(sample_n)

    def from_jsonable(self, sample_n: Sequence[str]) -> list[str]:
        return list(sample_n)


class ToolCallSpace(spaces.Space[dict[str, Any]]):
    """Calls ``{"name": tool, "arguments": {...}}`` of an environment's tools, plus ``submit``.

    ``tools`` are the tool descriptions as MCP lists them (``name`` and ``inputSchema``; the
    ``tools`` of a reset's info). A value belongs to the space when it has exactly the keys
    ``name`` and ``arguments``, names a tool (or ``submit``), and its arguments satisfy that
    tool's input schema. ``step`` also accepts JSON strings and OpenAI ``tool_calls``; those are
    encodings of an action, not members of the space.

    :meth:`sample` picks a tool uniformly (``submit`` included) and generates arguments that
    satisfy its schema. The call is valid but not necessarily meaningful: ids are random, so the
    tool usually answers NOT_FOUND, which the agent reads as an observation. ``mask`` (an int8
    array over :attr:`names`, 1 = allowed) restricts the choice of tool.
    """

    def __init__(self, tools: Sequence[Mapping[str, Any]], *, include_submit: bool = True,
                 seed: int | None = None) -> None:
        # A JSON copy: the space must not share (or let callers mutate) the env's schemas.
        schemas = {str(t["name"]): json.loads(json.dumps(t.get("inputSchema", {})))
                   for t in tools}
        if include_submit:
            schemas.setdefault(SUBMIT, copy.deepcopy(SUBMIT_SCHEMA))
        if not schemas:
            raise ValueError("a ToolCallSpace needs at least one tool")
        self.schemas: dict[str, dict[str, Any]] = schemas
        self._validators: dict[str, Draft202012Validator] | None = None
        super().__init__(dtype=None, seed=seed)

    @property
    def names(self) -> list[str]:
        """The tool names, in the order ``mask`` refers to them."""
        return list(self.schemas)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def _validator(self, name: str) -> Draft202012Validator:
        if self._validators is None:
            # Built lazily and dropped when pickled: compiled validators are costly to copy, and
            # a vector env deep-copies its sub-spaces.
            self._validators = {n: Draft202012Validator(s) for n, s in self.schemas.items()}
        return self._validators[name]

    def contains(self, x: Any) -> bool:
        if not isinstance(x, Mapping) or set(x) != {"name", "arguments"}:
            return False
        name, arguments = x["name"], x["arguments"]
        if not isinstance(name, str) or name not in self.schemas:
            return False
        return isinstance(arguments, Mapping) and self._validator(name).is_valid(arguments)

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        names = self._choices(mask, probability)
        for _ in range(_SAMPLE_TRIES):
            name = names[int(self.np_random.integers(len(names)))]
            try:
                arguments = sample_value(self.np_random, self.schemas[name])
            except Unsupported:
                continue
            call = {"name": name, "arguments": arguments}
            if self.contains(call):
                return call
        if SUBMIT in names:
            # Always valid, so sample() never returns a value outside the space.
            return {"name": SUBMIT, "arguments": {}}
        raise RuntimeError(f"could not sample a valid call of {names} in {_SAMPLE_TRIES} tries")

    def _choices(self, mask: Any, probability: Any) -> list[str]:
        names = self.names
        if probability is not None:
            raise ValueError("ToolCallSpace.sample supports mask, not probability")
        if mask is None:
            return names
        mask = np.asarray(mask)
        if mask.shape != (len(names),) or not np.any(mask):
            raise ValueError(f"mask must have shape ({len(names)},) and allow at least one tool")
        return [name for name, allowed in zip(names, mask, strict=True) if allowed]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToolCallSpace) and other.schemas == self.schemas

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ToolCallSpace({', '.join(self.schemas)})"

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_validators"] = None
        return state

    def to_jsonable(self, sample_n: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return [json.loads(json.dumps(call)) for call in sample_n]

    def from_jsonable(self, sample_n: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        return [dict(call) for call in sample_n]


# -- vector environments ---------------------------------------------------------------------
# Gymnasium's fallback for unknown spaces already batches into a Tuple; registering the spaces
# makes that explicit and gives text observations an empty batch of strings instead of None.
@batch_space.register(TextSpace)
@batch_space.register(ToolCallSpace)
def _batch(space: spaces.Space, n: int = 1) -> spaces.Tuple:
    batched = spaces.Tuple(tuple(copy.deepcopy(space) for _ in range(n)),
                           seed=copy.deepcopy(space.np_random))
    # Independent sub-space seeds drawn from a copy, so batching never advances the original.
    rng = copy.deepcopy(space.np_random)
    batched.seed([int(s) for s in rng.integers(0, 10**8, n)])
    return batched


@batch_differing_spaces.register(TextSpace)
def _batch_differing(subspaces: Sequence[TextSpace]) -> spaces.Tuple:
    return spaces.Tuple(tuple(copy.deepcopy(s) for s in subspaces))


@concatenate.register(TextSpace)
@concatenate.register(ToolCallSpace)
def _concatenate(space: spaces.Space, items: Any, out: Any) -> tuple[Any, ...]:
    return tuple(items)


@create_empty_array.register(TextSpace)
def _empty_text(space: TextSpace, n: int = 1, fn: Any = np.zeros) -> tuple[str, ...]:
    return tuple("" for _ in range(n))


@create_empty_array.register(ToolCallSpace)
def _empty_calls(space: ToolCallSpace, n: int = 1, fn: Any = np.zeros) -> tuple[None, ...]:
    return tuple(None for _ in range(n))
