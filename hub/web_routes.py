"""The hub's web page: its static files at ``/`` and ``/web/``, and the read-only JSON it needs
beyond the agents' API under ``/v1/web/`` (and a session's trajectory at
``/v1/sessions/{id}/trajectory``).

The page holds no data: the files are open to anyone who can reach the hub, while every
``/v1/`` route stays behind the hub's token. The page plays episodes through the agents' own
session routes (``POST /v1/sessions``, ``/step``), so what a person sees is what an agent gets.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from fastapi import APIRouter, FastAPI, Query
from fastapi.responses import FileResponse, Response

from ._json import dumps
from .routes import Hub
from .web_views import (
    MAX_PREVIEW_ROWS,
    catalog_listing,
    environment_card,
    table_preview,
    task_list,
    trajectory_record,
)

__all__ = ["install_web", "WEB_DIR", "SECURITY_HEADERS"]

WEB_DIR = Path(__file__).parent / "web"
_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}

# The page runs only its own scripts and styles: data shown as text can never run, even if a
# view forgot to escape it. Images may be blob: URLs (plots of an arena run opened from disk).
SECURITY_HEADERS = {
    "content-security-policy": ("default-src 'none'; script-src 'self'; style-src 'self'; "
                                "img-src 'self' blob: data:; connect-src 'self'; "
                                "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cache-control": "no-cache",
}


def _json(data: Any) -> Response:
    return Response(dumps(data), media_type="application/json")


def _static_files() -> dict[str, Path]:
    """The page's files by name; nothing outside hub/web can be named."""
    if not WEB_DIR.is_dir():
        return {}
    return {p.name: p for p in WEB_DIR.iterdir() if p.is_file() and p.suffix in _TYPES}


class _Listing:
    """The catalog's rows for the page, built once (about a second for the whole world) and
    again only when the catalog's ids change (the arena adds environments while it runs)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.tool_counts: dict[str, int] = {}
        self._key: tuple[str, ...] | None = None
        self._rows: list[dict[str, Any]] = []
        self._by_id: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def rows(self) -> list[dict[str, Any]]:
        with self._lock:
            key = tuple(self.hub.catalog.ids())
            if key != self._key:
                self._rows = catalog_listing(self.hub.catalog, self.tool_counts)
                self._by_id = {r["id"]: r for r in self._rows}
                self._key = key
            for row in self._rows:  # environments loaded since: their tools are counted now
                if row["id"] in self.tool_counts:
                    row["tools"] = self.tool_counts[row["id"]]
            return self._rows

    def origin(self, env_id: str) -> str:
        self.rows()
        row = self._by_id.get(env_id)
        return row["provenance"] if row else "unknown"


def _web_router(hub: Hub) -> APIRouter:
    router = APIRouter(prefix="/v1/web")
    listing = _Listing(hub)

    @router.get("/catalog")
    async def catalog():
        rows = await hub.run(listing.rows)
        return _json({"envs": rows, "total": len(rows)})

    def card(env_id: str) -> dict[str, Any]:
        env = hub.catalog.load(env_id).warm()
        listing.tool_counts[env_id] = len(env.tools.names())
        return environment_card(env, listing.origin(env_id))

    @router.get("/envs/{env_id}")
    async def environment(env_id: str):
        return _json(await hub.run(card, env_id))

    @router.get("/envs/{env_id}/tasks")
    async def tasks(env_id: str):
        # Generated on first use for a synthesized environment (seconds), stored afterwards.
        return _json({"tasks": await hub.run(lambda: task_list(hub.catalog.load(env_id)))})

    @router.get("/envs/{env_id}/tables")
    async def tables(env_id: str, rows: int = Query(5, ge=1, le=MAX_PREVIEW_ROWS)):
        return _json({"tables": await hub.run(
            lambda: table_preview(hub.catalog.load(env_id), rows))})

    return router


def _session_router(hub: Hub) -> APIRouter:
    # Under /v1/sessions/{id}/ like the session's other routes, so that a Ray cluster's entry
    # router sends it to the replica that holds the session.
    router = APIRouter(prefix="/v1/sessions")

    @router.get("/{session_id}/trajectory")
    async def trajectory(session_id: str):
        episode = hub.sessions.get(session_id).episode
        return _json(trajectory_record(episode, list(episode.trajectory)))

    return router


def install_web(app: FastAPI, hub: Hub) -> None:
    """Add the page and its JSON routes to the hub's app."""
    files = _static_files()
    app.include_router(_web_router(hub))
    app.include_router(_session_router(hub))

    def serve(name: str) -> Response:
        path = files.get(name)
        if path is None:
            return Response('{"error":{"code":"NOT_FOUND","message":"no such file"}}',
                            status_code=404, media_type="application/json")
        return FileResponse(path, media_type=_TYPES[path.suffix], headers=SECURITY_HEADERS)

    @app.get("/", include_in_schema=False)
    async def index():
        return serve("index.html")

    @app.get("/web/{name}", include_in_schema=False)
    async def static(name: str):
        return serve(name)
