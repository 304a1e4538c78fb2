"""The two ways an :class:`AgentWorldEnv` reaches an episode: in this process, or through a hub.

Both drive the same :class:`agentworld.hub.episode.Episode` (directly, or via the hub's REST
API) and hand back the same JSON-shaped values: the in-process backend passes its infos through
a JSON round trip, so tuples become lists and nothing is shared with the runtime, exactly as
when they come over HTTP. Both raise the same :mod:`.errors` for the same faults.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Protocol

from agentworld.hub.client import HubClientError, SyncHubClient
from agentworld.hub.episode import Episode, pick_task
from agentworld.hub.errors import EpisodeOverError, HubError
from agentworld.servers import Catalog, RuntimeFault, UnknownEnvironmentError

from .errors import AgentWorldEnvError, EpisodeEndedError

__all__ = ["Backend", "LocalBackend", "RemoteBackend"]


def _json_copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


class Backend(Protocol):
    """What the env needs from a mode."""

    mcp_url: str | None

    def tools(self) -> list[dict[str, Any]]: ...

    def reset(self, *, task_id: str | None, seed: int,
              max_steps: int | None) -> tuple[str, dict[str, Any]]: ...

    def step(self, action: Any) -> dict[str, Any]: ...

    def state(self) -> dict[str, Any]: ...

    def end(self) -> None: ...

    def close(self) -> None: ...


class LocalBackend:
    """Episodes in this process, on a catalog's :class:`Environment`. No server, no sockets."""

    mcp_url: str | None = None

    def __init__(self, catalog: Catalog, env_id: str) -> None:
        try:
            self.env = catalog.load(env_id)
        except UnknownEnvironmentError as exc:
            # The code the hub answers with, so both modes fail the same way.
            raise AgentWorldEnvError("UNKNOWN_ENVIRONMENT", str(exc)) from exc
        except RuntimeFault as exc:
            raise AgentWorldEnvError("ENVIRONMENT_FAULT", str(exc)) from exc
        self.episode: Episode | None = None
        self._tools: list[dict[str, Any]] | None = None

    def tools(self) -> list[dict[str, Any]]:
        return _json_copy(self.env.tool_list())

    def reset(self, *, task_id: str | None, seed: int,
              max_steps: int | None) -> tuple[str, dict[str, Any]]:
        self.end()
        try:
            task = pick_task(self.env, task_id=task_id, seed=seed)
        except HubError as exc:
            raise AgentWorldEnvError(exc.code, str(exc), status=exc.status) from exc
        # Same id scheme as the hub's sessions.
        self.episode = Episode(self.env, task=task, seed=seed, max_steps=max_steps,
                               episode_id=secrets.token_urlsafe(24))
        info = self.episode.reset_info()
        # The tool list is the bulk of an info and never changes: copy it once per backend.
        if self._tools is None:
            self._tools = _json_copy(info["tools"])
        rest = _json_copy({k: v for k, v in info.items() if k != "tools"})
        return self.episode.observation, {**rest, "tools": self._tools}

    def step(self, action: Any) -> dict[str, Any]:
        if self.episode is None:
            raise EpisodeEndedError("call reset() before step()")
        try:
            outcome = self.episode.step(action)
        except EpisodeOverError as exc:
            raise EpisodeEndedError(status=exc.status) from exc
        return {**outcome.to_dict(), "info": _json_copy(outcome.info)}

    def state(self) -> dict[str, Any]:
        if self.episode is None:
            raise EpisodeEndedError("no episode: call reset() first")
        return _json_copy(self.episode.state())

    def end(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None

    def close(self) -> None:
        self.end()


def _fault(exc: HubClientError) -> AgentWorldEnvError:
    if exc.code == "EPISODE_OVER":
        return EpisodeEndedError(exc.message, status=exc.status)
    return AgentWorldEnvError(exc.code, exc.message, status=exc.status,
                              retry_after=exc.retry_after)


class RemoteBackend:
    """Episodes on a hub, through its REST API (one keep-alive connection per thread)."""

    def __init__(self, hub_url: str, env_id: str, *, token: str | None = None) -> None:
        self.client = SyncHubClient(hub_url, token=token)
        self.env_id = env_id
        self.session_id: str | None = None
        self.mcp_url: str | None = None
        # The tool list and its hash from the last reset: later resets send the hash, and the
        # hub leaves the list (tens of KB) out of its reply while it still matches.
        self._tools: list[dict[str, Any]] | None = None
        self._tools_hash: str | None = None

    def tools(self) -> list[dict[str, Any]]:
        if self._tools is not None:
            return self._tools
        try:
            return self.client.env(self.env_id)["tools"]
        except HubClientError as exc:
            raise _fault(exc) from exc

    def reset(self, *, task_id: str | None, seed: int,
              max_steps: int | None) -> tuple[str, dict[str, Any]]:
        self.end()
        try:
            reply = self.client.reset(self.env_id, task_id=task_id, seed=seed,
                                      max_steps=max_steps, tools_hash=self._tools_hash)
        except HubClientError as exc:
            raise _fault(exc) from exc
        self.session_id, self.mcp_url = reply["session_id"], reply.get("mcp_url")
        info = reply["info"]
        if "tools" in info:
            self._tools, self._tools_hash = info["tools"], info.get("tools_hash")
        elif self._tools is not None:
            info = {**info, "tools": self._tools}
        return reply["observation"], info

    def step(self, action: Any) -> dict[str, Any]:
        if self.session_id is None:
            raise EpisodeEndedError("call reset() before step()")
        try:
            return self.client.step(self.session_id, action)
        except HubClientError as exc:
            raise _fault(exc) from exc

    def state(self) -> dict[str, Any]:
        if self.session_id is None:
            raise EpisodeEndedError("no episode: call reset() first")
        try:
            return self.client.state(self.session_id)
        except HubClientError as exc:
            raise _fault(exc) from exc

    def end(self) -> None:
        session_id, self.session_id, self.mcp_url = self.session_id, None, None
        if session_id is None:
            return
        try:
            self.client.end(session_id)
        except HubClientError as exc:
            # Already gone (reaped while idle, or the hub restarted): nothing left to end.
            if exc.code != "UNKNOWN_SESSION":
                raise _fault(exc) from exc

    def close(self) -> None:
        try:
            self.end()
        except OSError:
            pass  # hub unreachable: the session is reaped once idle; close must not fail on it
        finally:
            self.client.close()
