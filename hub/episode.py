"""One episode: a task, a private session, a trajectory, and a reward from the task's verifier.

This is the single implementation of the step loop. The in-process Gymnasium environment, the
hub's HTTP and WebSocket routes and its per-session MCP endpoint all drive an :class:`Episode`,
so every way in gives the same observations and the same rewards.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

from agentworld.servers import Environment, Session, ToolResult
from agentworld.servers.tasks import Step, Task, Verdict, VerifierInput
from agentworld.servers.tool_views import task_tool_order

from ._json import Fragment, dumps, dumps_str
from .actions import MalformedAction, Submit, ToolCall, parse_action
from .errors import EpisodeOverError, UnknownTaskError
from .inline import Busy

__all__ = ["Episode", "StepOutcome", "ToolListing", "pick_task", "tool_listing",
           "DEFAULT_MAX_STEPS"]

DEFAULT_MAX_STEPS = 30


@dataclass(frozen=True)
class StepOutcome:
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"observation": self.observation, "reward": self.reward,
                "terminated": self.terminated, "truncated": self.truncated, "info": self.info}


def pick_task(env: Environment, *, task_id: str | None, seed: int | None) -> Task | None:
    """The task named by ``task_id``, else the one the seed picks; None if the env has none."""
    if task_id is not None:
        task = env.task(task_id)
        if task is None:
            raise UnknownTaskError(env.id, task_id)
        return task
    if not env.tasks:
        return None
    return env.tasks[(seed or 0) % len(env.tasks)]


def _json(value: Any) -> str:
    return dumps_str(value)


@dataclass(frozen=True)
class ToolListing:
    """An environment's tool list, its digest, and its JSON encoded once for every reply."""

    tools: list[dict[str, Any]]
    hash: str
    encoded: Fragment  # embedded as is in hub replies: the list is encoded once, not per reset


_listings: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def tool_listing(env: Environment) -> ToolListing:
    """The environment's tools as reset reports them, computed once per loaded environment."""
    listing = _listings.get(env)
    if listing is None:
        tools = env.tool_list()
        canonical = dumps(tools)
        listing = ToolListing(tools, hashlib.blake2b(canonical, digest_size=16).hexdigest(),
                              Fragment(canonical))
        _listings[env] = listing
    return listing


