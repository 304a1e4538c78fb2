"""A direct answer to ``tools/call`` on an established ``/envs/{env_id}/mcp`` session.

Profiled (bench/profile_step.py --transport mcp), a hub MCP call spent most of its server time
in the SDK's streamable-HTTP machinery, not in the tool: per request a transport handler, a
memory stream to the session's message router, a dispatcher task, a request context and
session object, and a second memory stream back. On a session that has already made one call
through the SDK (so it is initialized and owns its private database), a plain ``tools/call``
needs none of that: this module runs it through the hub's inline guard and writes the same
JSON-RPC reply the SDK would, built with the SDK's own result model and per-version sieve.

Anything it does not recognise as that plain case goes to the SDK untouched: other methods,
notifications, batches, unknown or missing session ids, an unexpected ``Accept`` or
``Content-Type``, a host or origin the transport security refuses, ``_meta`` (progress tokens),
the 2026 protocol era, an SDK server with middleware or cache hints, and a session whose first
call has not been made. The SDK then answers as it always did, errors included.

The session registry and the idle-timer accounting reach into SDK internals (the session
manager's transport table, a transport's in-flight count); :func:`supported` checks they are
there, and without them every request takes the SDK path.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.streamable_http import check_accept_headers
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecurityMiddleware, TransportSecuritySettings
from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
from mcp_types import methods as spec_methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.requests import Request
from starlette.types import Scope, Send

from agentworld.servers import Environment
from agentworld.servers.mcp_server import SESSION_STATE_KEY, RunCall, to_call_tool_result

from ._json import BadJson, dumps, loads

__all__ = ["FastToolCalls", "supported"]

log = logging.getLogger(__name__)

_METHOD = "tools/call"
_SESSION_HEADER = b"mcp-session-id"
_VERSION_HEADER = b"mcp-protocol-version"
_JSON = "application/json"


def supported(manager: StreamableHTTPSessionManager) -> bool:
    """Whether this SDK exposes what the fast path relies on (else it stays off)."""
    return all(hasattr(manager, name) for name in ("_server_instances", "_session_owners"))


@contextlib.contextmanager
def _in_flight(transport: Any) -> Iterator[None]:
    """Hold the session's idle timer as the transport does while it serves a request: a session
    used only through this path must not expire for want of SDK requests."""
    idle_scope, timeout = transport.idle_scope, transport._idle_timeout
    if idle_scope is None or timeout is None:
        yield
        return
    transport._requests_in_flight += 1
    idle_scope.deadline = math.inf
    try:
        yield
    finally:
        transport._requests_in_flight -= 1
        if not transport._requests_in_flight:
            idle_scope.deadline = anyio.current_time() + timeout


class FastToolCalls:
    """The fast path of one environment's MCP session manager.

    ``register`` is installed as the SDK server's only middleware: after a ``tools/call`` the
    SDK served, it records the connection (negotiated version, private runtime session) under
    its ``Mcp-Session-Id``, and forgets it when the connection closes. ``answer`` then serves
    later calls of that session, or returns False to leave the request to the SDK.
    """

    def __init__(self, env: Environment, server: Server, manager: StreamableHTTPSessionManager,
                 security: TransportSecuritySettings | None, run_call: RunCall) -> None:
        self.env, self.server, self.manager, self.run_call = env, server, manager, run_call
        self._security = TransportSecurityMiddleware(security)
        self._live: dict[str, Any] = {}  # Mcp-Session-Id -> the SDK's Connection
        self.answered = 0  # calls served here (tests check the path is taken)
        self.enabled = supported(manager) and not server.middleware
        if self.enabled:
            server.middleware = [self.register]

    async def register(self, ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == _METHOD:
            # There is no public accessor for the connection yet (see mcp_server._connection);
            # an SDK without it leaves every call on its own path.
            conn = getattr(ctx.session, "_connection", None)
            sid = getattr(conn, "session_id", None)
            if sid is not None and sid not in self._live \
                    and conn.state.get(SESSION_STATE_KEY) is not None:
                self._live[sid] = conn
                conn.exit_stack.callback(self._live.pop, sid, None)
        return result

    # -- the request ---------------------------------------------------------------------------
    async def answer(self, scope: Scope, body: bytes, send: Send) -> bool:
        """Serve ``body`` (a POST already read) if it is a plain call on a live session; False
        (nothing sent) leaves it to the SDK."""
        if not self.enabled or not self._live:
            return False
        found = self._session(scope, body)
        if found is None:
            return False
        sid, conn, transport = found
        request = Request(scope)
        if not await self._acceptable(request):
            return False
        message = self._plain_call(body, conn.protocol_version)
        if message is None:
            return False
        with _in_flight(transport):
            reply = await self._reply(conn, message)
        # Counted before the reply goes out: a client that reads the count once it has its
        # answer must see this call in it.
        self.answered += 1
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"application/json"), (_SESSION_HEADER, sid.encode()),
            (b"content-length", str(len(reply)).encode())]})
        await send({"type": "http.response.body", "body": reply})
        return True

    def _session(self, scope: Scope, body: bytes):
        """(session id, connection, transport) when the request names a live session of this
        manager in the handshake era, with a body within the manager's limit."""
        if scope.get("user") is not None or len(body) > self.manager.max_request_body_size:
            return None
        sid = version = None
        for name, value in scope["headers"]:
            if name == _SESSION_HEADER and sid is None:
                sid = value.decode("latin-1")
            elif name == _VERSION_HEADER and version is None:
                version = value.decode("latin-1")
            elif name == b"content-length" and value != str(len(body)).encode():
                return None
        if sid is None or (version is not None and version not in HANDSHAKE_PROTOCOL_VERSIONS):
            return None
        conn = self._live.get(sid)
        transport = self.manager._server_instances.get(sid)
        if conn is None or transport is None or transport.is_terminated \
                or sid in self.manager._session_owners:
            return None
        idle_scope = transport.idle_scope
        if idle_scope is not None and idle_scope.cancel_called:
            return None
        return sid, conn, transport

    async def _acceptable(self, request: Request) -> bool:
        """The checks the SDK's transport makes before it reads a POST body."""
        if request.headers.get("content-type") != _JSON or not self.manager.json_response:
            return False
        if not check_accept_headers(request)[0]:
            return False
        return await self._security.validate_request(request, is_post=True) is None

    def _plain_call(self, body: bytes, version: str) -> dict[str, Any] | None:
        """The JSON-RPC request in ``body`` if it is a single, well-formed ``tools/call`` with
        nothing the SDK would treat specially; else None."""
        try:
            message = loads(body)
        except BadJson:
            return None
        if not isinstance(message, dict) or message.keys() != {"jsonrpc", "id", "method",
                                                               "params"}:
            return None
        rid, params = message["id"], message["params"]
        if message["jsonrpc"] != "2.0" or message["method"] != _METHOD \
                or not isinstance(rid, int | str) or isinstance(rid, bool) \
                or not isinstance(params, dict) or not params.keys() <= {"name", "arguments"} \
                or self.server.cache_hints.get(_METHOD) is not None \
                or self.server.get_request_handler(_METHOD) is None:
            return None
        try:
            spec_methods.validate_client_request(_METHOD, version, params)
        except Exception:  # the SDK answers a malformed call with its own error
            return None
        return message

    async def _reply(self, conn: Any, message: dict[str, Any]) -> bytes:
        params = message["params"]
        name, arguments = params["name"], params.get("arguments")
        session = conn.state[SESSION_STATE_KEY]
        try:
            result = await self.run_call(self.env, name,
                                         functools.partial(_call, session, name, arguments))
            wire = spec_methods.serialize_server_result(
                _METHOD, conn.protocol_version,
                to_call_tool_result(result).model_dump(by_alias=True, mode="json",
                                                       exclude_none=True))
        except Exception as exc:
            # As the SDK's dispatcher maps a handler's exception (its code 0 included).
            error = handler_exception_to_error_data(exc)
            if error is None:
                log.exception("tools/call %r raised", name)
                error = types.ErrorData(code=0, message=str(exc))
            return types.JSONRPCError(jsonrpc="2.0", id=message["id"], error=error) \
                .model_dump_json(by_alias=True, exclude_unset=True).encode()
        return dumps({"jsonrpc": "2.0", "id": message["id"], "result": wire})


def _call(session: Any, name: str, arguments: Any, blocking: bool = True):
    # The RunCall contract: call() runs it, call(False) raises WouldBlock rather than wait.
    return session.call(name, arguments, blocking=blocking)
