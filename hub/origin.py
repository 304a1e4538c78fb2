"""Refuses state-changing requests that a browser sends on behalf of another site.

A page on any origin can make a browser POST to a loopback hub (a form, or ``fetch`` with a
"simple" content type) and open WebSockets to it: neither needs a CORS preflight. Browsers put the
sending page's origin in the ``Origin`` header of such requests, so a hub that answers only
same-origin ones cannot be driven from elsewhere. Clients that are not browsers (the gym client,
the trainer, curl) send no ``Origin`` and are unaffected. The hub sets no CORS headers, so a
cross-origin ``fetch`` that needs a preflight (any ``Authorization`` header) fails in the browser.
"""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["OriginGuardMiddleware", "same_origin"]

_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def same_origin(origin: str, host: str) -> bool:
    """Whether ``origin`` (an Origin header) names the server reached at ``host`` (its Host)."""
    if not host:
        return False
    return origin in (f"http://{host}", f"https://{host}")


class OriginGuardMiddleware:
    """403 ``CROSS_ORIGIN`` for an unsafe HTTP method or a WebSocket whose ``Origin`` is not this
    hub's own (``null`` included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        checked = kind == "websocket" or (kind == "http" and scope["method"] not in _SAFE_METHODS)
        if checked:
            headers = dict(scope.get("headers") or [])
            origin = headers.get(b"origin")
            host = headers.get(b"host", b"").decode("latin-1")
            if origin is not None and not same_origin(origin.decode("latin-1"), host):
                await _refuse(kind, send)
                return
        await self.app(scope, receive, send)


async def _refuse(kind: str, send: Send) -> None:
    if kind == "websocket":
        await send({"type": "websocket.close", "code": 1008})
        return
    body = json.dumps({"error": {"code": "CROSS_ORIGIN", "message":
                                 "requests from another origin may not change this hub"}})
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body.encode()})
