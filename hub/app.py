"""The hub: one FastAPI app that serves the whole catalog.

``create_app`` wires the pieces: the session manager, the REST and WebSocket routes, MCP for
every environment and every session, metrics, the guards, and the idle reaper. Tool calls and
database clones run in worker threads, so no session can stall the event loop for another.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

import anyio
from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.routing import Route

from agentworld.servers import Catalog, RuntimeFault, UnknownEnvironmentError, default_catalog
from agentworld.servers.errors import SessionClosedError

from .errors import HubError, SessionCapacityError, UnknownSessionError
from .inline import InlineGuard
from .mcp_routes import McpHosts
from .memory import release_free_memory
from .metrics import HubMetrics
from .middleware import GuardMiddleware
from .origin import OriginGuardMiddleware
from .routes import Hub, build_router
from .sessions import SessionManager
from .settings import HubSettings
from .web_routes import install_web
from .ws import websocket_loop

__all__ = ["create_app"]

log = logging.getLogger(__name__)


def _error_response(status: int, code: str, message: str, headers=None) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status,
                        headers=headers)


def _install_error_handlers(app: FastAPI, metrics: HubMetrics) -> None:
    @app.exception_handler(HubError)
    async def hub_error(request: Request, exc: HubError):
        metrics.errors.labels(exc.code).inc()
        headers = None
        if isinstance(exc, SessionCapacityError):
            headers = {"Retry-After": str(exc.retry_after)}
        return _error_response(exc.status, exc.code, str(exc), headers)

    @app.exception_handler(RuntimeFault)
    async def runtime_fault(request: Request, exc: RuntimeFault):
        if isinstance(exc, UnknownEnvironmentError):
            status, code = 404, "UNKNOWN_ENVIRONMENT"
        elif isinstance(exc, SessionClosedError):
            # The session ended (or was reaped) while this request was on its way.
            status, code = 404, UnknownSessionError.code
        else:
            status, code = 500, "ENVIRONMENT_FAULT"
        metrics.errors.labels(code).inc()
        return _error_response(status, code, str(exc))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError):
        metrics.errors.labels("VALIDATION_ERROR").inc()
        first = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid request"}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return _error_response(422, "VALIDATION_ERROR", f"{where}: {first['msg']}")


class _Asgi:
    """Marks a coroutine ``(scope, receive, send)`` as a raw ASGI endpoint for Starlette, which
    would otherwise treat a function or method as a request handler."""

    def __init__(self, handler) -> None:
        self.handler = handler

    async def __call__(self, scope, receive, send) -> None:
        await self.handler(scope, receive, send)


def create_app(catalog: Catalog | None = None, *, settings: HubSettings | None = None) -> FastAPI:
    """The hub as an ASGI app. Nothing starts until its lifespan runs (uvicorn does that)."""
    settings = settings or HubSettings()
    catalog = catalog or default_catalog()
    sessions = SessionManager(catalog, max_sessions=settings.max_sessions,
                              idle_timeout=settings.idle_timeout,
                              id_prefix=settings.session_id_prefix)
    metrics = HubMetrics(lambda: len(sessions))
    hub = Hub(catalog, sessions, metrics, anyio.CapacityLimiter(settings.worker_threads),
              InlineGuard(budget_s=settings.inline_budget_s))
    mcp = McpHosts(catalog, sessions, settings, hub)

    async def reaper() -> None:
        last_ended = 0
        while True:
            await anyio.sleep(settings.reap_interval)
            reaped = await anyio.to_thread.run_sync(sessions.reap_idle)
            ended = sessions.ended_total
            if ended != last_ended:  # sessions ended since the last sweep: return their pages
                last_ended = ended
                await anyio.to_thread.run_sync(release_free_memory)
            if reaped:
                metrics.sessions_reaped.inc(reaped)
                log.info("reaped %d idle sessions", reaped)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with anyio.create_task_group() as tg:
            await mcp.start(tg)
            tg.start_soon(reaper)
            try:
                yield
            finally:
                tg.cancel_scope.cancel()
                sessions.close_all()
                catalog.close()  # stops the sandbox workers of imported environments

    # FastAPI's native OpenTelemetry bridge looks up the global providers (and os.environ) on
    # every request: 14% of an HTTP step's CPU in bench/profile_step.py. The hub has its own
    # Prometheus metrics.
    app = FastAPI(title="agentworld hub", version="0.1.0", lifespan=lifespan,
                  telemetry={"tracing": False, "metrics": False, "logs": False})
    app.state.hub, app.state.settings, app.state.mcp = hub, settings, mcp
    _install_error_handlers(app, metrics)
    app.include_router(build_router(hub))
    install_web(app, hub)  # the page at / and its read-only JSON under /v1/web

    @app.get("/healthz")
    async def healthz():
        return {"status": "ok", "sessions": len(sessions), "max_sessions": settings.max_sessions,
                "environments": len(catalog.ids()), "mcp_loaded": mcp.loaded,
                "inline": hub.guard.stats()}

    @app.get("/metrics")
    async def prometheus():
        return Response(metrics.render(), media_type="text/plain; version=0.0.4")

    @app.websocket("/v1/ws")
    async def ws(websocket: WebSocket):
        await websocket_loop(websocket, hub, settings.max_request_bytes)

    methods = ["GET", "POST", "DELETE"]
    app.router.routes.append(Route("/envs/{env_id}/mcp", _Asgi(mcp.env_endpoint), methods=methods))
    app.router.routes.append(Route("/sessions/{token}/mcp", _Asgi(mcp.session_endpoint),
                                   methods=methods))
    app.add_middleware(GuardMiddleware, token=settings.token,
                       max_request_bytes=settings.max_request_bytes)
    app.add_middleware(OriginGuardMiddleware)  # outermost: no browser on another site drives it
    return app
