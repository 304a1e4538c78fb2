"""The hub's REST routes: the environment catalog and gym sessions. Handlers are thin: each
validates its body, hands the work to a worker thread, and shapes the answer."""

from __future__ import annotations

import time
from typing import Any

import anyio
from fastapi import APIRouter, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agentworld.servers import Catalog

from ._json import BadJson, dumps, loads
from .actions import Submit, ToolCall, parse_action
from .episode import tool_listing
from .inline import Busy, InlineGuard
from .sessions import SessionManager

__all__ = ["ResetRequest", "build_router", "Hub", "tool_key"]


class ResetRequest(BaseModel):
    """A reset. ``include_tools=False``, or a ``tools_hash`` equal to the environment's, leaves
    the tool list (tens of KB) out of the reply: a client that holds it needs only the hash."""

    model_config = ConfigDict(extra="forbid")
    env_id: str = Field(min_length=1, max_length=200)
    task_id: str | None = Field(default=None, max_length=200)
    seed: int | None = Field(default=None, ge=0, le=2**63 - 1)
    max_steps: int | None = Field(default=None, ge=1, le=10_000)
    include_tools: bool = True
    tools_hash: str | None = Field(default=None, max_length=64)


class Hub:
    """What the routes share: the catalog, the sessions, the metrics, the thread limiter, and
    the guard that lets proven-cheap calls run on the event loop instead of a thread."""

    def __init__(self, catalog: Catalog, sessions: SessionManager, metrics, limiter,
                 guard: InlineGuard | None = None) -> None:
        self.catalog, self.sessions, self.metrics, self.limiter = (
            catalog, sessions, metrics, limiter)
        self.guard = guard or InlineGuard()

    async def run(self, fn, *args):
        return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)

    async def guarded(self, key: Any, fn, *args):
        """``fn(*args)`` inline when ``key`` has proven cheap, else in a worker thread; a call
        whose lock is busy goes to a thread too. ``key`` None: always a thread."""
        if key is not None and self.guard.admits(key):
            try:
                return self.guard.run_inline(key, fn, *args, False)
            except Busy:
                pass
        return await self.run(self.guard.timed(key, fn) if key is not None else fn, *args)

    def _create(self, body: ResetRequest, blocking: bool = True):
        session = self.sessions.create(body.env_id, task_id=body.task_id, seed=body.seed,
                                       max_steps=body.max_steps)
        if session.episode.env.definition.session_hooks is not None:
            self.guard.exclude(("reset", body.env_id))  # its sessions open remote state
        return session

    async def reset(self, body: ResetRequest, base_path: str = "") -> dict[str, Any]:
        started = time.perf_counter()
        # Unknown ids always go to a thread: a client must not grow the guard's table.
        key = ("reset", body.env_id) if body.env_id in self.catalog else None
        session = await self.guarded(key, self._create, body)
        self.metrics.reset_latency.observe(time.perf_counter() - started)
        self.metrics.sessions_created.labels(body.env_id).inc()
        episode = session.episode
        listing = tool_listing(episode.env)
        include = body.include_tools and body.tools_hash != listing.hash
        info = episode.reset_info(include_tools=False)
        if include:
            info["tools"] = listing.encoded
        mcp_url = f"{base_path}/sessions/{session.mcp_token}/mcp"
        return {"session_id": session.id, "mcp_url": mcp_url,
                "observation": episode.observation, "info": info}

    @staticmethod
    def _step_key(episode, action) -> Any:
        if isinstance(action, Submit):
            return None  # the verifier runs: always a thread
        if isinstance(action, ToolCall):
            return tool_key(episode.env, action.name)
        return tool_key(episode.env, "")  # malformed: no tool runs

    async def step(self, session_id: str, action: Any) -> dict[str, Any]:
        session = self.sessions.get(session_id)
        episode = session.episode
        parsed = parse_action(action)
        started = time.perf_counter()
        outcome = await self.guarded(self._step_key(episode, parsed), episode.step, parsed)
        self.metrics.step_latency.observe(time.perf_counter() - started)
        ok = outcome.info.get("ok", not outcome.info.get("malformed", False))
        self.metrics.count_step(episode.env.id, ok)
        return outcome.to_dict()


def tool_key(env, name: Any) -> Any:
    """The inline guard's key for a call of ``name`` on ``env``; None (always a thread) when the
    environment's tools run in sandbox processes. Unknown names share one key, so agents cannot
    grow the guard's table."""
    if env.definition.session_hooks is not None:
        return None
    return (env.id, name if name == "" or env.tool(name) is not None else None)


