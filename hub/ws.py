"""The step loop over one WebSocket: lower latency than a request per step.

Messages are JSON objects with an ``op``:

* ``{"op": "reset", "env_id", "task_id"?, "seed"?, "max_steps"?}`` starts an episode (ending the
  connection's previous one) and answers like ``POST /v1/sessions``;
* ``{"op": "step", "action"}`` answers like ``POST /v1/sessions/{sid}/step``;
* ``{"op": "state"}`` answers with the episode state; ``{"op": "close"}`` ends the episode.

A bad message gets ``{"op": "error", "error": {code, message}}`` and the connection stays open.
The connection's episode ends when the socket closes.
"""

from __future__ import annotations

from typing import Any

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import ValidationError

from agentworld.servers import RuntimeFault

from ._json import BadJson, dumps_str, loads
from .errors import HubError
from .routes import Hub, ResetRequest

__all__ = ["websocket_loop"]


def _error(code: str, message: str) -> dict[str, Any]:
    return {"op": "error", "error": {"code": code, "message": message}}


class _Connection:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.session_id: str | None = None

    async def end(self) -> None:
        if self.session_id is not None:
            sid, self.session_id = self.session_id, None
            try:
                await self.hub.run(self.hub.sessions.delete, sid)
            except HubError:
                pass  # already reaped

    async def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op = message.get("op")
        if op == "reset":
            # Start the new episode before ending the old one: a failed reset loses nothing.
            body = ResetRequest.model_validate({k: v for k, v in message.items() if k != "op"})
            reply = await self.hub.reset(body)
            await self.end()
            self.session_id = reply["session_id"]
            return {"op": "reset", **reply}
        if op == "close":
            await self.end()
            return {"op": "close"}
        if self.session_id is None:
            return _error("NO_EPISODE", "send a reset first")
        if op == "step":
            return {"op": "step", **await self.hub.step(self.session_id, message.get("action"))}
        if op == "state":
            session = self.hub.sessions.get(self.session_id)
            return {"op": "state", "state": await self.hub.run(session.episode.state)}
        return _error("UNKNOWN_OP", "op must be one of reset, step, state, close")


async def _reply_to(conn: _Connection, raw: str, max_bytes: int) -> dict[str, Any]:
    if len(raw) > max_bytes:
        return _error("REQUEST_TOO_LARGE", f"message exceeds {max_bytes} bytes")
    try:
        message = loads(raw)
    except BadJson as exc:
        return _error("BAD_JSON", f"message is {exc}")
    if not isinstance(message, dict):
        return _error("BAD_MESSAGE", "a message must be a JSON object with an op")
    try:
        return await conn.handle(message)
    except ValidationError as exc:
        return _error("VALIDATION_ERROR", exc.errors(include_url=False)[0]["msg"])
    except HubError as exc:
        return {"op": "error", "error": exc.to_dict()}
    except RuntimeFault as exc:
        return _error("NOT_FOUND", str(exc))


async def websocket_loop(websocket: WebSocket, hub: Hub, max_bytes: int) -> None:
    await websocket.accept()
    conn = _Connection(hub)
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            raw = frame.get("text")
            if raw is None:
                data = frame.get("bytes") or b""
                raw = data.decode("utf-8", "replace")
            await websocket.send_text(dumps_str(await _reply_to(conn, raw, max_bytes)))
    except WebSocketDisconnect:
        pass
    finally:
        await conn.end()
