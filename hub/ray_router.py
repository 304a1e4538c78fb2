"""The entry router of a hub on a Ray cluster: one URL in front of N hub replicas.

It speaks the hub's own API, so :class:`HubClient`, the remote gym API, MCP clients and the
trainer use the entry URL as they would use one hub:

* ``POST /v1/sessions`` and the catalog go to the next replica that is up (a replica at
  capacity passes the reset to the next one);
* a session's requests (``/v1/sessions/{id}/...``, ``/sessions/{token}/mcp``) go to the replica
  named by the id's ``r<index>.<epoch>.`` prefix, so a session stays where it lives;
* ``/envs/{env}/mcp`` sessions stick by their ``Mcp-Session-Id``, which the router prefixes the
  same way;
* ``/v1/ws`` relays each connection to one replica; after a loss the connection stays open and
  the next reset starts on a replica that is up.

A session whose replica died answers ``410 SESSION_LOST`` (``404`` with the same code on the MCP
endpoint, as the MCP transport asks) and is counted once in ``agentworld_sessions_lost_total``.
``/metrics`` sums every replica's metrics with the router's; ``/healthz`` adds up the replicas.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import OrderedDict
from typing import Any

import aiohttp

from .errors import HubError, SessionLostError, UnknownSessionError
from .middleware import GuardMiddleware
from .origin import OriginGuardMiddleware
from .ray_metrics import RouterMetrics, merge_metrics
from .ray_replica import REPLICA_KEEP_ALIVE, parse_replica_id, replica_prefix
from .ray_replicas import ReplicaSlot, ReplicaTable
from .ray_ws import relay_websocket

__all__ = ["HubRouter", "ReplicaUnavailableError", "build_router_app"]

log = logging.getLogger(__name__)

# Hop-by-hop headers, and Origin: the router checks it at the edge (OriginGuardMiddleware); a
# replica, reached at its own address, would take the page's own origin for a foreign one.
_DROP = {b"host", b"connection", b"keep-alive", b"transfer-encoding", b"upgrade", b"te",
         b"trailer", b"content-length", b"origin"}
_MCP_SESSION = b"mcp-session-id"
POOL_KEEP_ALIVE = REPLICA_KEEP_ALIVE / 4


class ReplicaUnavailableError(HubError):
    status, code = 503, "REPLICA_UNAVAILABLE"

    def __init__(self, detail: str) -> None:
        super().__init__(f"no hub replica could serve the request: {detail}")


class _Lost(Exception):
    """The forward failed because the replica is gone (raised before anything was sent)."""


async def _send_json(send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


class HubRouter:
    """The router as a raw ASGI app. Build it inside the event loop that will serve it."""

    def __init__(self, handles: list[Any], *, poll_interval: float = 1.0,
                 request_timeout: float = 300.0, lost_memory: int = 100_000) -> None:
        self.metrics = RouterMetrics(lambda: self.table.up_count)
        self.table = ReplicaTable(handles, self.metrics)
        self.poll_interval, self.request_timeout = poll_interval, request_timeout
        self._lost: OrderedDict[str, None] = OrderedDict()
        self._lost_memory = lost_memory
        self.http: aiohttp.ClientSession | None = None
        self._poller: asyncio.Task | None = None

    # -- lifecycle ---------------------------------------------------------------------------------
    async def start(self) -> None:
        # Replies pass through byte for byte: no decompression, no cookie jar, no pool limit.
        # Idle connections are dropped here well before the replicas drop them
        # (REPLICA_KEEP_ALIVE), so a request never goes out on a connection being closed.
        self.http = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, keepalive_timeout=POOL_KEEP_ALIVE),
            auto_decompress=False,
            cookie_jar=aiohttp.DummyCookieJar(),
            timeout=aiohttp.ClientTimeout(total=self.request_timeout))
        await self.table.refresh_all()
        self._poller = asyncio.create_task(self.table.poll(self.poll_interval))

    async def stop(self) -> None:
        if self._poller is not None:
            self._poller.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._poller
        if self.http is not None:
            await self.http.close()

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "websocket":
            await relay_websocket(self, scope, receive, send)
        else:
            try:
                await self._http(scope, receive, send)
            except HubError as exc:
                self.metrics.errors.labels(exc.code).inc()
                status = exc.status
                if isinstance(exc, SessionLostError) and "/mcp" in scope["path"]:
                    status = 404  # MCP clients start a new session on 404
                await _send_json(send, status, {"error": exc.to_dict()})
            except Exception as exc:
                # A router fault must say so (and leave a traceback in the actor's log), not
                # pass for a hub answer.
                log.exception("router fault on %s %s", scope["method"], scope["path"])
                self.metrics.errors.labels("ROUTER_FAULT").inc()
                await _send_json(send, 502, {"error": {
                    "code": "ROUTER_FAULT", "message": f"{type(exc).__name__}: {exc}"}})

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await self.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    # -- sessions and loss -------------------------------------------------------------------------
    def lost(self, ident: str, slot: ReplicaSlot) -> SessionLostError:
        """The error for a lost session, counting each id once."""
        if ident not in self._lost:
            self._lost[ident] = None
            self.metrics.sessions_lost.labels(str(slot.index)).inc()
            if len(self._lost) > self._lost_memory:
                self._lost.popitem(last=False)
        return SessionLostError(ident, slot.index)

    async def holder(self, ident: str) -> ReplicaSlot:
        """The replica holding the session named by ``ident``.

        Raises:
            UnknownSessionError: the id names no replica incarnation this router has seen.
            SessionLostError: the incarnation that held it is dead.
        """
        parsed = parse_replica_id(ident)
        slot = self.table.slot_of(parsed[0]) if parsed else None
        if slot is None:
            raise UnknownSessionError(ident)
        if not slot.up:
            await self.table.refresh(slot)  # a restart in progress shows up as a new epoch
        epoch = parsed[1]
        if slot.info is not None and slot.info.epoch == epoch:
            # Even a slot marked down gets the request: a slow answer to the poll is not a
            # death, and a dead process fails the forward, which after_failure then settles.
            return slot
        if epoch in slot.past_epochs:
            raise self.lost(ident, slot)
        raise UnknownSessionError(ident)

    async def after_failure(self, slot: ReplicaSlot, ident: str) -> HubError:
        """What a connection failure to a session's replica means: lost if Ray has replaced
        (or is replacing) the process, otherwise the replica is merely unreachable."""
        epoch = parse_replica_id(ident)[1]
        await self.table.refresh(slot)
        if not slot.up or slot.info is None or slot.info.epoch != epoch:
            return self.lost(ident, slot)
        return ReplicaUnavailableError(f"replica {slot.index} did not answer")

    # -- HTTP --------------------------------------------------------------------------------------
    async def _http(self, scope, receive, send) -> None:
        path, method = scope["path"], scope["method"]
        if path == "/healthz":
            await _send_json(send, 200, await self.health())
        elif path == "/metrics":
            await self._send_metrics(send)
        elif path.startswith("/v1/sessions/"):
            await self._to_holder(path.split("/")[3], scope, receive, send)
        elif path.startswith("/sessions/") and path.endswith("/mcp"):
            await self._to_holder(path.split("/")[2], scope, receive, send)
        elif path.startswith("/envs/") and path.endswith("/mcp"):
            await self._mcp_env(scope, receive, send)
        else:
            await self._to_any(scope, await _read_body(receive), send,
                               retry_full=method == "POST" and path == "/v1/sessions")

    async def _to_holder(self, ident: str, scope, receive, send, headers=None) -> None:
        slot = await self.holder(ident)
        body = await _read_body(receive)
        try:
            await self._forward(slot, scope, body, send, headers)
        except _Lost:
            raise await self.after_failure(slot, ident) from None

    async def _to_any(self, scope, body: bytes, send, *, retry_full: bool = False,
                      headers=None, mcp_prefix: bool = False) -> None:
        # Nothing is held yet, so a failed replica (or, for a reset, a full one) is skipped;
        # when every replica is full, the last one's 503 (with Retry-After) goes to the client.
        slots = self.table.rotation()
        for slot in slots:
            try:
                done = await self._forward(slot, scope, body, send, headers,
                                           pass_503=not retry_full or slot is slots[-1],
                                           mcp_prefix=mcp_prefix)
            except _Lost:
                await self.table.refresh(slot)
                continue
            if done:
                return
        raise ReplicaUnavailableError("every replica is down")

    async def _mcp_env(self, scope, receive, send) -> None:
        headers = list(scope.get("headers") or [])
        given = next((v.decode("latin-1") for k, v in headers if k == _MCP_SESSION), None)
        body = await _read_body(receive)
        if given is None:
            await self._to_any(scope, body, send, mcp_prefix=True)
            return
        parsed = parse_replica_id(given)
        inner = given[len(replica_prefix(*parsed)):] if parsed else given
        headers = [(k, inner.encode("latin-1") if k == _MCP_SESSION else v) for k, v in headers]

        async def replay():
            return {"type": "http.request", "body": body, "more_body": False}

        await self._to_holder(given, scope, replay, send, headers)

    async def _forward(self, slot: ReplicaSlot, scope, body: bytes, send, headers=None, *,
                       pass_503: bool = True, mcp_prefix: bool = False) -> bool:
        """Send the request to ``slot`` and stream its answer back. Returns False (nothing
        sent) when the replica answered 503 and ``pass_503`` is off. Raises _Lost when the
        connection failed before any reply."""
        url = slot.info.url + (scope.get("raw_path") or scope["path"].encode()).decode("latin-1")
        if scope.get("query_string"):
            url += "?" + scope["query_string"].decode("latin-1")
        sent = [(k.decode("latin-1"), v.decode("latin-1"))
                for k, v in (headers or scope.get("headers") or []) if k not in _DROP]
        try:
            async with self.http.request(scope["method"], url, data=body, headers=sent,
                                         allow_redirects=False) as resp:
                if resp.status == 503 and not pass_503:
                    return False
                out = [(k, v) for k, v in resp.raw_headers if k.lower() not in _DROP]
                if mcp_prefix:
                    prefix = replica_prefix(slot.index, slot.info.epoch).encode()
                    out = [(k, prefix + v if k.lower() == _MCP_SESSION else v) for k, v in out]
                if resp.content_type == "text/event-stream":
                    await self._stream(resp, out, send)
                else:
                    data = await resp.read()
                    out.append((b"content-length", str(len(data)).encode()))
                    await send({"type": "http.response.start", "status": resp.status,
                                "headers": out})
                    await send({"type": "http.response.body", "body": data})
        except (aiohttp.ClientConnectionError, TimeoutError) as exc:
            raise _Lost(str(exc)) from exc
        return True

    @staticmethod
    async def _stream(resp, headers, send) -> None:
        await send({"type": "http.response.start", "status": resp.status, "headers": headers})
        try:
            async for chunk in resp.content.iter_any():
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        except aiohttp.ClientError:
            pass  # the replica went away mid-stream: end the stream, the client will see it
        await send({"type": "http.response.body", "body": b""})

    # -- the whole cluster -----------------------------------------------------------------------
    async def _gather(self, path: str) -> list[tuple[ReplicaSlot, bytes]]:
        async def one(slot: ReplicaSlot):
            try:
                async with self.http.get(slot.info.url + path,
                                         timeout=aiohttp.ClientTimeout(total=10)) as resp:
                    return slot, await resp.read() if resp.status == 200 else None
            except (aiohttp.ClientError, TimeoutError):
                return slot, None

        replies = await asyncio.gather(*(one(s) for s in self.table.slots if s.info and s.up))
        return [(slot, data) for slot, data in replies if data is not None]

    async def health(self) -> dict[str, Any]:
        """Sessions and capacity summed over the replicas that answered, and each replica."""
        replies = {slot.index: json.loads(data) for slot, data in await self._gather("/healthz")}
        replicas = [{"index": s.index, "up": s.index in replies,
                     "url": s.info.url if s.info else None,
                     "node_id": s.info.node_id if s.info else None,
                     "epoch": s.info.epoch if s.info else None,
                     "sessions": replies.get(s.index, {}).get("sessions")}
                    for s in self.table.slots]
        return {"status": "ok" if len(replies) == len(self.table.slots) else "degraded",
                "sessions": sum(r["sessions"] for r in replies.values()),
                "max_sessions": sum(r["max_sessions"] for r in replies.values()),
                "environments": max((r["environments"] for r in replies.values()), default=0),
                "replicas": replicas}

    async def _send_metrics(self, send) -> None:
        texts = [data.decode() for _, data in await self._gather("/metrics")]
        body = merge_metrics([self.metrics.render(), *texts]).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"text/plain; version=0.0.4")]})
        await send({"type": "http.response.body", "body": body})


def build_router_app(handles: list[Any], *, token: str | None = None,
                     max_request_bytes: int = 1_000_000, poll_interval: float = 1.0):
    """The router behind the hub's guards (bearer token, body size), as an ASGI app."""
    router = HubRouter(handles, poll_interval=poll_interval)
    return OriginGuardMiddleware(GuardMiddleware(router, token=token,
                                                 max_request_bytes=max_request_bytes))
