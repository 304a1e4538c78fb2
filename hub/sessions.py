"""Live hub sessions: creation with a capacity limit, lookup, idle reaping.

Session ids and MCP tokens are 192-bit random URL-safe strings: unguessable, and never derived
from each other. The manager itself does no I/O; the app calls it from worker threads where a
reset clones a database, so nothing here may block on the event loop.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field

from agentworld.servers import Catalog

from .episode import Episode, pick_task
from .errors import SessionCapacityError, UnknownSessionError

__all__ = ["HubSession", "SessionManager"]


@dataclass
class HubSession:
    id: str
    mcp_token: str
    episode: Episode
    created: float
    last_used: float = field(default=0.0)

    def touch(self) -> None:
        self.last_used = time.monotonic()


class SessionManager:
    """Owns every live episode of a hub process."""

    def __init__(self, catalog: Catalog, *, max_sessions: int = 1024,
                 idle_timeout: float = 600.0, id_prefix: str = "") -> None:
        self.catalog = catalog
        self.id_prefix = id_prefix
        self.max_sessions = max_sessions
        self.idle_timeout = idle_timeout
        self._sessions: dict[str, HubSession] = {}
        self._by_token: dict[str, HubSession] = {}
        self._lock = threading.Lock()
        self._reserved = 0
        self.created_total = 0
        self.reaped_total = 0
        self.ended_total = 0  # deleted or reaped

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, env_id: str, *, task_id: str | None = None, seed: int | None = None,
               max_steps: int | None = None) -> HubSession:
        """Reset a new episode. Raises SessionCapacityError, UnknownEnvironmentError,
        UnknownTaskError."""
        with self._lock:
            active = len(self._sessions) + self._reserved
            if active >= self.max_sessions:
                raise SessionCapacityError(active, self.max_sessions)
            self._reserved += 1  # hold the slot while the clone runs outside the lock
        try:
            env = self.catalog.load(env_id)
            task = pick_task(env, task_id=task_id, seed=seed)
            sid = self.id_prefix + secrets.token_urlsafe(24)
            episode = Episode(env, task=task, seed=seed or 0, max_steps=max_steps, episode_id=sid)
            now = time.monotonic()
            session = HubSession(sid, self.id_prefix + secrets.token_urlsafe(24), episode, now,
                                 now)
            with self._lock:
                self._sessions[sid] = session
                self._by_token[session.mcp_token] = session
                self.created_total += 1
            return session
        finally:
            with self._lock:
                self._reserved -= 1

    def get(self, session_id: str) -> HubSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise UnknownSessionError(session_id)
        session.touch()
        return session

    def by_mcp_token(self, token: str) -> HubSession:
        session = self._by_token.get(token)
        if session is None:
            raise UnknownSessionError("(token)")
        session.touch()
        return session

    def delete(self, session_id: str) -> None:
        with self._lock:
            session = self._sessions.pop(session_id, None)
            if session is None:
                raise UnknownSessionError(session_id)
            self._by_token.pop(session.mcp_token, None)
            self.ended_total += 1
        session.episode.close()

    def reap_idle(self, now: float | None = None) -> int:
        """End sessions idle for longer than the timeout; returns how many were ended."""
        now = time.monotonic() if now is None else now
        with self._lock:
            stale = [s for s in self._sessions.values() if now - s.last_used > self.idle_timeout]
            for session in stale:
                del self._sessions[session.id]
                self._by_token.pop(session.mcp_token, None)
            self.reaped_total += len(stale)
            self.ended_total += len(stale)
        for session in stale:
            session.episode.close()
        return len(stale)

    def close_all(self) -> None:
        with self._lock:
            sessions = list(self._sessions.values())
            self._sessions.clear()
            self._by_token.clear()
        for session in sessions:
            session.episode.close()
