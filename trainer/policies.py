"""Policies that play episodes on the hub: a local Hugging Face model, an OpenAI-compatible
endpoint (vLLM, ...), and three baselines: the scripted oracle (replays the reference calls),
random tool calls, and no-op (submits at once).

Every policy has ``play(hub, task) -> EpisodeResult``. Model policies see the same prompt as
training (``prompting.py``); the local model plays at the token level exactly as OpenRLHF's
agent does (``token_episode.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from agentworld.hub.client import HubClient, HubClientError

from .errors import UnknownPolicyError
from .prompting import SUBMIT_TOOL, parse_tool_call, tool_schemas
from .tasks import TaskRef
from .token_episode import EnvInfoCache, Generation, run_token_episode

__all__ = ["EpisodeResult", "Policy", "OraclePolicy", "NoopPolicy", "RandomPolicy",
           "HFPolicy", "OpenAIPolicy", "make_policy", "hf_generate"]


@dataclass(frozen=True)
class EpisodeResult:
    env_id: str
    task_id: str
    reward: float
    passed: bool
    turns: int
    truncated: bool = False
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "task_id": self.task_id, "reward": self.reward,
                "passed": self.passed, "turns": self.turns, "truncated": self.truncated,
                "error": self.error}


class Policy(Protocol):
    name: str

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult: ...


NextAction = Callable[[dict[str, Any], list[dict[str, Any]]], Awaitable[Any]]


async def play_actions(hub: HubClient, task: TaskRef, next_action: NextAction) -> EpisodeResult:
    """Reset the task, then ask ``next_action(info, history)`` for actions until the hub ends the
    episode. ``history`` holds ``{"action", "observation"}`` pairs."""
    started = await hub.reset(task.env_id, task_id=task.task_id)
    sid, history = started["session_id"], []
    try:
        while True:
            action = await next_action(started["info"], history)
            out = await hub.step(sid, action)
            history.append({"action": action, "observation": out["observation"]})
            if out["terminated"] or out["truncated"]:
                verdict = out["info"].get("verdict") or {}
                return EpisodeResult(task.env_id, task.task_id, float(out["reward"]),
                                     bool(verdict.get("passed")), len(history),
                                     truncated=bool(out["truncated"]))
    finally:
        try:
            await hub.end(sid)
        except HubClientError:
            pass


class OraclePolicy:
    """Replays the task's reference calls, then submits the reference answer."""

    name = "oracle"

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult:
        script = [{"name": n, "arguments": a} for n, a in task.reference_calls]
        answer = {"answer": task.reference_answer} if task.reference_answer is not None else {}
        script.append({"name": "submit", "arguments": answer})

        async def next_action(info, history):
            return script[min(len(history), len(script) - 1)]
        return await play_actions(hub, task, next_action)


class NoopPolicy:
    """Submits at once with no answer: what an untouched environment scores."""

    name = "noop"

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult:
        async def next_action(info, history):
            return {"name": "submit", "arguments": {}}
        return await play_actions(hub, task, next_action)


class RandomPolicy:
    """Random valid tool calls (``submit`` among them), drawn from the tools' input schemas."""

    name = "random"

    def __init__(self, *, seed: int = 0) -> None:
        self.seed = seed

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult:
        from agentworld.gym_api.spaces import ToolCallSpace

        space: ToolCallSpace | None = None

        async def next_action(info, history):
            nonlocal space
            if space is None:
                space = ToolCallSpace(info["tools"], seed=self.seed + len(task.task_id))
            return space.sample()
        return await play_actions(hub, task, next_action)


