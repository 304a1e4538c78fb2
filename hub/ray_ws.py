"""The router's WebSocket relay: one client connection, one replica connection at a time.

The hub's WebSocket protocol answers every message with exactly one message, so the relay
forwards a frame and waits for its answer. A connection's episode lives on the replica its
upstream connection reached. When that replica dies, the client's connection stays open: the
pending message (and every later one but a reset) answers ``SESSION_LOST``, and the next reset
opens a new upstream on a replica that is up. A reset whose replica died before answering held
nothing yet, so it is tried once more on another replica.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

import aiohttp

from .errors import SessionLostError

if TYPE_CHECKING:
    from .ray_replicas import ReplicaSlot
    from .ray_router import HubRouter

__all__ = ["relay_websocket"]

_FORWARDED = {b"authorization"}
_OP = re.compile(r'\{\s*"op"\s*:\s*"(\w+)"')
# Replies can carry a whole tool list; requests are bounded by the replica itself.
_MAX_REPLY = 64 * 1024 * 1024


def _error(code: str, message: str) -> str:
    return json.dumps({"op": "error", "error": {"code": code, "message": message}})


def _is_reset(text: str) -> bool:
    try:
        message = json.loads(text)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("op") == "reset"


class _Relay:
    def __init__(self, router: HubRouter, scope) -> None:
        self.router = router
        self.headers = {k.decode("latin-1"): v.decode("latin-1")
                        for k, v in scope.get("headers") or [] if k in _FORWARDED}
        query = scope.get("query_string") or b""
        self.query = "?" + query.decode("latin-1") if query else ""
        self.upstream: aiohttp.ClientWebSocketResponse | None = None
        self.slot: ReplicaSlot | None = None
        self.has_episode = False
        self.lost = False

    async def _open(self) -> None:
        for slot in self.router.table.rotation():
            try:
                self.upstream = await self.router.http.ws_connect(
                    slot.info.url + "/v1/ws" + self.query, headers=self.headers,
                    max_msg_size=_MAX_REPLY)
                self.slot = slot
                return
            except (aiohttp.ClientError, OSError):
                await self.router.table.refresh(slot)
        raise ConnectionError("no hub replica is up")

    async def _exchange(self, text: str) -> str | None:
        """The upstream's answer, or None when the upstream connection died."""
        try:
            await self.upstream.send_str(text)
            reply = await self.upstream.receive()
        except (aiohttp.ClientError, ConnectionError, RuntimeError):
            return None
        return reply.data if reply.type == aiohttp.WSMsgType.TEXT else None

    async def handle(self, text: str, *, retry: bool = True) -> str:
        reset = None  # parsed lazily: only a dead upstream needs to know the op
        if self.upstream is None:
            reset = _is_reset(text)
            if self.lost and not reset:
                return self._lost_error(count=False)
            try:
                await self._open()
            except ConnectionError as exc:
                return _error("REPLICA_UNAVAILABLE", str(exc))
        reply = await self._exchange(text)
        if reply is not None:
            self._track(reply)
            return reply
        await self.close()
        if self.has_episode:
            self.has_episode, self.lost = False, True
            return self._lost_error(count=True)
        if retry and (_is_reset(text) if reset is None else reset):
            return await self.handle(text, retry=False)  # nothing was held: try elsewhere
        return _error("REPLICA_UNAVAILABLE", "the hub replica went away; send a reset")

    def _track(self, reply: str) -> None:
        # Only the op at the head of the reply matters; no need to parse a whole tool list.
        op = _OP.match(reply)
        if op and op.group(1) == "reset":
            self.has_episode, self.lost = True, False
        elif op and op.group(1) == "close":
            self.has_episode = False

    def _lost_error(self, *, count: bool) -> str:
        index = self.slot.index if self.slot else -1
        if count and self.slot is not None:
            self.router.metrics.sessions_lost.labels(str(index)).inc()
        self.router.metrics.errors.labels(SessionLostError.code).inc()
        exc = SessionLostError("(websocket)", index)
        return json.dumps({"op": "error", "error": exc.to_dict()})

    async def close(self) -> None:
        if self.upstream is not None:
            upstream, self.upstream = self.upstream, None
            try:
                await upstream.close()
            except (aiohttp.ClientError, ConnectionError, RuntimeError):
                pass


async def relay_websocket(router: HubRouter, scope, receive, send) -> None:
    """Serve one client WebSocket through the router (ASGI)."""
    message: dict[str, Any] = await receive()
    if message["type"] != "websocket.connect":
        return
    await send({"type": "websocket.accept"})
    relay = _Relay(router, scope)
    try:
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                break
            text = message.get("text")
            if text is None:
                text = (message.get("bytes") or b"").decode("utf-8", "replace")
            await send({"type": "websocket.send", "text": await relay.handle(text)})
    finally:
        await relay.close()
