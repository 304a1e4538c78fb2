"""One episode on the hub at the token level: what OpenRLHF's agent and the local model policy run.

The prompt is the task's chat messages with the tools rendered by the model's chat template.
Each turn the model generates from the whole token sequence; its reply is parsed for a tool call
and sent to the hub; the tool's result is appended as the chat template's tool message. Model
tokens are recorded as action ranges, environment tokens are not (they stay out of the action
mask). A reply without a tool call is the final answer (``submit``). The episode ends when the
hub says so (submit, or its step limit), or is truncated when a reply hits the token budget;
a truncated episode gets reward 0.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from agentworld.hub.client import HubClient, HubClientError

from .prompting import SUBMIT_TOOL, chat_messages, parse_tool_call, render_prompt, tool_schemas

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
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    verdict: dict[str, Any] | None = None
    transcript: list[dict[str, Any]] = field(default_factory=list)


class EnvInfoCache:
    """Per environment: its title and rendered tool schemas (asked of the hub once)."""

    def __init__(self) -> None:
        self._titles: dict[str, str] = {}
        self._schemas: dict[str, list[dict[str, Any]]] = {}
        self._lock = asyncio.Lock()

    async def title(self, hub: HubClient, env_id: str) -> str:
        if env_id not in self._titles:
            async with self._lock:
                if env_id not in self._titles:
                    self._titles[env_id] = (await hub.env(env_id)).get("title") or env_id
        return self._titles[env_id]

    def schemas(self, env_id: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if env_id not in self._schemas:
            self._schemas[env_id] = tool_schemas([*tools, SUBMIT_TOOL])
        return self._schemas[env_id]


def _suffix_text(tokenizer, name: str, content: str) -> str:
    """The chat template's text for a tool message and the next assistant header, rendered the
    way TRL does it: a conversation with and without the tool message, cut after the last EOS."""
    call = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": name, "arguments": {}}}]}
    head = [{"role": "user", "content": "x"}, call]
    prefix = tokenizer.apply_chat_template(head, tokenize=False)
    full = tokenizer.apply_chat_template(head + [{"role": "tool", "name": name,
                                                  "content": content}],
                                         tokenize=False, add_generation_prompt=True)
    eos = tokenizer.eos_token or ""
    cut = prefix.rfind(eos) + len(eos) if eos and eos in prefix else len(prefix)
    if not full.startswith(prefix[:cut]):
        raise ValueError("the chat template does not preserve prefixes; cannot append tool turns")
    return full[cut:]


def tool_feedback_ids(tokenizer, name: str, content: str, *, after_eos: bool) -> list[int]:
    """Token ids of a tool result as the chat template renders it; an EOS first when the model's
    reply did not end with one (its turn must be closed before the tool speaks)."""
    ids = tokenizer(_suffix_text(tokenizer, name, content), add_special_tokens=False)["input_ids"]
    if not after_eos and tokenizer.eos_token_id is not None:
        ids = [tokenizer.eos_token_id, *ids]
    return list(ids)


def _tokenize(tokenizer, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


async def run_token_episode(hub: HubClient, *, env_id: str, task_id: str, tokenizer,
                            generate: GenerateFn, max_length: int,
                            max_new_tokens: int | None = None, cache: EnvInfoCache | None = None,
                            track_logprobs: bool = False) -> TokenEpisode:
    """Drive one episode of ``(env_id, task_id)`` on the hub with ``generate``.

    Raises:
        HubClientError: the hub refused the reset (unknown environment or task, capacity).
    """
    cache = cache or EnvInfoCache()
    started = await hub.reset(env_id, task_id=task_id)
    sid, info = started["session_id"], started["info"]
    try:
        return await _loop(hub, sid, info, tokenizer=tokenizer, generate=generate,
                           max_length=max_length, max_new_tokens=max_new_tokens, cache=cache,
                           track_logprobs=track_logprobs)
    finally:
        try:
            await hub.end(sid)
        except HubClientError:
            pass  # already reaped


async def _loop(hub: HubClient, sid: str, info: dict[str, Any], *, tokenizer, generate,
                max_length: int, max_new_tokens: int | None, cache: EnvInfoCache,
                track_logprobs: bool) -> TokenEpisode:
    env_id = info["env_id"]
    tools = info["tools"]
    messages = chat_messages(env_title=await cache.title(hub, env_id),
                             tool_names=[t["name"] for t in tools], task_prompt=info["prompt"])
    prompt_text = render_prompt(tokenizer, messages, cache.schemas(env_id, tools))
    tokens = _tokenize(tokenizer, prompt_text)
    ep = TokenEpisode(prompt_text, tokens, [], [0.0] * len(tokens) if track_logprobs else None,
                      transcript=list(messages))
    while True:
        budget = max_length - len(ep.tokens)
        if budget <= 0:
            ep.truncated = True
            return ep
        gen = await generate(list(ep.tokens), min(budget, max_new_tokens or budget))
        start = len(ep.tokens)
        ep.tokens.extend(gen.token_ids)
        ep.action_ranges.append((start, len(ep.tokens)))
        if ep.logprobs is not None:
            ep.logprobs.extend(gen.logprobs or [0.0] * len(gen.token_ids))
        ep.turns += 1
        if gen.finish_reason == "length":
            ep.truncated = True
            ep.transcript.append({"role": "assistant", "content": gen.text, "truncated": True})
            return ep
        done = await _act(hub, sid, ep, gen, tokenizer, max_length)
        if done:
            return ep


async def _act(hub: HubClient, sid: str, ep: TokenEpisode, gen: Generation, tokenizer,
               max_length: int) -> bool:
    """Step the hub with the reply's action; append the tool's answer. True when the episode
    is over."""
    parsed = parse_tool_call(gen.text)
    action = parsed.action()
    out = await hub.step(sid, action)
    name = action["name"] if isinstance(action, dict) else "invalid_tool_call"
    ep.transcript.append({"role": "assistant", "content": gen.text, "action": action})
    ep.transcript.append({"role": "tool", "name": name, "content": out["observation"]})
    if isinstance(action, dict) and name != "submit":
        ep.tool_calls += 1
        ep.tool_errors += 0 if out["info"].get("ok", False) else 1
    if out["terminated"] or out["truncated"]:
        verdict = out["info"].get("verdict") or {}
        ep.reward, ep.verdict = float(out["reward"]), verdict
        ep.passed, ep.hub_truncated = bool(verdict.get("passed")), bool(out["truncated"])
        return True
    ended = bool(gen.token_ids) and gen.token_ids[-1] == tokenizer.eos_token_id
    feedback = tool_feedback_ids(tokenizer, name, out["observation"], after_eos=ended)
    if len(ep.tokens) + len(feedback) >= max_length:
        ep.truncated = True
        return True
    ep.tokens.extend(feedback)
    if ep.logprobs is not None:
        ep.logprobs.extend([0.0] * len(feedback))
    return False
