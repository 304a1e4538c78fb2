"""A real uvicorn serving an app in a daemon thread of this process (a hub replica, a hub for
a training or evaluation run)."""

from __future__ import annotations

import threading
import time
from typing import Any

__all__ = ["serve_in_thread"]


def serve_in_thread(app: Any, host: str, *, port: int = 0, ws_max_size: int = 1_000_000,
                    keep_alive: int = 5, timeout: float = 60.0):
    """Run ``app`` on a real uvicorn in a daemon thread; returns (server, thread, port).
    Stop it with ``server.should_exit = True`` and ``thread.join()``.

    Raises:
        RuntimeError: the server did not start within ``timeout`` seconds (port taken, ...).
    """
    import uvicorn

    config = uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on",
                            ws_max_size=ws_max_size, timeout_keep_alive=keep_alive)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="agentworld-hub", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the hub's server did not start")
        time.sleep(0.02)
    return server, thread, server.servers[0].sockets[0].getsockname()[1]
