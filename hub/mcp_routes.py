"""MCP over streamable HTTP inside the hub.

Two kinds of endpoint:

* ``/envs/{env_id}/mcp``: any MCP client, on any environment. Each environment's MCP server and
  session manager start the first time the environment is asked for; each MCP session runs on its
  own private database (the runtime's per-connection session).
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


async def _strict_body(scope: Scope, receive: Receive, send: Send) -> Receive | None:
    """The SDK parses JSON-RPC bodies leniently (NaN and Infinity pass as floats). A POST body
    is read here first and parsed strictly; a refused one gets a JSON-RPC parse error and None
    comes back. Otherwise a ``receive`` that replays the body for the SDK."""
    if scope["method"] != "POST":
        return receive
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return receive  # the client left; the SDK sees the disconnect
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    if _NON_FINITE_HINT.search(body):
        try:
            loads(body)
        except BadJson as exc:
            await _json_rpc_parse_error(send, str(exc))
            return None
    return replay_body(body, receive)


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
                manager = StreamableHTTPSessionManager(
                    app=build_mcp_server(env, run_call=self._run_call, telemetry=False),
                    json_response=True, security_settings=_security(self.settings),
                    session_idle_timeout=self.settings.idle_timeout,
                    max_sessions=self.settings.max_sessions,
                    max_request_body_size=self.settings.max_request_bytes)
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
        receive = await _strict_body(scope, receive, send)
        if receive is not None:
            await manager.handle_request(scope, receive, send)

    # -- /sessions/{token}/mcp ---------------------------------------------------------------------
    async def session_endpoint(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            session = self.sessions.by_mcp_token(scope["path_params"]["token"])
        except UnknownSessionError as exc:
            await _json_error(send, 404, exc.code, str(exc))
            return
        receive = await _strict_body(scope, receive, send)
        if receive is None:
            return
        token = _request_env.set(session.episode.env)
        try:
            await self._session_manager.handle_request(scope, receive, send)
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
