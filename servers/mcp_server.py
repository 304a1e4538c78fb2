"""A real MCP server for any environment, on the official SDK's low-level ``Server``.

The low-level server suits tools that are data: listing returns the environment's declared
schemas as they are, and every call goes through the runtime's :class:`Session`.

Each MCP connection (a stdio process, or one ``Mcp-Session-Id`` over streamable HTTP) gets its own
session: a private copy of the template database, created on the first call and closed with the
connection. Environments are stateful, so the server advertises only the session-based protocol
revisions in ``server/discover``; a 2026-07-28 client then falls back to the handshake, exactly as
the SDK's client does for other stateful servers.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .environment import Environment
from .runtime import Session, ToolResult, WouldBlock

__all__ = ["build_mcp_server", "mcp_tools", "to_call_tool_result", "without_telemetry",
           "RunCall", "SESSION_STATE_KEY"]

SESSION_STATE_KEY = "agentworld.session"


def mcp_tools(env: Environment) -> list[types.Tool]:
    tools = []
    for spec in env.tools:
        ann = spec.annotations
        tools.append(types.Tool(
            name=spec.name, description=spec.description, input_schema=spec.input_schema,
            output_schema=spec.output_schema,
            annotations=types.ToolAnnotations(
                read_only_hint=ann.read_only, destructive_hint=ann.destructive,
                idempotent_hint=ann.idempotent, open_world_hint=False)))
    return tools


def to_call_tool_result(result: ToolResult) -> types.CallToolResult:
    """A runtime result as MCP returns it: JSON text for every client, structured content too."""
    payload = result.payload()
    # A value that is not an object (an imported tool's list) is structured as {"result": ...};
    # the text carries it as the tool returned it.
    text = json.dumps(getattr(payload, "original", payload), ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=payload, is_error=not result.ok)


def _connection(ctx: Any):
    # The SDK keeps per-connection state (``state``, ``exit_stack``) on the Connection object,
    # reachable from a request only through the session; there is no public accessor yet.
    return ctx.session._connection


def without_telemetry(server: Server) -> Server:
    """Drop the SDK's default OpenTelemetry middleware from ``server``.

    It opens a span around every message even with no tracer configured: the largest single
    cost of a hub MCP call in bench/profile_step.py. A host with its own metrics (the hub) has
    no use for it; a standalone server keeps the SDK's default.
    """
    try:
        from mcp.server._otel import OpenTelemetryMiddleware
    except ImportError:  # a later SDK moved it: nothing to drop that we know of
        return server
    server.middleware = [m for m in server.middleware
                         if not isinstance(m, OpenTelemetryMiddleware)]
    return server


# A host's choice of where a call runs: ``await run_call(env, tool_name, call)`` where
# ``call()`` runs it (blocking) and ``call(False)`` runs it only if that needs no lock wait and
# no database clone, else raises WouldBlock.
RunCall = Callable[[Environment, str, Callable[..., ToolResult]], Awaitable[ToolResult]]


def build_mcp_server(env: Environment, *, seed: int = 0, offload: bool = False,
                     one_client: bool = False, run_call: RunCall | None = None,
                     telemetry: bool = True) -> Server:
    """An MCP server whose every connection runs on its own copy of ``env``'s database.

    ``one_client`` is for stdio, where the process serves exactly one client: its one session
    lives as long as the process, whichever protocol era the client speaks. ``offload`` runs
    session creation and tool calls in worker threads, for a process that serves many
    connections; a single-client server runs them inline. ``run_call`` lets the host decide
    per call instead (the hub runs proven-cheap calls inline, hub/inline.py). ``telemetry``
    keeps the SDK's OpenTelemetry middleware.
    """
    tools = mcp_tools(env)
    process_session: list[Session] = []

    def session_for(ctx: Any, create: bool = True) -> Session | None:
        if one_client:
            if not process_session:
                if not create:
                    return None
                process_session.append(Session(env, seed=seed))
            return process_session[0]
        conn = _connection(ctx)
        session = conn.state.get(SESSION_STATE_KEY)
        if session is None:
            if conn.session_id is None and ctx.request is not None:
                # A sessionless HTTP request: there is nowhere to keep its writes.
                raise MCPError(code=types.INVALID_REQUEST, message=(
                    "agentworld environments are stateful; connect with the session handshake "
                    f"(protocol {HANDSHAKE_PROTOCOL_VERSIONS[-1]})"))
            if not create:
                return None
            session = Session(env, seed=seed)
            conn.state[SESSION_STATE_KEY] = session
            conn.exit_stack.callback(session.close)
        return session

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None):
        return types.ListToolsResult(tools=tools)

    def input_schema(name: str) -> dict[str, Any] | None:
        # For the SDK's Mcp-Param header check, which would otherwise list every tool per call.
        spec = env.tool(name)
        return spec.input_schema if spec is not None else None

    def call(ctx: Any, params: types.CallToolRequestParams, blocking: bool = True) -> ToolResult:
        session = session_for(ctx, create=blocking)
        if session is None:
            raise WouldBlock  # the first call clones the database: not on the event loop
        return session.call(params.name, params.arguments, blocking=blocking)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams):
        if run_call is not None:
            result = await run_call(env, params.name, functools.partial(call, ctx, params))
        elif offload:
            result = await anyio.to_thread.run_sync(call, ctx, params)
        else:
            result = call(ctx, params)
        return to_call_tool_result(result)

    server = Server(
        f"agentworld-{env.id}", version=env.manifest.version, title=env.manifest.title,
        description=env.manifest.description, instructions=_instructions(env),
        on_list_tools=list_tools, on_call_tool=call_tool, get_tool_input_schema=input_schema)
    if not one_client:
        _advertise_sessions_only(server)
    return server if telemetry else without_telemetry(server)


def _advertise_sessions_only(server: Server) -> None:
    """Answer ``server/discover`` with the session-based revisions only.

    Over HTTP the 2026-07-28 revision has no session to keep a database in, so a client in
    ``auto`` mode that sees this falls back to the initialize handshake and gets one.
    """
    async def discover(ctx: Any, params: types.RequestParams | None):
        return types.DiscoverResult(
            supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
            capabilities=server.get_capabilities(protocol_version=ctx.protocol_version),
            instructions=server.instructions)

    server.add_request_handler("server/discover", types.RequestParams, discover)


def _instructions(env: Environment) -> str:
    rules = "\n".join(f"- {rule.text}" for rule in env.manifest.rules)
    return f"{env.manifest.description}\n\nBusiness rules:\n{rules}"
