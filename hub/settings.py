"""Hub configuration. Only the CLI entrypoint reads environment variables; this is plain data."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

_M_ARENA_MAX = -8  # glibc's mallopt parameter

__all__ = ["HubSettings", "limit_malloc_arenas"]


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


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas for this process; for entrypoints, before threads start.

    glibc gives each thread that allocates its own arena; the hub's worker threads clone and
    drop SQLite databases in all of them, and the arenas fragment: RSS grew 48 MiB over a
    10,000-episode soak with the default, and stayed flat with two arenas (bench/soak.py).
    Returns False where there is no glibc (nothing changes there).
    """
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(_M_ARENA_MAX, arenas))
    except (OSError, AttributeError):
        return False
