"""A hub in a background thread on a free loopback port, for runs that bring their own catalog
(the bench, ``agentworld train`` and ``eval`` without ``--hub-url``)."""

from __future__ import annotations

import contextlib
import threading
import time
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
    import uvicorn

    from agentworld.hub.app import create_app
    from agentworld.hub.settings import HubSettings

    app = create_app(catalog, settings=HubSettings(max_sessions=max_sessions))
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="agentworld-hub", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the hub did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)
