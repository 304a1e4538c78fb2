"""Clients for the hub's gym API.

:class:`HubClient` is async-first and pooled, on aiohttp (httpx's async client saturates at
about 200 requests/s under concurrency, FACTS.md). :class:`SyncHubClient` is a small blocking
client on ``http.client`` keep-alive connections, for one synchronous Gymnasium environment.
"""

from __future__ import annotations

import http.client
import json
import threading
from typing import Any
from urllib.parse import urlencode, urlsplit

__all__ = ["HubClientError", "HubClient", "SyncHubClient"]


class HubClientError(Exception):
    """The hub answered with an error status; ``code`` is the hub's stable error code."""

    def __init__(self, status: int, code: str, message: str,
                 retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.retry_after = status, code, message, retry_after


def _error(status: int, body: bytes, retry_after: str | None) -> HubClientError:
    try:
        detail = json.loads(body).get("error", {})
    except (ValueError, AttributeError):
        detail = {}
    return HubClientError(status, detail.get("code", "HTTP_ERROR"),
                          detail.get("message", body[:200].decode("utf-8", "replace")),
                          float(retry_after) if retry_after else None)


def _reset_body(env_id: str, task_id: str | None, seed: int | None,
                max_steps: int | None, tools_hash: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"env_id": env_id}
    if tools_hash is not None:
        body["tools_hash"] = tools_hash  # the hub leaves the tools out if they still match
    if task_id is not None:
        body["task_id"] = task_id
    if seed is not None:
        body["seed"] = seed
    if max_steps is not None:
        body["max_steps"] = max_steps
    return body


# How long an idle pooled connection is kept. It must be shorter than the server's keep-alive
# (uvicorn's default and the hub's are 5 s): aiohttp's default of 15 s reused connections the
# server was closing, and the request failed with ServerDisconnectedError (it ended a 50-minute
# learning benchmark while an evaluation waited seconds on the model between steps).
POOL_IDLE_S = 2.0


class HubClient:
    """Async client; one instance shares a connection pool across many concurrent sessions."""

    def __init__(self, base_url: str, *, token: str | None = None, pool_size: int = 256,
                 timeout: float = 60.0, pool_idle_s: float = POOL_IDLE_S) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {token}"} if token else {}
        self._pool_size, self._timeout, self._pool_idle_s = pool_size, timeout, pool_idle_s
        self._session = None

    async def __aenter__(self) -> HubClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def _http(self):
        import aiohttp

        if self._session is None:
            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=self._pool_size,
                                               keepalive_timeout=self._pool_idle_s),
                timeout=aiohttp.ClientTimeout(total=self._timeout), headers=self._headers)
        return self._session

    async def _request(self, method: str, path: str, body: Any = None) -> Any:
        async with self._http().request(method, self.base_url + path, json=body) as resp:
            data = await resp.read()
            if resp.status >= 400:
                raise _error(resp.status, data, resp.headers.get("Retry-After"))
            return json.loads(data) if data else None

    async def list_envs(self, **filters: Any) -> dict[str, Any]:
        query = urlencode({k: v for k, v in filters.items() if v is not None})
        return await self._request("GET", "/v1/envs" + (f"?{query}" if query else ""))

    async def env(self, env_id: str) -> dict[str, Any]:
        return await self._request("GET", f"/v1/envs/{env_id}")

    async def reset(self, env_id: str, *, task_id: str | None = None, seed: int | None = None,
                    max_steps: int | None = None, tools_hash: str | None = None
                    ) -> dict[str, Any]:
        """Start an episode. With ``tools_hash`` (from an earlier reset's info) the reply leaves
        out the tool list unless it changed."""
        return await self._request("POST", "/v1/sessions",
                                   _reset_body(env_id, task_id, seed, max_steps, tools_hash))

    async def step(self, session_id: str, action: Any) -> dict[str, Any]:
        return await self._request("POST", f"/v1/sessions/{session_id}/step", {"action": action})

    async def state(self, session_id: str) -> dict[str, Any]:
        return await self._request("GET", f"/v1/sessions/{session_id}")

    async def end(self, session_id: str) -> None:
        await self._request("DELETE", f"/v1/sessions/{session_id}")

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None


class SyncHubClient:
    """Blocking client on one keep-alive connection per thread."""

    def __init__(self, base_url: str, *, token: str | None = None, timeout: float = 60.0) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"hub_url must be an http(s) URL, got {base_url!r}")
        self._scheme, self._host, self._port = parts.scheme, parts.hostname, parts.port
        self._prefix = parts.path.rstrip("/")
        self._headers = {"Content-Type": "application/json"}
        if token:
            self._headers["Authorization"] = f"Bearer {token}"
        self._timeout = timeout
        self._local = threading.local()

    def _conn(self) -> http.client.HTTPConnection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            https = self._scheme == "https"
            cls = http.client.HTTPSConnection if https else http.client.HTTPConnection
            conn = self._local.conn = cls(self._host, self._port, timeout=self._timeout)
        return conn

    def _request(self, method: str, path: str, body: Any = None) -> Any:
        payload = None if body is None else json.dumps(body).encode()
        for attempt in (0, 1):
            conn = self._conn()
            try:
                conn.request(method, self._prefix + path, body=payload, headers=self._headers)
                resp = conn.getresponse()
                data = resp.read()
                break
            except (ConnectionError, http.client.HTTPException):
                # A keep-alive connection the server closed: reconnect once.
                conn.close()
                self._local.conn = None
                if attempt:
                    raise
        if resp.status >= 400:
            raise _error(resp.status, data, resp.getheader("Retry-After"))
        return json.loads(data) if data else None

    def list_envs(self, **filters: Any) -> dict[str, Any]:
        query = urlencode({k: v for k, v in filters.items() if v is not None})
        return self._request("GET", "/v1/envs" + (f"?{query}" if query else ""))

    def env(self, env_id: str) -> dict[str, Any]:
        return self._request("GET", f"/v1/envs/{env_id}")

    def reset(self, env_id: str, *, task_id: str | None = None, seed: int | None = None,
              max_steps: int | None = None, tools_hash: str | None = None) -> dict[str, Any]:
        """As :meth:`HubClient.reset`."""
        return self._request("POST", "/v1/sessions",
                             _reset_body(env_id, task_id, seed, max_steps, tools_hash))

    def step(self, session_id: str, action: Any) -> dict[str, Any]:
        return self._request("POST", f"/v1/sessions/{session_id}/step", {"action": action})

    def state(self, session_id: str) -> dict[str, Any]:
        return self._request("GET", f"/v1/sessions/{session_id}")

    def end(self, session_id: str) -> None:
        self._request("DELETE", f"/v1/sessions/{session_id}")

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
