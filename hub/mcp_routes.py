"""MCP over streamable HTTP inside the hub.

Two kinds of endpoint:

* ``/envs/{env_id}/mcp``: any MCP client, on any environment. Each environment's MCP server and
  session manager start the first time the environment is asked for; each MCP session runs on its
  own private database (the runtime's per-connection session). Once a session has made its
  first call, later plain ``tools/call`` requests skip the SDK's transport machinery
  (hub/mcp_fast.py) with the same reply on the wire.
* ``/sessions/{token}/mcp``: the MCP face of one gym session. The unguessable token names the
  episode; calls land in that episode's trajectory, so an MCP-speaking harness can drive an
  episode while the gym API verifies it. State lives in the episode, so this endpoint is
  stateless at the MCP level and serves both protocol eras.

The SDK's session managers need a long-lived task group (their ``run()``); the hub's lifespan
owns one, and managers are started inside it on demand.
"""

from __future__ import annotations

import contextvars
import json
import re
import weakref
from typing import Any

import anyio
import mcp_types as types
from anyio.abc import TaskGroup, TaskStatus
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.types import Receive, Scope, Send

from agentworld.servers import Catalog, Environment
from agentworld.servers.mcp_server import (
    build_mcp_server,
    mcp_tools,
    to_call_tool_result,
    without_telemetry,
)

from ._json import BadJson, dumps, loads
from .errors import EpisodeOverError, UnknownSessionError
from .mcp_fast import FastToolCalls
from .middleware import replay_body
from .routes import Hub, tool_key
from .sessions import SessionManager
from .settings import HubSettings

# The environment of the session a /sessions/{token}/mcp request is for (set by the endpoint).
_request_env: contextvars.ContextVar[Environment] = contextvars.ContextVar("agentworld_env")
# Each environment's tools as MCP models, built once (a tools/list reply builds no models).
_tool_models: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _listed_tools(env: Environment) -> list[types.Tool]:
    tools = _tool_models.get(env)
    if tools is None:
        tools = _tool_models[env] = mcp_tools(env)
    return tools


# Only bodies that could hold a non-finite number are parsed twice (here, then by the SDK).
_NON_FINITE_HINT = re.compile(rb"NaN|Infinity|\d[eE][+]?\d{3}")

__all__ = ["McpHosts"]


def _security(settings: HubSettings) -> TransportSecuritySettings | None:
    # DNS-rebinding protection only makes sense when the hub listens on loopback.
    if settings.host not in ("127.0.0.1", "localhost", "::1"):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])