def _json(data: Any, status_code: int = 200) -> Response:
    # Hub replies are plain JSON already (tool payloads, infos, tool schemas): orjson encodes
    # them directly, skipping FastAPI's recursive jsonable_encoder (3.5 ms for one reset's tool
    # list) and the standard library's encoder (0.4 ms), and embeds the pre-encoded tool list.
    return Response(dumps(data), status_code=status_code, media_type="application/json")


def _body(raw: bytes) -> dict[str, Any]:
    try:
        body = loads(raw)
    except BadJson as exc:
        raise _invalid(("body",), f"JSON decode error: {exc}") from None
    if not isinstance(body, dict):
        raise _invalid(("body",), "Input should be a valid dictionary")
    return body


def _step_action(raw: bytes) -> Any:
    body = _body(raw)
    if "action" not in body:
        raise _invalid(("body", "action"), "Field required")
    extra = next((key for key in body if key != "action"), None)
    if extra is not None:
        raise _invalid(("body", extra), "Extra inputs are not permitted")
    return body["action"]


def _reset_body(request: Request, raw: bytes) -> ResetRequest:
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        raise _invalid(("body",), "the body must be JSON (content-type: application/json)")
    try:
        return ResetRequest.model_validate(_body(raw))
    except ValidationError as exc:
        raise RequestValidationError(
            [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]) from None


def _json_body(schema: dict[str, Any]) -> dict[str, Any]:
    # Bodies are parsed by hand (one strict parser); the OpenAPI document still shows them.
    return {"requestBody": {"required": True,
                            "content": {"application/json": {"schema": schema}}}}


def _invalid(loc: tuple[str, ...], msg: str) -> RequestValidationError:
    return RequestValidationError([{"type": "value_error", "loc": loc, "msg": msg,
                                    "input": None}])


def build_router(hub: Hub) -> APIRouter:
    router = APIRouter(prefix="/v1")

    @router.get("/envs")
    async def list_envs(category: str | None = Query(None, max_length=200),
                        subcategory: str | None = Query(None, max_length=200),
                        q: str | None = Query(None, max_length=200),
                        offset: int = Query(0, ge=0), limit: int = Query(50, ge=1, le=500)):
        rows = hub.catalog.summaries()
        if category:
            rows = [r for r in rows if r["taxonomy"]["l1"].lower() == category.lower()]
        if subcategory:
            rows = [r for r in rows if r["taxonomy"]["l2"].lower() == subcategory.lower()]
        if q:
            rows = [r for r in rows if q.lower() in (r["title"] + " " + r["id"]).lower()]
        page = rows[offset:offset + limit]
        next_offset = offset + limit if offset + limit < len(rows) else None
        return {"envs": page, "total": len(rows), "offset": offset, "next_offset": next_offset}

    @router.get("/envs/{env_id}")
    async def get_env(env_id: str):
        env = await hub.run(lambda: hub.catalog.load(env_id).warm())
        return _json({**env.describe(), "tools_hash": tool_listing(env).hash,
                      "tasks": [t.describe() for t in env.tasks]})

    @router.post("/sessions", status_code=201, openapi_extra=_json_body(
        ResetRequest.model_json_schema()))
    async def reset(request: Request):
        # Parsed here, as the step body is: one strict parser for every body (NaN and Infinity
        # are refused), with FastAPI's 422 answers.
        body = _reset_body(request, await request.body())
        return _json(await hub.reset(body, request.scope.get("root_path", "")), 201)

    @router.post("/sessions/{session_id}/step", openapi_extra=_json_body({
        "type": "object", "required": ["action"], "additionalProperties": False,
        "properties": {"action": {"description": "a tool call (hub/actions.py) or submit"}}}))
    async def step(session_id: str, request: Request):
        # The hot path: the body is parsed here rather than by FastAPI's dependency machinery
        # (one strict orjson parse, one key check), with the same 422 answers as the model.
        return _json(await hub.step(session_id, _step_action(await request.body())))

    @router.get("/sessions/{session_id}")
    async def state(session_id: str):
        session = hub.sessions.get(session_id)
        return _json(await hub.run(session.episode.state))

    @router.delete("/sessions/{session_id}", status_code=204)
    async def end(session_id: str):
        await hub.run(hub.sessions.delete, session_id)
        return Response(status_code=204)

    return router
