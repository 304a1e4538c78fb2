"""``AgentWorldEnv``: every agentworld environment as one Gymnasium environment class.

In-process by default (an :class:`~agentworld.hub.episode.Episode` in this process, on the
catalog's environment); with ``hub_url`` the same episodes run on a hub. Both modes share the
step loop, so the same seed and actions give the same observations and rewards.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np

from agentworld.hub.actions import MAX_ACTION_CHARS, Submit, ToolCall, parse_action
from agentworld.servers import Catalog, default_catalog
from agentworld.servers.tasks import REWARD_MODES, Step, reward_for

from ._backends import Backend, LocalBackend, RemoteBackend
from .errors import AgentWorldEnvError, EpisodeEndedError
from .spaces import TextSpace, ToolCallSpace

__all__ = ["AgentWorldEnv"]

# Seeds drawn for unseeded resets stay below 2**31 so every hub and client accepts them.
_SEED_BOUND = 2**31
_RESET_OPTIONS = frozenset({"task_id"})


def _to_wire(action: Any) -> Any:
    """The action as a JSON value, the way the hub would receive it.

    Both modes step with this value, so an action JSON cannot carry (a set, a custom object)
    gets the same observation in-process as remotely, instead of an exception in one mode.
    """
    if isinstance(action, str):
        return action
    if isinstance(action, bytes | bytearray):
        return bytes(action).decode("utf-8", "replace")
    try:
        text = json.dumps(action, ensure_ascii=False, default=_jsonable)
    except (TypeError, ValueError) as exc:
        # Not JSON: sent as text that is not JSON either, so the episode answers
        # MALFORMED_ACTION (and counts the step) in both modes.
        return f"<action is not JSON-encodable: {exc}>"[:MAX_ACTION_CHARS]
    if len(text) > MAX_ACTION_CHARS:
        # Sent as a string of just over the limit: the episode refuses it with the same message
        # in both modes, and the request stays under the hub's body limit.
        return " " * (MAX_ACTION_CHARS + 1)
    return json.loads(text)


def _jsonable(value: Any) -> Any:
    # numpy values (from vector envs, or arguments an agent computed) are plain JSON numbers.
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


class AgentWorldEnv(gym.Env[str, dict[str, Any]]):
    """A stateful tool-use environment: observations are text, actions are tool calls.

    Args:
        env_id: the catalog id, e.g. ``"notion"``.
        hub_url: a hub's base URL (``http://host:port``) to run episodes there; None runs them
            in this process.
        token: the hub's bearer token, if it has one.
        max_episode_steps: steps before the episode truncates (and its verifier scores the
            state); None uses the task's own limit. Note that ``gym.make(id,
            max_episode_steps=N)`` is consumed by Gymnasium and adds a ``TimeLimit`` wrapper
            instead; pass it to the constructor (or in a registered spec's kwargs) to have the
            episode itself truncate and be scored.
        catalog: in-process only: the catalog to load ``env_id`` from (default: every
            environment agentworld ships).
        render_mode: ``"ansi"`` (``render()`` returns the last exchange as text) or ``"human"``
            (prints it).
        reward_mode: ``"binary"`` (default: 1 for a pass, 0 for a failure) or ``"partial"``
            (1 for a pass, half the rubric's score for a failure, so every failure still ranks
            below every pass).
        judge: an optional :class:`~agentworld.servers.taskgen.reply.judge.ClaimsJudge`. At
            the end of an episode it grades the statements of the reply that the verifier's
            claim reader could not decide (``info["verdict"]["notes"]["undecided"]``) and puts
            its grades in ``info["judge"]``; the reward never depends on it.

    ``reset(seed=..., options={"task_id": ...})`` starts an episode; ``info`` holds the prompt,
    the tools (MCP schemas), the episode id and the environment version. Actions are
    ``{"name", "arguments"}`` dicts, JSON strings of one, or OpenAI ``tool_calls``; ``{"name":
    "submit", "arguments": {"answer": ...}}`` ends the episode and the verifier's reward (with
    its components in ``info["verdict"]``) comes back on that step.

    Raises:
        AgentWorldEnvError: unknown environment or task, hub at capacity, lost session.
        EpisodeEndedError: ``step`` before ``reset`` or after the episode ended.
        ValueError: bad constructor arguments or unknown reset options.
    """

    # render_fps only matters to video recorders; the checker asks for it whenever modes exist.
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, env_id: str, *, hub_url: str | None = None, token: str | None = None,
                 max_episode_steps: int | None = None, catalog: Catalog | None = None,
                 render_mode: str | None = None, reward_mode: str = "binary",
                 judge: Any = None) -> None:
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        if max_episode_steps is not None and max_episode_steps < 1:
            raise ValueError("max_episode_steps must be at least 1")
        if hub_url is not None and catalog is not None:
            raise ValueError("catalog= is for in-process mode; a hub serves its own catalog")
        self.env_id = env_id
        self.render_mode = render_mode
        self.reward_mode = reward_mode
        self.judge = judge
        self._exchanges: list[tuple[Any, str]] = []
        self._prompt = ""
        self.max_episode_steps = max_episode_steps
        self._backend: Backend = (
            RemoteBackend(hub_url, env_id, token=token) if hub_url is not None
            else LocalBackend(catalog if catalog is not None else default_catalog(), env_id))
        try:
            tools = self._backend.tools()
        except BaseException:
            self._backend.close()  # the hub client may hold an open connection
            raise
        self.observation_space = TextSpace()
        self.action_space = ToolCallSpace(tools)
        self._done = True
        self._last: dict[str, Any] | None = None

    @property
    def mcp_url(self) -> str | None:
        """Remote mode: the current episode's MCP endpoint on the hub (path), else None."""
        return self._backend.mcp_url

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start a new episode; the previous one, if any, is ended first."""
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - _RESET_OPTIONS
        if unknown:
            raise ValueError(f"unknown reset options {sorted(unknown)}; known: task_id")
        # Unseeded resets draw from np_random, so reset(seed=s) followed by reset() replays.
        episode_seed = seed if seed is not None else int(self.np_random.integers(_SEED_BOUND))
        self._done = True
        observation, info = self._backend.reset(task_id=options.get("task_id"),
                                                seed=episode_seed,
                                                max_steps=self.max_episode_steps)
        self._done = False
        self._last = {"observation": observation, "action": None, "reward": 0.0}
        self._exchanges, self._prompt = [], observation
        return observation, info

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Run one action. A malformed action or a failing tool call is an observation."""
        if self._done:
            raise EpisodeEndedError()
        wire = _to_wire(action)
        try:
            outcome = self._backend.step(wire)
        except AgentWorldEnvError as exc:
            # A session the hub no longer has (reaped while idle) cannot continue either.
            if isinstance(exc, EpisodeEndedError) or exc.code == "UNKNOWN_SESSION":
                self._done = True
            raise
        terminated, truncated = bool(outcome["terminated"]), bool(outcome["truncated"])
        self._done = terminated or truncated
        info = outcome["info"]
        if "verdict" in info and info["verdict"] is None:
            # A task-less episode has no verdict; dropping the None keeps "verdict" a dict
            # wherever present, which vector envs need to merge infos across sub-envs.
            del info["verdict"]
        reward = float(outcome["reward"])
        verdict = info.get("verdict")
        if verdict and verdict.get("score") is not None:
            # The hub always answers in the binary scale; partial credit is chosen here.
            reward = reward_for(verdict["score"], bool(verdict["passed"]), self.reward_mode)
        self._last = {"observation": outcome["observation"], "action": wire, "reward": reward,
                      "terminated": terminated, "truncated": truncated}
        self._exchanges.append((wire, outcome["observation"]))
        undecided = (verdict or {}).get("notes", {}).get("undecided")
        if self._done and self.judge is not None and undecided:
            info["judge"] = self._judge(undecided)
        return outcome["observation"], reward, terminated, truncated, info

    def _judge(self, statements: list[str]) -> dict[str, Any]:
        """The judge's grades of the undecided statements, from the calls this episode made."""
        trajectory, answer = [], None
        for wire, observation in self._exchanges:
            action = parse_action(wire)
            if isinstance(action, Submit):
                answer = action.answer
            elif isinstance(action, ToolCall):
                try:
                    output = json.loads(observation)
                except ValueError:
                    output = {"text": observation}
                ok = not (isinstance(output, dict) and "error" in output)
                arguments = action.arguments if isinstance(action.arguments, dict) else {}
                trajectory.append(Step(action.name, arguments, ok, output))
        return self.judge.grade(self._prompt, answer, statements, trajectory)

    def episode_state(self) -> dict[str, Any]:
        """The orchestrator's view of the current episode (steps, verdict, ``db_hash``,
        trajectory), as the hub's ``GET /v1/sessions/{id}`` returns it."""
        return self._backend.state()

    def render(self) -> str | None:
        if self.render_mode is None or self._last is None:
            return None
        text = "\n".join(f"{key}: {value if isinstance(value, str) else json.dumps(value)}"
                         for key, value in self._last.items())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """End the current episode (and its hub session). Safe to call more than once."""
        self._done = True
        self._backend.close()
        super().close()
