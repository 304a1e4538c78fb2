"""Playing the current policy on the arena's tasks and recording full trajectories.

Policies speak the hub client's interface (``reset``, ``step``, ``end``, ``env``), the same one
the trainer's policies use. :class:`LocalHub` implements it in-process on
:class:`~agentworld.hub.episode.Episode`, so no server is needed; :class:`RecordingHub` wraps any
such hub (a :class:`~agentworld.hub.client.HubClient` on a URL included) and keeps what each
episode did, which is what the diagnosis reads.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Sequence
from typing import Any, Protocol

from agentworld.hub.episode import Episode, pick_task

from .records import EpisodeRecord, StepRecord
from .world import ArenaWorld

__all__ = ["HubLike", "ArenaPolicy", "LocalHub", "RecordingHub", "play_all"]


class HubLike(Protocol):
    async def env(self, env_id: str) -> dict[str, Any]: ...

    async def reset(self, env_id: str, *, task_id: str | None = None, seed: int | None = None,
                    max_steps: int | None = None) -> dict[str, Any]: ...

    async def step(self, session_id: str, action: Any) -> dict[str, Any]: ...

    async def end(self, session_id: str) -> None: ...


class ArenaPolicy(Protocol):
    """The trainer's policy contract: ``play`` one task on a hub. Whatever it returns is not
    used; the arena reads the episode from the hub it was given."""

    name: str

    async def play(self, hub: Any, task: Any) -> Any: ...


class LocalHub:
    """The hub's reset/step/end in-process, over the arena's catalog."""

    def __init__(self, world: ArenaWorld, *, max_steps: int | None = None) -> None:
        self.world = world
        self.max_steps = max_steps
        self._episodes: dict[str, Episode] = {}
        self._ids = itertools.count(1)

    async def env(self, env_id: str) -> dict[str, Any]:
        return self.world.load(env_id).describe()

    async def reset(self, env_id: str, *, task_id: str | None = None, seed: int | None = None,
                    max_steps: int | None = None) -> dict[str, Any]:
        env = self.world.load(env_id)
        sid = f"local-{next(self._ids)}"
        episode = Episode(env, task=pick_task(env, task_id=task_id, seed=seed), seed=seed or 0,
                          max_steps=max_steps or self.max_steps, episode_id=sid)
        self._episodes[sid] = episode
        return {"session_id": sid, "observation": episode.observation,
                "info": episode.reset_info()}

    async def step(self, session_id: str, action: Any) -> dict[str, Any]:
        return self._episodes[session_id].step(action).to_dict()

    async def end(self, session_id: str) -> None:
        episode = self._episodes.pop(session_id, None)
        if episode is not None:
            episode.close()


def _output(observation: str) -> Any:
    try:
        return json.loads(observation)
    except (TypeError, json.JSONDecodeError):
        return observation


def _action(action: Any) -> tuple[str, dict[str, Any]]:
    from agentworld.hub.actions import MalformedAction, Submit, parse_action

    parsed = parse_action(action)
    if isinstance(parsed, Submit):
        return "submit", {"answer": parsed.answer}
    if isinstance(parsed, MalformedAction):
        return "", {}
    return parsed.name, parsed.arguments if isinstance(parsed.arguments, dict) else {}


class RecordingHub:
    """Wraps a hub; every session's trajectory and ending are kept in ``records``."""

    def __init__(self, inner: HubLike, world: ArenaWorld, *,
                 max_steps: int | None = None) -> None:
        self.inner, self.world, self.max_steps = inner, world, max_steps
        self.records: dict[tuple[str, str], EpisodeRecord] = {}
        self._open: dict[str, EpisodeRecord] = {}

    async def env(self, env_id: str) -> dict[str, Any]:
        return await self.inner.env(env_id)

    async def reset(self, env_id: str, *, task_id: str | None = None, seed: int | None = None,
                    max_steps: int | None = None) -> dict[str, Any]:
        started = await self.inner.reset(env_id, task_id=task_id, seed=seed,
                                         max_steps=max_steps or self.max_steps)
        record = self.world.tasks[env_id][task_id]
        l1, l2 = self.world.taxonomy(env_id)
        self._open[started["session_id"]] = EpisodeRecord(
            env_id=env_id, task_id=task_id, l1=l1, l2=l2, prompt=record.prompt,
            reference_tools=[name for name, _ in record.reference_calls],
            max_steps=started["info"].get("max_steps", 0))
        return started

    async def step(self, session_id: str, action: Any) -> dict[str, Any]:
        out = await self.inner.step(session_id, action)
        ep = self._open.get(session_id)
        if ep is None:
            return out
        name, arguments = _action(action)
        info = out.get("info") or {}
        if name == "submit" and out["terminated"]:
            ep.submitted, ep.answer = True, arguments.get("answer")
        else:
            malformed = bool(info.get("malformed"))
            ep.steps.append(StepRecord(
                tool=name or "<malformed>", arguments=arguments,
                ok=bool(info.get("ok")) and not malformed,
                error_code="MALFORMED_ACTION" if malformed else info.get("error_code"),
                output=_output(out.get("observation"))))
        if out["terminated"] or out["truncated"]:
            verdict = info.get("verdict") or {}
            ep.truncated = bool(out["truncated"])
            ep.reward, ep.passed = float(out.get("reward") or 0.0), bool(verdict.get("passed"))
            ep.components = dict(verdict.get("components") or {})
        return out

    async def end(self, session_id: str) -> None:
        ep = self._open.pop(session_id, None)
        if ep is not None:
            self.records[(ep.env_id, ep.task_id)] = ep
        await self.inner.end(session_id)


async def _play_all(policy: ArenaPolicy, world: ArenaWorld, tasks: Sequence[Any], *,
                    max_steps: int | None, hub_url: str | None) -> list[EpisodeRecord]:
    if hub_url is None:
        return await _play(policy, RecordingHub(LocalHub(world, max_steps=max_steps), world),
                           tasks)
    from agentworld.hub.client import HubClient

    async with HubClient(hub_url) as client:
        return await _play(policy, RecordingHub(client, world, max_steps=max_steps), tasks)


async def _play(policy: ArenaPolicy, hub: RecordingHub, tasks: Sequence[Any]
                ) -> list[EpisodeRecord]:
    limit = asyncio.Semaphore(max(1, getattr(policy, "concurrency", 8)))
    errors: dict[tuple[str, str], str] = {}

    async def one(task) -> None:
        async with limit:
            try:
                await policy.play(hub, task)
            except Exception as exc:  # noqa: BLE001 - one broken episode is data, not a crash
                errors[(task.env_id, task.task_id)] = f"{type(exc).__name__}: {exc}"
    await asyncio.gather(*(one(t) for t in tasks))
    out = []
    for task in tasks:
        key = (task.env_id, task.task_id)
        record = hub.records.get(key)
        if record is None:
            l1, l2 = hub.world.taxonomy(task.env_id)
            record = EpisodeRecord(task.env_id, task.task_id, l1, l2, task.prompt,
                                   [n for n, _ in task.reference_calls])
        record.error = errors.get(key, record.error)
        out.append(record)
    return out


def play_all(policy: ArenaPolicy, world: ArenaWorld, tasks: Sequence[Any], *,
             max_steps: int | None = None, hub_url: str | None = None) -> list[EpisodeRecord]:
    """Play every task once, in-process unless ``hub_url`` names a hub (which must serve the
    arena's catalog: one started on ``world.catalog``); one record per task, in order."""
    return asyncio.run(_play_all(policy, world, tasks, max_steps=max_steps, hub_url=hub_url))
