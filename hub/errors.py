"""Errors of the hub: protocol and service faults for the caller, never tool results.

One base class with structured attributes; the app maps each to an HTTP status in one handler.
"""

from __future__ import annotations

__all__ = ["HubError", "SessionCapacityError", "UnknownSessionError", "UnknownTaskError",
           "EpisodeOverError", "RequestTooLargeError", "SessionLostError"]


class HubError(Exception):
    status: int = 400
    code: str = "BAD_REQUEST"

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": str(self)}


class SessionCapacityError(HubError):
    status, code = 503, "AT_CAPACITY"

    def __init__(self, active: int, limit: int, retry_after: int = 1) -> None:
        super().__init__(f"the hub is at capacity ({active} of {limit} sessions); retry later")
        self.active, self.limit, self.retry_after = active, limit, retry_after


class UnknownSessionError(HubError):
    status, code = 404, "UNKNOWN_SESSION"

    def __init__(self, session_id: str) -> None:
        super().__init__("no such session (it may have ended or been reaped)")
        self.session_id = session_id


class UnknownTaskError(HubError):
    status, code = 404, "UNKNOWN_TASK"

    def __init__(self, env_id: str, task_id: str) -> None:
        super().__init__(f"environment {env_id!r} has no task {task_id!r}")
        self.env_id, self.task_id = env_id, task_id


class EpisodeOverError(HubError):
    status, code = 409, "EPISODE_OVER"

    def __init__(self, episode_id: str) -> None:
        super().__init__("the episode has ended; reset to start a new one")
        self.episode_id = episode_id


class RequestTooLargeError(HubError):
    status, code = 413, "REQUEST_TOO_LARGE"

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"request body of {size} bytes exceeds the limit of {limit}")
        self.size, self.limit = size, limit


class SessionLostError(HubError):
    """The replica that held the session died (a Ray cluster hub): its episode is gone for good,
    unlike an unknown session, and retrying the same id will never succeed."""

    status, code = 410, "SESSION_LOST"

    def __init__(self, session_id: str, replica: int) -> None:
        super().__init__(f"the session was lost: hub replica {replica} that held it failed; "
                         "reset to start a new episode")
        self.session_id, self.replica = session_id, replica
