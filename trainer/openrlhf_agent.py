"""The agent file for OpenRLHF 0.11 (``--train.agent_func_path`` points here).

OpenRLHF loads this file by path (``spec_from_file_location("agent_module", path)``) inside each
vLLM rollout actor and builds ``AgentExecutor()`` with no arguments, so the hub is configured
by environment variables, read here:

* ``AGENTWORLD_HUB_URL`` (required: the agent refuses to start without it, rather than
  reward every rollout 0 against a hub that is not there) and ``AGENTWORLD_TOKEN``;
* ``AGENTWORLD_MAX_TURN_TOKENS``: a cap on one reply (default: ``--rollout.max_new_tokens``,
  else the whole remaining budget);
* ``AGENTWORLD_TOOL_VIEW``: how tools are shown (``full``, ``compact``, ``compact:N``; see
  ``servers/tool_views.py``), the same view the dataset and evaluation use.

``agentworld.trainer.openrlhf_launch`` starts Ray with these variables in its runtime
environment, so they reach the vLLM workers on every node, not only the driver.

Each ``execute`` resets the task named by the dataset label on the hub, renders the tools with
the model's chat template, alternates vLLM generations and hub steps, and returns the verifier's
reward with the action ranges of the model's tokens (environment tokens are left out).
"""

from __future__ import annotations

import asyncio
import os
import weakref
from copy import deepcopy
from typing import Any

import torch
from openrlhf.utils.agent import AgentExecutorBase

from agentworld.hub.client import HubClient
from agentworld.servers.tool_views import parse_view
from agentworld.trainer.tasks import label_of
from agentworld.trainer.token_episode import (
    EnvInfoCache,
    Generation,
    TokenEpisode,
    run_token_episode,
)

__all__ = ["AgentExecutor"]


def _logprobs(output, token_ids: list[int]) -> list[float] | None:
    if output.logprobs is None:
        return None
    return [float(lp[t].logprob) if t in lp else 0.0 for t, lp in zip(token_ids, output.logprobs,
                                                                      strict=False)]


class AgentExecutor(AgentExecutorBase):
    """Drives one agentworld episode per ``execute`` on the hub, over HTTP."""

    def __init__(self) -> None:
        self.hub_url = os.environ.get("AGENTWORLD_HUB_URL") or ""
        if not self.hub_url:
            raise RuntimeError("AGENTWORLD_HUB_URL is not set in this Ray worker: launch with "
                               "`python -m agentworld.trainer.openrlhf_launch` (or pass it in "
                               "Ray's runtime_env env_vars)")
        self.token = os.environ.get("AGENTWORLD_TOKEN") or None
        turn = os.environ.get("AGENTWORLD_MAX_TURN_TOKENS")
        self.max_turn_tokens = int(turn) if turn else None
        self.tool_view = parse_view(os.environ.get("AGENTWORLD_TOOL_VIEW") or "full")
        self.cache = EnvInfoCache()
        # aiohttp sessions belong to one event loop; OpenRLHF's actor has one, tests have many.
        self._clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def _hub(self) -> HubClient:
        loop = asyncio.get_running_loop()
        if loop not in self._clients:
            self._clients[loop] = HubClient(self.hub_url, token=self.token)
        return self._clients[loop]

    async def aclose(self) -> None:
        """Close this event loop's connections to the hub."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    async def execute(self, prompt, label, sampling_params, max_length: int, hf_tokenizer,
                      llm_engine, images=None):
        env_id, task_id = label_of(label)
        track = getattr(sampling_params, "logprobs", None) is not None

        async def generate(token_ids: list[int], max_tokens: int) -> Generation:
            params = deepcopy(sampling_params)
            params.max_tokens = max_tokens
            result = await llm_engine.generate(token_ids, params)
            output = result.outputs[0]
            ids = list(output.token_ids)
            return Generation(ids, output.text, output.finish_reason,
                              _logprobs(output, ids) if track else None)

        cap = self.max_turn_tokens or getattr(sampling_params, "max_tokens", None)
        episode = await run_token_episode(
            self._hub(), env_id=env_id, task_id=task_id, tokenizer=hf_tokenizer,
            generate=generate, max_length=max_length, max_new_tokens=cap, cache=self.cache,
            track_logprobs=track, tool_view=self.tool_view)
        return self._response(prompt, label, images, episode)

    @staticmethod
    def _response(prompt, label, images, episode: TokenEpisode) -> dict[str, Any]:
        reward = torch.tensor(episode.reward, dtype=torch.float32)
        return {
            "prompt": prompt, "label": label, "images": images, "mm_train_inputs": None,
            "reward": reward, "scores": reward.clone(),
            "observation_tokens": episode.tokens, "action_ranges": episode.action_ranges,
            "rollout_log_probs": episode.logprobs, "truncated": episode.truncated,
            "extra_logs": {"passed": float(episode.passed), "turns": float(episode.turns),
                           "tool_calls": float(episode.tool_calls),
                           "tool_errors": float(episode.tool_errors),
                           "hub_truncated": float(episode.hub_truncated),
                           "out_of_turns": float(episode.out_of_turns),
                           "malformed": float(episode.malformed),
                           "prompt_truncated": float(episode.prompt_truncated)},
        }
