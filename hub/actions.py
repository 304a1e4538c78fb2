"""Parsing an agent's action into a tool call or a final submit.

Accepted shapes, as a dict or as a JSON string of one:

* ``{"name": "get_page", "arguments": {...}}`` (``arguments`` may itself be a JSON string);
* OpenAI's ``{"tool_calls": [{"type": "function", "function": {"name", "arguments"}}]}``, or
  one element of that list, or its ``function`` object (only the first call is taken);
* ``{"name": "submit", "arguments": {"answer": "..."}}`` ends the episode with an answer.

A malformed action is not an exception: it becomes :class:`MalformedAction`, which the episode
turns into an observation that says what was wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._json import BadJson, loads

__all__ = ["ToolCall", "Submit", "MalformedAction", "Action", "parse_action", "SUBMIT"]

SUBMIT = "submit"
MAX_ACTION_CHARS = 256_000


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Submit:
    answer: str | None


@dataclass(frozen=True)
class MalformedAction:
    reason: str


Action = ToolCall | Submit | MalformedAction


def _unwrap_openai(action: dict[str, Any]) -> dict[str, Any]:
    if "tool_calls" in action:
        calls = action["tool_calls"]
        if not isinstance(calls, list) or not calls:
            raise ValueError("tool_calls must be a non-empty list")
        action = calls[0]
    if isinstance(action, dict) and "function" in action:
        action = action["function"]
    if not isinstance(action, dict):
        raise ValueError("a tool call must be an object")
    return action


def _arguments(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            raw = loads(raw) if raw.strip() else {}
        except BadJson as exc:
            raise ValueError(f"arguments: {exc}") from None
    if not isinstance(raw, dict):
        raise ValueError("arguments must be a JSON object")
    return raw


def parse_action(action: Any) -> Action:
    """Turn whatever the agent produced into a :data:`Action`. Never raises."""
    if isinstance(action, ToolCall | Submit | MalformedAction):
        return action  # parsed already (the hub parses once to route the call)
    try:
        if isinstance(action, bytes | bytearray):
            action = action.decode("utf-8")
        if isinstance(action, str):
            if len(action) > MAX_ACTION_CHARS:
                return MalformedAction(f"action is longer than {MAX_ACTION_CHARS} characters")
            try:
                action = loads(action)
            except BadJson as exc:
                return MalformedAction(f"malformed action: {exc}")
        if not isinstance(action, dict):
            return MalformedAction("an action must be a JSON object with a tool name")
        call = _unwrap_openai(action)
        name = call.get("name")
        if not isinstance(name, str) or not name:
            return MalformedAction('the action has no tool name (expected {"name", "arguments"})')
        arguments = _arguments(call.get("arguments"))
        if name == SUBMIT:
            answer = arguments.get("answer")
            return Submit(None if answer is None else str(answer))
        return ToolCall(name, arguments)
    except (ValueError, UnicodeDecodeError) as exc:
        return MalformedAction(f"malformed action: {exc}")
