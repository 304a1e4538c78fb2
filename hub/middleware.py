"""Pure-ASGI guards in front of every route: the bearer token and the request size limit."""

from __future__ import annotations

import json
import secrets
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["GuardMiddleware", "replay_body"]

# Reachable without the hub token: liveness, per-session MCP endpoints (their own secret), and
# the web page's static files (no data: the page asks for the token, then sends it as a header).
_OPEN_PREFIXES = ("/healthz", "/sessions/", "/web/")
_OPEN_PATHS = ("/",)
# uvicorn's httptools parser puts no bound on header size; h11 stops at 16 KiB.
MAX_HEADER_BYTES = 64 * 1024


async def _reject(send: Send, status: int, code: str, message: str,
                  headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


def _header_bytes(headers: list[tuple[bytes, bytes]]) -> int:
    size = 0
    for name, value in headers:
        size += len(name) + len(value)
    return size


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands over ``body`` (already read) once, then the real messages."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class GuardMiddleware:
    def __init__(self, app: ASGIApp, *, token: str | None, max_request_bytes: int) -> None:
        self.app, self.token, self.max_bytes = app, token, max_request_bytes

    def _authorized(self, scope: Scope) -> bool:
        path = scope["path"]
        if self.token is None or path.startswith(_OPEN_PREFIXES) or path in _OPEN_PATHS:
            return True
        headers = dict(scope.get("headers") or [])
        given = headers.get(b"authorization", b"").decode("latin-1")
        if not given and scope["type"] == "websocket":
            # Browsers cannot set headers on a WebSocket; accept the token as a query parameter
            # there only.
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = "Bearer " + query.get("token", [""])[0]
        return secrets.compare_digest(given.encode(), f"Bearer {self.token}".encode())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw_headers = scope.get("headers") or []
        if _header_bytes(raw_headers) > MAX_HEADER_BYTES:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1009})
                return
            await _reject(send, 431, "HEADERS_TOO_LARGE",
                          f"request headers exceed {MAX_HEADER_BYTES} bytes")
            return
        if not self._authorized(scope):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await _reject(send, 401, "UNAUTHORIZED", "a valid bearer token is required",
                          [(b"www-authenticate", b"Bearer")])
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        headers = dict(raw_headers)
        length = headers.get(b"content-length")
        if length is not None:
            if not length.isdigit() or int(length) > self.max_bytes:
                await _reject(send, 413, "REQUEST_TOO_LARGE",
                              f"request body exceeds {self.max_bytes} bytes")
                return
            await self.app(scope, receive, send)
        elif headers.get(b"transfer-encoding", b"").lower() == b"chunked":
            await self._call_buffered(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _call_buffered(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A chunked body carries no Content-Length: read it up to the limit before the app runs,
        # then hand the app the same bytes.
        chunks, seen = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await _reject(send, 413, "REQUEST_TOO_LARGE",
                              f"request body exceeds {self.max_bytes} bytes")
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        await self.app(scope, replay_body(b"".join(chunks), receive), send)
