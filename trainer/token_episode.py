"""One episode on the hub at the token level: what OpenRLHF's agent and the local model policy run.

The prompt is the task's chat messages with the tools rendered by the model's chat template.
Each turn the model generates from the whole token sequence; its reply is parsed for a tool call
and sent to the hub; the tool's result is appended as the chat template's tool message. Model
tokens are recorded as action ranges, environment tokens are not (they stay out of the action
mask). Replies are read as TRL reads them (``tool_calls.py``): every call in a reply is made,
and a reply without a readable call is the final answer (``submit``). The episode ends when the
hub says so (submit, or its step limit), or is truncated when a reply hits the token budget;
a truncated episode gets reward 0.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentworld.hub.actions import SUBMIT
from agentworld.hub.client import HubClient, HubClientError
from agentworld.servers.tool_views import ToolView, apply_view, parse_view

from .prompting import SUBMIT_TOOL, chat_messages, render_prompt, tool_schemas
from .tool_calls import parse_reply, reply_actions

__all__ = ["Generation", "GenerateFn", "TokenEpisode", "EnvInfoCache", "run_token_episode",
           "tool_feedback_ids"]


@dataclass(frozen=True)
class Generation:
    """One reply of the model: its tokens, text, why it stopped, and (optionally) logprobs."""

    token_ids: list[int]
    text: str
    finish_reason: str | None          # "stop" or "length", as vLLM says
    logprobs: list[float] | None = None


GenerateFn = Callable[[list[int], int], Awaitable[Generation]]


@dataclass
class TokenEpisode:
    prompt_text: str
    tokens: list[int]
    action_ranges: list[tuple[int, int]]
    logprobs: list[float] | None
    reward: float = 0.0
    passed: bool = False
    truncated: bool = False          # a reply hit its token budget
    hub_truncated: bool = False      # the hub's step limit ended the episode
    out_of_turns: bool = False       # the reply cap ended it (reward 0, as in TRL)
    turns: int = 0
    called_tools: list[str] = field(default_factory=list)   # each call's tool, in order
    tool_errors: int = 0
    verdict: dict[str, Any] | None = None
    transcript: list[dict[str, Any]] = field(default_factory=list)
    tools: list[dict[str, Any]] = field(default_factory=list)        # the MCP tools shown
    schemas: list[dict[str, Any]] = field(default_factory=list)      # as rendered
    prompt_truncated: bool = False   # the prompt was cut from the left to fit max_length
    malformed: int = 0               # replies whose <tool_call> could not be read

    @property
    def tool_calls(self) -> int:
        return len(self.called_tools)


class EnvInfoCache:
    """Per environment: its title (asked of the hub once) and rendered tool schemas per view."""

    def __init__(self) -> None:
        self._titles: dict[str, str] = {}
        self._schemas: dict[tuple, list[dict[str, Any]]] = {}
        self._lock = asyncio.Lock()

    async def title(self, hub: HubClient, env_id: str) -> str:
        if env_id not in self._titles:
            async with self._lock:
                if env_id not in self._titles:
                    self._titles[env_id] = (await hub.env(env_id)).get("title") or env_id
        return self._titles[env_id]

    def schemas(self, env_id: str, tools: list[dict[str, Any]], view: str = "full"
                ) -> list[dict[str, Any]]:
        key = (env_id, view, tuple(t["name"] for t in tools))
        if key not in self._schemas:
            self._schemas[key] = tool_schemas([*tools, SUBMIT_TOOL])
        return self._schemas[key]


def _suffix_text(tokenizer, answers: Sequence[tuple[str, str]]) -> str:
    """The chat template's text for the tool messages and the next assistant header, rendered
    the way TRL does it: a conversation with and without the tool messages, cut after the last
    EOS."""
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": answers[0][0], "arguments": {}}}]}
    head = [{"role": "user", "content": "x"}, call]
    prefix = tokenizer.apply_chat_template(head, tokenize=False)
    tools = [{"role": "tool", "name": n, "content": c} for n, c in answers]
    full = tokenizer.apply_chat_template(head + tools, tokenize=False,
                                         add_generation_prompt=True)
    eos = tokenizer.eos_token or ""
    cut = prefix.rfind(eos) + len(eos) if eos and eos in prefix else len(prefix)
    if not full.startswith(prefix[:cut]):
        raise ValueError("the chat template does not preserve prefixes; cannot append tool turns")
    return full[cut:]


def tool_feedback_ids(tokenizer, answers: Sequence[tuple[str, str]], *,
                      after_eos: bool) -> list[int]:
    """Token ids of the tool results ``(name, content)`` as the chat template renders them; an
    EOS first when the model's reply did not end with one (its turn must be closed before the
    tools speak)."""
    ids = tokenizer(_suffix_text(tokenizer, answers), add_special_tokens=False)["input_ids"]
    if not after_eos and tokenizer.eos_token_id is not None:
        ids = [tokenizer.eos_token_id, *ids]
    return list(ids)


def _tokenize(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


async def run_token_episode(hub: HubClient, *, env_id: str, task_id: str, tokenizer,
                            generate: GenerateFn, max_length: int,
                            max_new_tokens: int | None = None, cache: EnvInfoCache | None = None,
                            track_logprobs: bool = False,
                            tool_view: str | ToolView | None = None) -> TokenEpisode:
    """Drive one episode of ``(env_id, task_id)`` on the hub with ``generate``, showing the tools
    in ``tool_view`` (``servers/tool_views.py``; default ``full``).

    A prompt longer than ``max_length`` less one reply's budget is cut from the left, as
    OpenRLHF cuts its own prompts. The model gets at most the task's ``max_steps`` + 1 replies:
    TRL's ``max_tool_calling_iterations`` rounds of tool calls and a final answer. Replies the
    hub never sees (an unknown tool, arguments that are not an object) use none of the hub's
    steps, so without this cap a policy that keeps inventing tools would run to ``max_length``.

    Raises:
        HubClientError: the hub refused the reset (unknown environment or task, capacity).
        ToolViewError: ``tool_view`` cannot be read.
    """
    cache = cache or EnvInfoCache()
    view = parse_view(tool_view)
    started = await hub.reset(env_id, task_id=task_id)
    sid, info = started["session_id"], started["info"]
    try:
        ep = await _start(hub, info, tokenizer=tokenizer, max_length=max_length,
                          max_new_tokens=max_new_tokens, cache=cache, view=view,
                          track_logprobs=track_logprobs)
        await _loop(hub, sid, ep, tokenizer=tokenizer, generate=generate,
                    max_length=max_length, max_new_tokens=max_new_tokens,
                    max_replies=_reply_cap(info))
        return ep
    finally:
        try:
            await hub.end(sid)
        except HubClientError:
            pass  # already reaped


def _reply_cap(info: dict[str, Any]) -> int | None:
    steps = info.get("max_steps")
    return steps + 1 if isinstance(steps, int) and steps > 0 else None


async def _start(hub: HubClient, info: dict[str, Any], *, tokenizer, max_length: int,
                 max_new_tokens: int | None, cache: EnvInfoCache, view: ToolView,
                 track_logprobs: bool) -> TokenEpisode:
    env_id = info["env_id"]
    tools = apply_view(info["tools"], view, relevant=info.get("relevant_tools"))
    messages = chat_messages(env_title=await cache.title(hub, env_id),
                             tool_names=[t["name"] for t in tools], task_prompt=info["prompt"])
    schemas = cache.schemas(env_id, tools, str(view))
    prompt_text = render_prompt(tokenizer, messages, schemas)
    tokens = _tokenize(tokenizer, prompt_text)
    room = max_length - (max_new_tokens or 1)
    cut = len(tokens) > room > 0
    if cut:
        tokens = tokens[-room:]         # OpenRLHF keeps the end of an overlong prompt
    return TokenEpisode(prompt_text, tokens, [], [0.0] * len(tokens) if track_logprobs else None,
                        transcript=list(messages), tools=tools, schemas=schemas,
                        prompt_truncated=cut)


async def _loop(hub: HubClient, sid: str, ep: TokenEpisode, *, tokenizer, generate,
                max_length: int, max_new_tokens: int | None, max_replies: int | None) -> None:
    while True:
        if max_replies is not None and ep.turns >= max_replies:
            ep.out_of_turns = True
            return
        budget = max_length - len(ep.tokens)
        if budget <= 0:
            ep.truncated = True
            return
        gen = await generate(list(ep.tokens), min(budget, max_new_tokens or budget))
        start = len(ep.tokens)
        ep.tokens.extend(gen.token_ids)
        ep.action_ranges.append((start, len(ep.tokens)))
        if ep.logprobs is not None:
            ep.logprobs.extend(gen.logprobs or [0.0] * len(gen.token_ids))
        ep.turns += 1
        if gen.finish_reason == "length":
            # A reply cut by its budget is neither a call nor an answer (TRL: reward 0 too).
            ep.truncated = True
            ep.transcript.append({"role": "assistant", "content": gen.text, "truncated": True})
            return
        if await _act(hub, sid, ep, gen, tokenizer, max_length):
            return


async def _act(hub: HubClient, sid: str, ep: TokenEpisode, gen: Generation, tokenizer,
               max_length: int) -> bool:
    """Step the hub with the reply's actions; append the tools' answers. True when the episode
    is over."""
    reply = parse_reply(gen.text, ep.schemas)
    ep.transcript.append({"role": "assistant", "content": gen.text,
                          "calls": [c.name for c in reply.calls], "malformed": reply.malformed})
    ep.malformed += reply.malformed is not None
    answers: list[tuple[str, str]] = []
    for act in reply_actions(reply, ep.tools):
        if act.action is None:
            ep.called_tools.append(act.name)
            ep.tool_errors += 1
            answers.append((act.name, json.dumps({"error": act.local_error})))
            continue
        out = await hub.step(sid, act.action)
        if act.name != SUBMIT:
            ep.called_tools.append(act.name)
            ep.tool_errors += 0 if out["info"].get("ok", False) else 1
        answers.append((act.name, out["observation"]))
        if out["terminated"] or out["truncated"]:
            verdict = out["info"].get("verdict") or {}
            ep.reward, ep.verdict = float(out["reward"]), verdict
            ep.passed, ep.hub_truncated = bool(verdict.get("passed")), bool(out["truncated"])
            ep.transcript += [{"role": "tool", "name": n, "content": c} for n, c in answers]
            return True
    ep.transcript += [{"role": "tool", "name": n, "content": c} for n, c in answers]
    ended = bool(gen.token_ids) and gen.token_ids[-1] == tokenizer.eos_token_id
    feedback = tool_feedback_ids(tokenizer, answers, after_eos=ended)
    if len(ep.tokens) + len(feedback) >= max_length:
        ep.truncated = True
        return True
    ep.tokens.extend(feedback)
    if ep.logprobs is not None:
        ep.logprobs.extend([0.0] * len(feedback))
    return False
