"""Errors of the Gymnasium environments: faults of the caller or the service, never the agent's.

An agent's mistake (a malformed action, a failing tool call) is an observation, not an exception.
What raises is what an orchestrator must handle: an unknown environment or task, a hub at
capacity, a lost session, stepping an episode that has ended. In-process and remote mode raise
the same classes with the same ``code`` (the hub's stable error codes), so code written against
one mode handles the other.
"""

from __future__ import annotations

from gymnasium import error as gym_error

__all__ = ["AgentWorldEnvError", "EpisodeEndedError"]


class AgentWorldEnvError(gym_error.Error):
    """A fault reported by the runtime or the hub.

    Attributes: ``code`` (e.g. ``UNKNOWN_ENVIRONMENT``, ``UNKNOWN_TASK``, ``AT_CAPACITY``,
    ``UNKNOWN_SESSION``), ``message``, ``status`` (the HTTP status in remote mode, else None) and
    ``retry_after`` (seconds, when the hub asked the caller to retry).
    """

    def __init__(self, code: str, message: str, *, status: int | None = None,
                 retry_after: float | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status, self.retry_after = (
            code, message, status, retry_after)


class EpisodeEndedError(AgentWorldEnvError, gym_error.ResetNeeded):
    """``step`` was called before ``reset`` or after the episode terminated or truncated."""

    def __init__(self, message: str = "the episode has ended; call reset() to start a new one",
                 *, status: int | None = None) -> None:
        super().__init__("EPISODE_OVER", message, status=status)