class Episode:
    """A reset episode. ``step`` and ``call`` may come from any thread; a lock orders them."""

    def __init__(self, env: Environment, *, task: Task | None, seed: int = 0,
                 max_steps: int | None = None, episode_id: str = "") -> None:
        self.env = env
        self.task = task
        self.seed = seed
        self.episode_id = episode_id
        self.max_steps = max_steps or (task.max_steps if task else DEFAULT_MAX_STEPS)
        if task is not None and task.session_seed is not None:
            seed = task.session_seed
        self.session = Session(env, seed=seed)
        self.trajectory: list[Step] = []
        self.steps = 0
        self.terminated = False
        self.truncated = False
        self.verdict: Verdict | None = None
        self.answer: str | None = None
        self._lock = threading.Lock()

    # -- what the agent is told at reset ---------------------------------------------------------
    @property
    def prompt(self) -> str:
        if self.task is not None:
            return self.task.prompt
        return (f"You are working in {self.env.manifest.title}. Explore it with the tools, then "
                "call submit when you are done.")

    def reset_info(self, *, include_tools: bool = True) -> dict[str, Any]:
        """What reset tells the orchestrator. ``tools_hash`` names the tool list, so a client
        that holds it can ask the hub to leave ``tools`` out (``include_tools=False``)."""
        tools = tool_listing(self.env)
        return {"episode_id": self.episode_id, "env_id": self.env.id,
                "env_version": self.env.manifest.version,
                "task_id": self.task.id if self.task else None, "prompt": self.prompt,
                **({"tools": tools.tools} if include_tools else {}),
                "tools_hash": tools.hash, "max_steps": self.max_steps, "seed": self.seed,
                # the order compact tool views take their subset from (servers/tool_views.py)
                "relevant_tools": task_tool_order(self.env, self.task)}

    @property
    def observation(self) -> str:
        return self.prompt

    # -- the loop ----------------------------------------------------------------------------------
    def step(self, action: Any, blocking: bool = True) -> StepOutcome:
        """One step. ``action`` is anything :func:`parse_action` takes, or its result.

        With ``blocking=False`` (the hub's inline path on the event loop) the step never waits and
        never verifies: it raises :class:`Busy` when another thread holds the episode or its
        session, and when the step would end the episode (the verifier may be slow).
        Raises EpisodeOverError once the episode has ended.
        """
        parsed = parse_action(action)
        if not blocking and isinstance(parsed, Submit):
            raise Busy
        if not self._lock.acquire(blocking):
            raise Busy
        try:
            if self.done:
                raise EpisodeOverError(self.episode_id)
            if not blocking and self.steps + 1 >= self.max_steps:
                raise Busy
            if isinstance(parsed, Submit):
                self.steps += 1
                return self._finish(parsed.answer, terminated=True)
            if isinstance(parsed, MalformedAction):
                error = {"code": "MALFORMED_ACTION", "message": parsed.reason}
                observation = _json({"error": error})
                self.steps += 1
                info = {"step": self.steps, "malformed": True}
            else:
                result = self._record(parsed, blocking)
                observation = _json(result.payload())
                self.steps += 1
                info = {"step": self.steps, "tool": result.tool, "ok": result.ok,
                        "error_code": result.code}
            if self.steps >= self.max_steps:
                return self._finish(None, terminated=False, observation=observation, info=info)
            return StepOutcome(observation, 0.0, False, False, info)
        finally:
            self._lock.release()

    def call(self, name: str, arguments: Any, blocking: bool = True) -> ToolResult:
        """A tool call from outside the step loop (the session's MCP endpoint); it is recorded.
        ``blocking`` as for :meth:`step`."""
        if not self._lock.acquire(blocking):
            raise Busy
        try:
            if self.done:
                raise EpisodeOverError(self.episode_id)
            if not blocking and self.steps + 1 >= self.max_steps:
                raise Busy
            result = self._record(ToolCall(name, arguments), blocking)
            self.steps += 1
            if self.steps >= self.max_steps:
                self._finish(None, terminated=False)
            return result
        finally:
            self._lock.release()

    def _record(self, call: ToolCall, blocking: bool = True) -> ToolResult:
        result = self.session.call(call.name, call.arguments, blocking=blocking)
        # A non-object argument value was refused by the runtime; record it as empty.
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        self.trajectory.append(Step(call.name, arguments, result.ok, result.payload()))
        return result

    def _finish(self, answer: str | None, *, terminated: bool, observation: str | None = None,
                info: dict[str, Any] | None = None) -> StepOutcome:
        self.answer = answer
        self.terminated, self.truncated = terminated, not terminated
        self.verdict = self._verify(answer)
        reward = self.verdict.reward if self.verdict else 0.0
        info = {**(info or {"step": self.steps}),
                "verdict": self.verdict.to_dict() if self.verdict else None}
        if observation is None:
            observation = _json({"submitted": answer is not None, "reward": reward})
        return StepOutcome(observation, reward, self.terminated, self.truncated, info)

    def _verify(self, answer: str | None) -> Verdict | None:
        if self.task is None:
            return None
        initial = self.env.template.clone()
        try:
            return self.task.verifier(VerifierInput(initial=initial, final=self.session.db,
                                                    answer=answer,
                                                    trajectory=tuple(self.trajectory)))
        finally:
            initial.close()

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def state(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "env_id": self.env.id,
                "task_id": self.task.id if self.task else None, "steps": self.steps,
                "max_steps": self.max_steps, "terminated": self.terminated,
                "truncated": self.truncated, "answer": self.answer,
                "verdict": self.verdict.to_dict() if self.verdict else None,
                "db_hash": self.session.hash(),
                "trajectory": [{"tool": s.tool, "arguments": s.arguments, "ok": s.ok}
                               for s in self.trajectory]}

    def close(self) -> None:
        self.session.close()
