"""The FastAPI floor: a trivial app on uvicorn, served the way the hub is (same server, same
flags), answering a JSON POST with a small JSON object. Run: python bench/baselines/bare_fastapi.py
--port P. Routes: GET /healthz, POST /echo, WS /ws."""

from __future__ import annotations

import argparse

import uvicorn
from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect

app = FastAPI()


@app.get("/healthz")
async def healthz():
    return {"status": "ok"}


@app.post("/echo")
async def echo(request: Request):
    body = await request.json()
    return {"observation": "ok", "reward": 0.0, "terminated": False, "truncated": False,
            "info": {"echo": body}}


@app.websocket("/ws")
async def ws(websocket: WebSocket):
    await websocket.accept()
    try:
        while True:
            await websocket.send_text(await websocket.receive_text())
    except WebSocketDisconnect:
        pass


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning",
                ws_max_size=1_000_000)
