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

from agentworld.hub.actions import SUBMIT
from agentworld.hub.client import HubClient, HubClientError

from .errors import UnknownPolicyError
from .prefix_cache import PrefixKV
from .prompting import SUBMIT_TOOL, tool_schemas
from .seeded_sampling import RequestStreams, SeededSampler
from .tasks import TaskRef
from .token_episode import EnvInfoCache, Generation, run_token_episode
from .tool_calls import parse_reply, reply_actions

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
    malformed: int = 0                  # replies whose <tool_call> could not be read
    tool_calls: int = 0
    # The tools called, in order (submit left out): a failed episode's record says what the
    # policy did, e.g. a lookup where the task wanted a write, without replaying it.
    calls: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"env_id": self.env_id, "task_id": self.task_id, "reward": self.reward,
                "passed": self.passed, "turns": self.turns, "truncated": self.truncated,
                "error": self.error, "malformed": self.malformed,
                "tool_calls": self.tool_calls, "calls": list(self.calls)}


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
                calls = tuple(str(h["action"].get("name")) for h in history
                              if isinstance(h["action"], dict)
                              and h["action"].get("name") != SUBMIT)
                return EpisodeResult(task.env_id, task.task_id, float(out["reward"]),
                                     bool(verdict.get("passed")), len(history),
                                     truncated=bool(out["truncated"]),
                                     tool_calls=len(calls), calls=calls)
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


def hf_generate(model, tokenizer, *, temperature: float = 0.0, max_batch: int = 8,
                seed: int = 0):
    """A :data:`~agentworld.trainer.token_episode.GenerateFn` on a local model (greedy when
    ``temperature`` is 0). Requests of concurrent episodes are batched into one left-padded
    ``generate`` call in a worker thread (a batch of 8 decodes nearly as fast as one), and the
    prompt prefix episodes share (system prompt and tools) is encoded once
    (``prefix_cache.py``). Sampling draws each request from a generator of its own, seeded
    from ``seed`` and the request (``seeded_sampling.py``), so a run on the same weights plays
    the same episodes however they were batched."""
    return _Batcher(model, tokenizer, temperature, max_batch, seed).generate


class _Batcher:
    def __init__(self, model, tokenizer, temperature: float, max_batch: int,
                 seed: int = 0) -> None:
        self.model, self.tokenizer = model, tokenizer
        self.temperature, self.max_batch = temperature, max_batch
        self.streams = RequestStreams(seed)
        self.prefix: PrefixKV | None = None        # made on first use, with the model
        self.pending: list[tuple[list[int], int, int, asyncio.Future]] = []
        self.worker: asyncio.Task | None = None

    async def generate(self, ids: list[int], max_tokens: int) -> Generation:
        future = asyncio.get_running_loop().create_future()
        # Seeded on arrival, on the event loop: the order among identical requests is the only
        # order that matters, and identical requests are interchangeable. Greedy needs no seed
        # (nor the hash of every prompt, nor a counter that grows with each one).
        seed = self.streams.next_seed(ids) if self.temperature > 0 else 0
        self.pending.append((ids, max_tokens, seed, future))
        if self.worker is None or self.worker.done():
            self.worker = asyncio.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        while self.pending:
            await asyncio.sleep(0.005)      # let the other episodes' requests arrive
            batch, self.pending = self.pending[:self.max_batch], self.pending[self.max_batch:]
            try:
                results = await asyncio.to_thread(self._run, [r[:3] for r in batch])
            except Exception as exc:  # noqa: BLE001 - handed to every waiting episode
                for *_, future in batch:
                    future.set_exception(exc)
                continue
            for (*_, future), result in zip(batch, results, strict=True):
                future.set_result(result)

    def _run(self, requests: list[tuple[list[int], int, int]]) -> list[Generation]:
        from transformers import LogitsProcessorList

        tok, eos = self.tokenizer, self.tokenizer.eos_token_id
        if self.prefix is None:
            pad = tok.pad_token_id
            self.prefix = PrefixKV(self.model, pad_token_id=eos if pad is None else pad)
        # Greedy decoding of the sampler's draws: a sampled row depends on its own seed only.
        sampler = LogitsProcessorList(
            [SeededSampler([s for *_, s in requests], self.temperature)]
            if self.temperature > 0 else [])
        rows = self.prefix.generate(
            [ids for ids, *_ in requests], max_new_tokens=max(m for _, m, _ in requests),
            do_sample=False, temperature=None, top_p=None, top_k=None,
            logits_processor=sampler, eos_token_id=eos, pad_token_id=self.prefix.pad)
        results = []
        for row, (_, max_tokens, _) in zip(rows, requests, strict=True):
            new = row[:max_tokens]
            stopped = eos in new
            if stopped:
                new = new[:new.index(eos) + 1]
            results.append(Generation(new, tok.decode(new, skip_special_tokens=False),
                                      "stop" if stopped else "length"))
        return results


class HFPolicy:
    """A local model, played at the token level like OpenRLHF's agent. Tools are shown in
    ``tool_view``, else in each task's own view. At ``temperature`` > 0 the episodes played are
    fixed by ``seed`` and the weights (``seeded_sampling.py``)."""

    def __init__(self, model, tokenizer, *, name: str = "hf", max_length: int = 2048,
                 max_new_tokens: int = 128, temperature: float = 0.0,
                 max_batch: int = 8, tool_view: str | None = None, seed: int = 0) -> None:
        self.name, self.tokenizer = name, tokenizer
        self.max_length, self.max_new_tokens = max_length, max_new_tokens
        self.tool_view = tool_view
        self.concurrency = max_batch
        self._generate = hf_generate(model, tokenizer, temperature=temperature,
                                     max_batch=max_batch, seed=seed)
        self._cache = EnvInfoCache()

    async def play(self, hub: HubClient, task: TaskRef) -> EpisodeResult:
        ep = await run_token_episode(hub, env_id=task.env_id, task_id=task.task_id,
                                     tokenizer=self.tokenizer, generate=self._generate,
                                     max_length=self.max_length,
                                     max_new_tokens=self.max_new_tokens, cache=self._cache,
                                     tool_view=self.tool_view or task.tool_view)
        # Out of replies is a time limit too (Gymnasium's sense of truncated).
        return EpisodeResult(task.env_id, task.task_id, ep.reward, ep.passed, ep.turns,
                             truncated=ep.truncated or ep.out_of_turns, malformed=ep.malformed,
                             tool_calls=ep.tool_calls, calls=tuple(ep.called_tools))


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
            acts = [a.action for a in reply_actions(parse_reply(content, tools), info["tools"])]
            return next((a for a in acts if a is not None), {"name": "submit", "arguments": {}})
        return await play_actions(hub, task, next_action)


def make_policy(spec: str, *, max_new_tokens: int = 128, max_length: int = 2048,
                seed: int = 0, api_key: str | None = None, tool_view: str | None = None
                ) -> Policy:
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
                        max_new_tokens=max_new_tokens, tool_view=tool_view, seed=seed)
    if spec.startswith("openai:"):
        url, _, model = spec.removeprefix("openai:").partition("#")
        if not url or not model:
            raise UnknownPolicyError(spec)
        return OpenAIPolicy(url, model, api_key=api_key)
    raise UnknownPolicyError(spec)

