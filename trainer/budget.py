"""Token budgets sized from the tasks themselves.

TRL's ``max_completion_length`` counts everything after the prompt: the model's replies and the
tool results between them. A fixed 128 or 160 tokens cut a third of the completions on a
two-tool environment, and a task whose solution needs more never finishes. Here the budget is
measured: each task's reference solution is replayed on the hub, rendered with the chat
template as a completion (calls, tool results, the final ``submit``), and counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from agentworld.hub.client import HubClientError, SyncHubClient

from .prompting import SUBMIT_TOOL, format_tool_call, tool_schemas
from .tasks import TaskRef

__all__ = ["reference_messages", "completion_tokens", "completion_budget"]


def reference_messages(hub: SyncHubClient, task: TaskRef) -> list[dict[str, Any]]:
    """The task's chat messages followed by its reference solution replayed on the hub (each
    call with the hub's real answer, then ``submit``)."""
    started = hub.reset(task.env_id, task_id=task.task_id)
    sid = started["session_id"]
    messages: list[dict[str, Any]] = list(task.messages())
    try:
        for name, arguments in task.reference_calls:
            messages.append(format_tool_call(name, arguments))
            out = hub.step(sid, {"name": name, "arguments": arguments})
            messages.append({"role": "tool", "name": name, "content": out["observation"]})
        answer = {"answer": task.reference_answer} if task.reference_answer is not None else {}
        messages.append(format_tool_call("submit", answer))
    finally:
        try:
            hub.end(sid)
        except HubClientError:
            pass
    return messages


def completion_tokens(tokenizer, messages: Sequence[dict[str, Any]],
                      schemas: Sequence[dict[str, Any]], prompt_len: int) -> int:
    """Tokens after the first ``prompt_len`` messages when the conversation is rendered."""
    def render(msgs, generation: bool) -> str:
        return tokenizer.apply_chat_template(list(msgs), tools=list(schemas) or None,
                                             tokenize=False, add_generation_prompt=generation)
    prompt = render(messages[:prompt_len], True)
    full = render(messages, False)
    return len(tokenizer(full[len(prompt):], add_special_tokens=False)["input_ids"])


def completion_budget(tokenizer, tasks: Sequence[TaskRef], hub_url: str, *,
                      token: str | None = None, slack: float = 1.5, extra: int = 48,
                      cap: int = 8192) -> dict[str, Any]:
    """``{"max_completion_length", "per_task"}``: the longest reference completion among
    ``tasks`` times ``slack`` plus ``extra`` tokens (a model's replies are wordier than the
    reference's), at most ``cap``. ``per_task`` maps ``env_id/task_id`` to its count."""
    hub = SyncHubClient(hub_url, token=token)
    per_task: dict[str, int] = {}
    tools_of: dict[str, list[dict[str, Any]]] = {}
    try:
        for task in tasks:
            if task.env_id not in tools_of:
                tools_of[task.env_id] = hub.env(task.env_id)["tools"]
            schemas = tool_schemas([*task.shown_tools(tools_of[task.env_id]), SUBMIT_TOOL])
            messages = reference_messages(hub, task)
            per_task[f"{task.env_id}/{task.task_id}"] = completion_tokens(
                tokenizer, messages, schemas, len(task.messages()))
    finally:
        hub.close()
    longest = max(per_task.values(), default=0)
    return {"max_completion_length": min(cap, math.ceil(longest * slack) + extra),
            "per_task": per_task}
