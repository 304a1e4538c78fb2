"""A hub in a background thread on a free loopback port, for runs that bring their own catalog
(the bench, ``agentworld train`` and ``eval`` without ``--hub-url``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from agentworld.servers import Catalog

__all__ = ["serve_hub"]


@contextlib.contextmanager
def serve_hub(catalog: Catalog, *, max_sessions: int = 1024,
              timeout: float = 30.0) -> Iterator[str]:
    """Serve ``catalog`` on ``127.0.0.1:0`` and yield the base URL; stop on exit.

    Raises:
        RuntimeError: the server did not start within ``timeout`` seconds.
    """
    from agentworld.hub.app import create_app
    from agentworld.hub.in_thread import serve_in_thread
    from agentworld.hub.settings import HubSettings

    app = create_app(catalog, settings=HubSettings(max_sessions=max_sessions))
    server, thread, port = serve_in_thread(app, "127.0.0.1", timeout=timeout)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
