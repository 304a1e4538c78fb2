"""Hub configuration. Only the CLI entrypoint reads environment variables; this is plain data."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HubSettings"]


@dataclass(frozen=True, kw_only=True)
class HubSettings:
    host: str = "127.0.0.1"
    port: int = 8000
    # Capacity: past max_sessions a reset answers 503 with Retry-After.
    max_sessions: int = 1024
    idle_timeout: float = 600.0
    reap_interval: float = 5.0
    # When set, every route but /healthz and the per-session MCP endpoints needs
    # "Authorization: Bearer <token>" (the per-session endpoints carry their own secret token).
    token: str | None = None
    max_request_bytes: int = 1_000_000
    # Threads that run tool calls and database clones off the event loop.
    worker_threads: int = 32
    # A call kind (a tool, a reset) that has always finished within this many seconds runs on the
    # event loop, skipping the thread hop; 0 sends every call to a thread (hub/inline.py).
    inline_budget_s: float = 0.001
    retry_after_seconds: int = 1
    # Prepended to every session id and MCP token this hub mints: on a Ray cluster it names the
    # replica and its incarnation, so the entry router can route (and tell a lost session).
    session_id_prefix: str = ""

