"""One prompt rendering for every backend (TRL, OpenRLHF, eval, SFT); replies are read by
``tool_calls.py``.

The chat messages are the exported dataset's (``servers/taskgen/export.py``: a system message
naming the environment and its tools, then the task). The tools are rendered into the prompt by
the model's own chat template (``apply_chat_template(..., tools=...)``). Tool schemas go through
Python callables built from each tool's JSON Schema, because TRL's ``environment_factory`` only
accepts methods: :func:`tool_schemas` is what transformers derives from those same callables, so
TRL and OpenRLHF render byte-identical prompts.

Models without a tool-calling template get :data:`CHAT_TEMPLATE` (the Hermes / Qwen2.5 format,
byte-identical to TRL's ``qwen2_5.jinja`` so TRL recognises it and parses its tool calls).
"""

from __future__ import annotations

import inspect
import keyword
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from agentworld.gym_api.spaces import SUBMIT_SCHEMA
from agentworld.hub.actions import SUBMIT

__all__ = ["CHAT_TEMPLATE", "SUBMIT_TOOL", "chat_messages", "tool_functions", "tool_schemas",
           "format_tool_call", "render_prompt", "ensure_tool_template", "param_name"]

CHAT_TEMPLATE = (Path(__file__).with_name("chat_template.jinja")).read_text(encoding="utf-8")

# `submit` is the episode's verb, not an environment tool, but the model must see it as a tool.
SUBMIT_TOOL: dict[str, Any] = {
    "name": SUBMIT, "inputSchema": SUBMIT_SCHEMA,
    "description": "Finish the task. Give your final answer when the task asks a question."}

_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool,
                               "array": list, "object": dict}


def chat_messages(*, env_title: str, tool_names: Sequence[str], task_prompt: str
                  ) -> list[dict[str, str]]:
    """The exported dataset's ``prompt`` messages for a task (system, then user)."""
    from agentworld.servers.taskgen.export import task_row
    from agentworld.servers.taskgen.record import TaskRecord

    record = TaskRecord(id="", env_id="", kind="", prompt=task_prompt, checks=[],
                        reference_calls=[])
    return task_row(record, env_title=env_title, tool_names=list(tool_names))["prompt"]


def _annotation(schema: Mapping[str, Any]) -> Any:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and all(isinstance(v, str | int | float | bool)
                                               for v in enum):
        return Literal[tuple(enum)]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    base = _JSON_TYPES.get(kind, str)
    if base is list:
        items = schema.get("items")
        if isinstance(items, Mapping) and items.get("type") in _JSON_TYPES:
            return list[_annotation(items)]
    return base


def param_name(name: str) -> str:
    """A tool argument's name as a Python parameter (``class`` becomes ``class_``)."""
    safe = re.sub(r"\W", "_", name)
    if not safe.isidentifier() or keyword.iskeyword(safe) or safe in ("self", "cls"):
        safe = f"{safe}_"
    return safe


def _docstring(description: str, params: dict[str, str]) -> str:
    summary = " ".join((description or "No description.").split())
    lines = [summary, "", "Args:"]
    for name, text in params.items():
        lines.append(f"    {name}: {' '.join(text.split()) or name}")
    return "\n".join(lines) if params else summary


def tool_functions(tools: Sequence[Mapping[str, Any]], call: Callable[[str, dict], Any], *,
                   method: bool = False) -> list[Callable[..., Any]]:
    """A Python function per tool (MCP ``{name, description, inputSchema}``), whose signature and
    docstring carry the tool's schema, and whose body calls ``call(tool_name, arguments)``.

    With ``method=True`` each function takes ``self`` first (for TRL's environment classes) and
    ``call`` is looked up on the instance as ``self._call``.
    """
    return [_tool_function(tool, call, method) for tool in tools]


def _tool_function(tool: Mapping[str, Any], call: Callable | None, method: bool):
    name = tool["name"]
    schema = tool.get("inputSchema") or {}
    props: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    renamed = {param_name(p): p for p in props}
    params, annotations, docs = [], {}, {}
    if method:
        params.append(inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD))
    for safe, original in sorted(renamed.items(), key=lambda kv: kv[1] not in required):
        annotations[safe] = _annotation(props[original])
        docs[safe] = str(props[original].get("description") or original)
        default = inspect.Parameter.empty if original in required else None
        params.append(inspect.Parameter(safe, inspect.Parameter.KEYWORD_ONLY,
                                        default=default, annotation=annotations[safe]))

    def _arguments(kwargs: dict[str, Any]) -> dict[str, Any]:
        return {renamed.get(k, k): v for k, v in kwargs.items() if v is not None or
                renamed.get(k, k) in required}

    if method:
        def function(self, **kwargs):
            return self._call(name, _arguments(kwargs))
    else:
        def function(**kwargs):
            return call(name, _arguments(kwargs))
    function.__name__ = function.__qualname__ = name
    function.__doc__ = _docstring(str(tool.get("description") or ""), docs)
    function.__signature__ = inspect.Signature(params)
    function.__annotations__ = annotations
    return function


def tool_schemas(tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The OpenAI-style function schemas transformers renders for :func:`tool_functions`,
    sorted by name: the order in which TRL lists an environment class's methods."""
    from transformers.utils import get_json_schema

    functions = sorted(tool_functions(tools, lambda *_: None), key=lambda fn: fn.__name__)
    return [get_json_schema(fn) for fn in functions]


def render_prompt(tokenizer, messages: Sequence[Mapping[str, Any]],
                  schemas: Sequence[Mapping[str, Any]]) -> str:
    """The generation prompt: the messages and the tools through the model's chat template."""
    return tokenizer.apply_chat_template(list(messages), tools=list(schemas) or None,
                                         add_generation_prompt=True, tokenize=False)


def ensure_tool_template(tokenizer) -> None:
    """Give ``tokenizer`` :data:`CHAT_TEMPLATE` when its own template cannot render tool calls.

    Raises:
        ValueError: the tokenizer has no ``<|im_start|>``/``<|im_end|>`` tokens, which the
            template needs.
    """
    if _renders_tools(tokenizer):
        return
    vocab = tokenizer.get_vocab()
    if "<|im_start|>" not in vocab or "<|im_end|>" not in vocab:
        raise ValueError("the tokenizer cannot render tool calls and has no ChatML tokens")
    tokenizer.chat_template = CHAT_TEMPLATE


def _renders_tools(tokenizer) -> bool:
    if not getattr(tokenizer, "chat_template", None):
        return False
    probe = [{"role": "user", "content": "hi"},
             {"role": "assistant", "content": "", "tool_calls": [
                 {"type": "function", "function": {"name": "probe_x", "arguments": {"k": "v9"}}}]},
             {"role": "tool", "name": "probe_x", "content": "result_y"}]
    try:
        text = tokenizer.apply_chat_template(probe, tokenize=False)
    except Exception:  # noqa: BLE001 - any template error means "cannot render tools"
        return False
    return all(s in text for s in ("probe_x", "v9", "result_y"))


def format_tool_call(name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """An assistant message that makes one tool call, in the chat-template message shape."""
    return {"role": "assistant", "content": "",
            "tool_calls": [{"type": "function",
                            "function": {"name": name, "arguments": dict(arguments)}}]}