async def _read_body(receive: Receive) -> bytes | None:
    """A POST's whole body; None when the client left before sending it all."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _strict_body(body: bytes, send: Send) -> bool:
    """The SDK parses JSON-RPC bodies leniently (NaN and Infinity pass as floats), so a body
    that could hold one is parsed strictly here first; a refused one gets a JSON-RPC parse
    error and False comes back."""
    if _NON_FINITE_HINT.search(body):
        try:
            loads(body)
        except BadJson as exc:
            await _json_rpc_parse_error(send, str(exc))
            return False
    return True


async def _json_rpc_parse_error(send: Send, message: str) -> None:
    body = dumps({"jsonrpc": "2.0", "id": None,
                  "error": {"code": types.PARSE_ERROR, "message": f"Parse error: {message}"}})
    await send({"type": "http.response.start", "status": 400,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


async def _json_error(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


class McpHosts:
    """The MCP endpoints of one hub. Tool calls go through ``hub`` like REST and WebSocket
    steps: proven-cheap calls run on the event loop, the rest in worker threads."""

    def __init__(self, catalog: Catalog, sessions: SessionManager, settings: HubSettings,
                 hub: Hub) -> None:
        self.catalog, self.sessions, self.settings, self.hub = catalog, sessions, settings, hub
        self._task_group: TaskGroup | None = None
        self._env_managers: dict[str, StreamableHTTPSessionManager] = {}
        self.fast: dict[str, FastToolCalls] = {}  # per environment: answers plain tool calls
        # False sends every request through the SDK (tests and benchmarks compare the two).
        self.fast_calls = True
        self._session_manager: StreamableHTTPSessionManager | None = None
        self._lock = anyio.Lock()

    async def start(self, task_group: TaskGroup) -> None:
        self._task_group = task_group
        self._session_manager = StreamableHTTPSessionManager(
            app=without_telemetry(self._episode_server()), stateless=True, json_response=True,
            security_settings=_security(self.settings))
        await task_group.start(self._run, self._session_manager)

    @staticmethod
    async def _run(manager: StreamableHTTPSessionManager, *,
                   task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        async with manager.run():
            task_status.started()
            await anyio.sleep_forever()

    @property
    def loaded(self) -> list[str]:
        return sorted(self._env_managers)

    # -- /envs/{env_id}/mcp ------------------------------------------------------------------------
    async def _env_manager(self, env_id: str) -> StreamableHTTPSessionManager:
        manager = self._env_managers.get(env_id)
        if manager is not None:
            return manager
        async with self._lock:
            manager = self._env_managers.get(env_id)
            if manager is None:
                env = await anyio.to_thread.run_sync(lambda: self.catalog.load(env_id).warm())
                # Plain JSON replies, not an SSE stream per request: tools send no progress
                # notifications, and a stream costs a task group and a response per call.
                server = build_mcp_server(env, run_call=self._run_call, telemetry=False)
                manager = StreamableHTTPSessionManager(
                    app=server, json_response=True, security_settings=_security(self.settings),
                    session_idle_timeout=self.settings.idle_timeout,
                    max_sessions=self.settings.max_sessions,
                    max_request_body_size=self.settings.max_request_bytes)
                self.fast[env_id] = FastToolCalls(env, server, manager,
                                                  _security(self.settings), self._run_call)
                await self._task_group.start(self._run, manager)
                self._env_managers[env_id] = manager
        return manager

    async def _run_call(self, env, name: str, call):
        return await self.hub.guarded(tool_key(env, name), call)

    async def env_endpoint(self, scope: Scope, receive: Receive, send: Send) -> None:
        env_id = scope["path_params"]["env_id"]
        manager = self._env_managers.get(env_id)
        if manager is None:
            if env_id not in self.catalog:
                await _json_error(send, 404, "UNKNOWN_ENVIRONMENT",
                                  f"unknown environment {env_id!r}")
                return
            manager = await self._env_manager(env_id)
        await self._serve(manager, scope, receive, send,
                          self.fast[env_id] if self.fast_calls else None)

    @staticmethod
    async def _serve(manager: StreamableHTTPSessionManager, scope: Scope, receive: Receive,
                     send: Send, fast: FastToolCalls | None = None) -> None:
        """Hand a request to ``manager`` once a POST body is read whole and found strict JSON;
        a plain tool call on a live session is answered by ``fast`` instead."""
        if scope["method"] == "POST":
            body = await _read_body(receive)
            if body is not None:  # else the client left: the SDK sees the disconnect
                if not await _strict_body(body, send):
                    return
                if fast is not None and await fast.answer(scope, body, send):
                    return
                receive = replay_body(body, receive)
        await manager.handle_request(scope, receive, send)

    # -- /sessions/{token}/mcp ---------------------------------------------------------------------
    async def session_endpoint(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            session = self.sessions.by_mcp_token(scope["path_params"]["token"])
        except UnknownSessionError as exc:
            await _json_error(send, 404, exc.code, str(exc))
            return
        token = _request_env.set(session.episode.env)
        try:
            await self._serve(self._session_manager, scope, receive, send)
        finally:
            _request_env.reset(token)

    def _hub_session(self, ctx: Any):
        try:
            return self.sessions.by_mcp_token(ctx.request.path_params["token"])
        except UnknownSessionError as exc:
            raise MCPError(code=types.INVALID_REQUEST, message=str(exc)) from exc

    def _episode_server(self) -> Server:
        async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None):
            return types.ListToolsResult(tools=_listed_tools(self._hub_session(ctx).episode.env))

        def input_schema(name: str) -> dict[str, Any] | None:
            # The SDK checks Mcp-Param headers against the called tool's schema on every
            # stateless call; without this lookup it runs the whole tools/list handler for it.
            env = _request_env.get(None)
            spec = env.tool(name) if env is not None else None
            return spec.input_schema if spec is not None else None

        async def call_tool(ctx: Any, params: types.CallToolRequestParams):
            episode = self._hub_session(ctx).episode
            key = tool_key(episode.env, params.name)
            try:
                result = await self.hub.guarded(key, episode.call, params.name,
                                                params.arguments or {})
            except EpisodeOverError as exc:
                raise MCPError(code=types.INVALID_REQUEST, message=str(exc)) from exc
            return to_call_tool_result(result)

        return Server("agentworld-episode", on_list_tools=list_tools, on_call_tool=call_tool,
                      get_tool_input_schema=input_schema)
