"""One hub replica as a Ray actor, and the session-id scheme that names it.

A replica is the ordinary hub (:func:`agentworld.hub.app.create_app`) on a real uvicorn, bound to
its node's address on a free port. Ray places it and, with ``max_restarts``, restarts it when its
process dies; a restart runs ``__init__`` again, so the server starts there, never in a method
a restart would skip.

Every session id and MCP token a replica mints starts with ``r<index>.<epoch>.``: the index says
which replica holds the session, the epoch (fresh random hex per start) says which incarnation.
The entry router routes on the index alone, and a session whose epoch is not the replica's
current one was held by a process that died: it is lost, not unknown.
"""

from __future__ import annotations

import os
import re
import secrets
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .in_thread import serve_in_thread

__all__ = ["HubReplica", "ReplicaInfo", "replica_prefix", "parse_replica_id",
           "REPLICA_KEEP_ALIVE"]

# Seconds a replica keeps an idle router connection open; the router's pool lets go sooner.
REPLICA_KEEP_ALIVE = 60.0
_ID = re.compile(r"r(\d{1,5})\.([0-9a-f]{8})\.")


def replica_prefix(index: int, epoch: str) -> str:
    """The prefix of every id minted by replica ``index`` in incarnation ``epoch``."""
    return f"r{index}.{epoch}."


def parse_replica_id(value: str) -> tuple[int, str] | None:
    """``(index, epoch)`` from a session id, MCP token or MCP session id; None if it has none."""
    match = _ID.match(value)
    return (int(match.group(1)), match.group(2)) if match else None


@dataclass(frozen=True)
class ReplicaInfo:
    """Where a replica serves and which incarnation it is; crosses the Ray boundary."""

    index: int
    epoch: str
    url: str
    node_id: str
    pid: int
    restarted: bool


class HubReplica:
    """The body of the replica actor (``ray.remote`` is applied by the placement code, so this
    module imports without Ray for the id helpers).

    Args:
        index: the replica's slot, 0..N-1; it stays the same across restarts.
        settings: :class:`HubSettings` fields as a dict (host, port and the id prefix are set
            here).
        catalog_factory: builds the catalog in the replica's process; None means the configured
            catalog (shipped, synthesized and imported environments).
        host: the address to bind; None means the node's address as Ray knows it.
    """

    def __init__(self, index: int, *, settings: dict[str, Any] | None = None,
                 catalog_factory: Callable[[], Any] | None = None,
                 host: str | None = None) -> None:
        import ray

        from .app import create_app
        from .settings import HubSettings

        context = ray.get_runtime_context()
        self.index, self.epoch = index, secrets.token_hex(4)
        with warnings.catch_warnings():  # Ray 2.60 reads its own deprecated actor_id here
            warnings.simplefilter("ignore", DeprecationWarning)
            self.restarted = bool(context.was_current_actor_reconstructed)
        self.node_id = context.get_node_id()
        host = host or ray.util.get_node_ip_address()
        if catalog_factory is None:
            from agentworld.servers.catalog import configured_catalog as catalog_factory
        fields = {**(settings or {}), "host": host, "port": 0,
                  "session_id_prefix": replica_prefix(index, self.epoch)}
        hub_settings = HubSettings(**fields)
        app = create_app(catalog_factory(), settings=hub_settings)
        self._server, self._thread, port = serve_in_thread(
            app, host, ws_max_size=hub_settings.max_request_bytes,
            keep_alive=int(REPLICA_KEEP_ALIVE))
        self.url = f"http://{host}:{port}"

    def info(self) -> ReplicaInfo:
        """Where this incarnation serves; the router polls it to notice restarts."""
        return ReplicaInfo(self.index, self.epoch, self.url, self.node_id, os.getpid(),
                           self.restarted)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving (its sessions end); the actor is killed afterwards by its owner."""
        self._server.should_exit = True
        self._thread.join(timeout)
