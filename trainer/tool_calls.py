"""The one reading of a model's reply, shared by TRL, OpenRLHF and evaluation.

TRL parses replies with transformers' response parser and dispatches the calls to the
environment's methods; OpenRLHF's agent and evaluation parse the text here. Both must act the
same, or a call rewarded in training fails in evaluation. The rules, checked against TRL's own
parser in ``tests/trainer/test_tool_calls.py``:

* Every ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` in a reply is a call, in
  order (a closing tag missing at the very end is forgiven). Missing or null arguments are ``{}``.
* String arguments are cast to the types of the rendered schema (``"42"`` becomes ``42`` for an
  integer parameter, stays ``"42"`` for a string one), as transformers does.
* If any ``<tool_call>`` body is not a JSON object with a string ``name``, the whole reply is
  plain text (TRL's fallback), so it is the final answer and the episode ends. A reply that is
  cut off by the token budget is not an answer at all (reward 0).
* A call to a tool that is not shown, or whose arguments are not an object, gets an error
  message back without reaching the hub (TRL cannot dispatch it either).
* Argument names renamed for the prompt (``class`` shows as ``class_``) are renamed back, and
  optional arguments given as null are dropped, as the TRL environment's methods do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentworld.hub.actions import SUBMIT

__all__ = ["ToolCall", "Reply", "HubAction", "parse_reply", "reply_actions", "answer_text",
           "cast_arguments"]

_SPECIAL = re.compile(r"<\|[^|>]*\|>")
_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>\s*|$)", re.DOTALL)


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: Any                      # a dict when well formed; TRL keeps other JSON as is


@dataclass(frozen=True)
class Reply:
    """A parsed reply: its calls (none for plain text) and its text. ``malformed`` says why a
    ``<tool_call>`` could not be read (the reply then counts as plain text)."""

    calls: tuple[ToolCall, ...]
    text: str
    malformed: str | None = None

    @property
    def answer(self) -> str:
        """The final answer a plain-text reply gives."""
        return answer_text(self.text)


@dataclass(frozen=True)
class HubAction:
    """What one call does: an action for the hub, or (``local_error``) a message for the model
    that never reaches the hub."""

    name: str
    action: dict[str, Any] | None
    local_error: str | None = None


def answer_text(text: str) -> str:
    """The final answer in a plain reply: its text without special tokens, stripped."""
    return _SPECIAL.sub("", text).strip()


def _schema_types(schema: Any) -> tuple[str, ...]:
    if not isinstance(schema, Mapping):
        return ()
    declared = schema.get("type")
    types = [declared] if isinstance(declared, str) else []
    if isinstance(declared, list):
        types += [t for t in declared if isinstance(t, str)]
    for union in ("anyOf", "oneOf"):
        for choice in schema.get(union) or []:
            types += _schema_types(choice)
    if schema.get("nullable") and "null" not in types:
        types.append("null")
    return tuple(types)


def _cast(raw: str, types: tuple[str, ...]) -> Any:
    """The first type ``raw`` reads as; the text itself when none fits (JSON Schema rules:
    whole floats are integers, NaN and infinities are no numbers)."""
    for kind in types:
        try:
            if kind == "integer":
                try:
                    return int(raw)
                except ValueError:
                    number = float(raw)
                    if number.is_integer():
                        return int(number)
            elif kind == "number":
                number = float(raw)
                if number == number and abs(number) != float("inf"):
                    return int(number) if number.is_integer() and "." not in raw else number
            elif kind == "boolean" and raw.strip().lower() in ("true", "1", "false", "0"):
                return raw.strip().lower() in ("true", "1")
            elif kind == "null" and raw.strip() in ("null", "None"):
                return None
            elif kind in ("object", "array"):
                value = json.loads(raw)
                if isinstance(value, dict if kind == "object" else list):
                    return value
        except (ValueError, OverflowError):
            continue
    return raw


def cast_arguments(arguments: Any, properties: Mapping[str, Any] | None) -> Any:
    """String arguments cast to their schema's types (others left alone)."""
    if not isinstance(arguments, dict) or not properties:
        return arguments
    out = {}
    for key, value in arguments.items():
        types = _schema_types(properties.get(key))
        if types and isinstance(value, str):
            value = _cast(value, types)
        elif types and isinstance(value, list) and "array" not in types:
            value = [_cast(v, types) if isinstance(v, str) else v for v in value]
        out[key] = value
    return out


def _properties(schemas: Sequence[Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    out = {}
    for schema in schemas or ():
        fn = schema.get("function", schema)
        params = fn.get("parameters") if isinstance(fn, Mapping) else None
        props = params.get("properties") if isinstance(params, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            out[fn["name"]] = props if isinstance(props, Mapping) else {}
    return out


def parse_reply(text: str, schemas: Sequence[Mapping[str, Any]] | None = None) -> Reply:
    """Read a reply (special tokens such as ``<|im_end|>`` are ignored). ``schemas`` are the
    rendered function schemas (:func:`~agentworld.trainer.prompting.tool_schemas`), used to cast
    arguments. Never raises."""
    clean = _SPECIAL.sub("", text)
    bodies = _CALL.findall(clean)
    if not bodies:
        return Reply((), clean)
    props = _properties(schemas)
    calls = []
    for body in bodies:
        try:
            call = json.loads(body)
        except json.JSONDecodeError as exc:
            return Reply((), clean, malformed=f"a <tool_call> is not valid JSON: {exc.msg}")
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            return Reply((), clean, malformed="a <tool_call> has no tool name")
        arguments = call.get("arguments")
        arguments = {} if arguments is None else arguments
        calls.append(ToolCall(call["name"], cast_arguments(arguments, props.get(call["name"]))))
    return Reply(tuple(calls), clean)


def _original_names(tool: Mapping[str, Any]) -> tuple[dict[str, str], set[str]]:
    from .prompting import param_name

    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    return {param_name(p): p for p in props}, set(schema.get("required") or ())


def reply_actions(reply: Reply, tools: Sequence[Mapping[str, Any]]) -> list[HubAction]:
    """The hub actions of a reply, given the MCP tools shown to the model (``submit`` is
    always shown). A plain reply is one ``submit`` with its answer."""
    if not reply.calls:
        return [HubAction(SUBMIT, {"name": SUBMIT, "arguments": {"answer": reply.answer}})]
    from .prompting import SUBMIT_TOOL

    shown = {t["name"]: t for t in [*tools, SUBMIT_TOOL]}
    out = []
    for call in reply.calls:
        tool = shown.get(call.name)
        if tool is None:
            out.append(HubAction(call.name, None, f"Tool {call.name} not found."))
            continue
        if not isinstance(call.arguments, dict):
            out.append(HubAction(call.name, None, "arguments must be a JSON object"))
            continue
        renamed, required = _original_names(tool)
        arguments = {renamed.get(k, k): v for k, v in call.arguments.items()}
        arguments = {k: v for k, v in arguments.items() if v is not None or k in required}
        out.append(HubAction(call.name, {"name": call.name, "arguments": arguments}))
    return out