def hf_generate(model, tokenizer, *, temperature: float = 0.0):
    """A :data:`~agentworld.trainer.token_episode.GenerateFn` on a local model (greedy when
    ``temperature`` is 0), run in a worker thread."""
    import torch

    def generate_sync(ids: list[int], max_tokens: int) -> Generation:
        with torch.no_grad():
            out = model.generate(
                input_ids=torch.tensor([ids]), attention_mask=torch.ones(1, len(ids),
                                                                          dtype=torch.long),
                max_new_tokens=max_tokens, do_sample=temperature > 0,
                temperature=temperature if temperature > 0 else None, top_p=None, top_k=None,
                eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
        new = out[0][len(ids):].tolist()
        stopped = bool(new) and new[-1] == tokenizer.eos_token_id
        return Generation(new, tokenizer.decode(new, skip_special_tokens=False),
                          "stop" if stopped or len(new) < max_tokens else "length")

    async def generate(ids: list[int], max_tokens: int) -> Generation:
        return await asyncio.to_thread(generate_sync, ids, max_tokens)
    return generate


class HFPolicy:
    """A local model, played at the token level like OpenRLHF's agent."""

    def __init__(self, model, tokenizer, *, name: str = "hf", max_length: int = 2048,
                 max_new_tokens: int = 128, temperature: float = 0.0) -> None:
        self.name, self.tokenizer = name, tokenizer
        self.max_length, self.max_new_tokens = max_length, max_new_tokens
        self._generate = hf_generate(model, tokenizer, temperature=temperature)
        self._cache = EnvInfoCache()

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult:
        ep = await run_token_episode(hub, env_id=task.env_id, task_id=task.task_id,
                                     tokenizer=self.tokenizer, generate=self._generate,
                                     max_length=self.max_length,
                                     max_new_tokens=self.max_new_tokens, cache=self._cache)
        return EpisodeResult(task.env_id, task.task_id, ep.reward, ep.passed, ep.turns,
                             truncated=ep.truncated)


class OpenAIPolicy:
    """An OpenAI-compatible chat endpoint (``{base_url}/chat/completions``) with native tool
    calls; a reply whose tool call is written as text (``<tool_call>``) is parsed too."""

    def __init__(self, base_url: str, model: str, *, api_key: str | None = None,
                 temperature: float = 0.0, max_tokens: int = 512, timeout: float = 120.0) -> None:
        self.name = f"openai:{model}"
        self.base_url, self.model = base_url.rstrip("/"), model
        self.api_key, self.temperature = api_key, temperature
        self.max_tokens, self.timeout = max_tokens, timeout

    async def _complete(self, messages, tools) -> dict[str, Any]:
        import aiohttp

        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = {"model": self.model, "messages": messages, "tools": tools,
                "temperature": self.temperature, "max_tokens": self.max_tokens}
        timeout = aiohttp.ClientTimeout(total=self.timeout)
        async with aiohttp.ClientSession(headers=headers, timeout=timeout) as session:
            async with session.post(f"{self.base_url}/chat/completions", json=body) as resp:
                resp.raise_for_status()
                return (await resp.json())["choices"][0]["message"]

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult:
        messages: list[dict[str, Any]] = list(task.messages())

        async def next_action(info, history):
            if history:
                messages.append({"role": "tool", "tool_call_id": f"call_{len(history)}",
                                 "content": history[-1]["observation"]})
            tools = tool_schemas([*info["tools"], SUBMIT_TOOL])
            reply = await self._complete(messages, tools)
            calls = reply.get("tool_calls") or []
            if calls:
                fn = calls[0]["function"]
                messages.append({"role": "assistant", "content": reply.get("content") or "",
                                 "tool_calls": [{**calls[0], "id": f"call_{len(history) + 1}"}]})
                return {"name": fn["name"], "arguments": fn.get("arguments") or {}}
            content = reply.get("content") or ""
            messages.append({"role": "assistant", "content": content})
            return parse_tool_call(content).action()
        return await play_actions(hub, task, next_action)


def make_policy(spec: str, *, max_new_tokens: int = 128, max_length: int = 2048,
                seed: int = 0, api_key: str | None = None) -> Policy:
    """A policy from a spec: ``oracle``, ``random``, ``noop``, ``hf:PATH`` (or ``smollm2``),
    ``openai:BASE_URL#MODEL`` (with ``api_key`` when the endpoint wants one).

    Raises:
        UnknownPolicyError: the spec names no policy.
    """
    if spec == "oracle":
        return OraclePolicy()
    if spec == "noop":
        return NoopPolicy()
    if spec == "random":
        return RandomPolicy(seed=seed)
    if spec == "smollm2" or spec.startswith("hf:"):
        from .models import load_policy

        model, tokenizer = load_policy(spec.removeprefix("hf:"))
        return HFPolicy(model, tokenizer, name=spec, max_length=max_length,
                        max_new_tokens=max_new_tokens)
    if spec.startswith("openai:"):
        url, _, model = spec.removeprefix("openai:").partition("#")
        if not url or not model:
            raise UnknownPolicyError(spec)
        return OpenAIPolicy(url, model, api_key=api_key)
    raise UnknownPolicyError(spec)

