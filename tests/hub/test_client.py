"""The async hub client's connection pool: an idle connection is dropped before the server's
keep-alive closes it, so a request never lands on a connection the server is closing."""

import asyncio
import inspect

from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

from agentworld.hub.client import POOL_IDLE_S, HubClient
from agentworld.hub.in_thread import serve_in_thread


def test_the_pool_forgets_idle_connections_before_the_server_closes_them():
    server_keep_alive = inspect.signature(serve_in_thread).parameters["keep_alive"].default
    assert POOL_IDLE_S < server_keep_alive

    async def peer(request):  # which client socket the request came on
        return JSONResponse({"port": request.client.port})

    app = Starlette(routes=[Route("/v1/peer", peer)])
    server, thread, port = serve_in_thread(app, "127.0.0.1")

    async def ports() -> list[int]:
        async with HubClient(f"http://127.0.0.1:{port}") as client:
            first = await client._request("GET", "/v1/peer")
            again = await client._request("GET", "/v1/peer")
            # idle past the pool's limit, within the server's keep-alive
            await asyncio.sleep(POOL_IDLE_S + 1.0)
            later = await client._request("GET", "/v1/peer")
            return [first["port"], again["port"], later["port"]]

    try:
        first, again, later = asyncio.run(ports())
    finally:
        server.should_exit = True
        thread.join(10)
    assert first == again      # back to back: the pooled connection is reused
    assert later != first      # after idling: a fresh one, not one the server may be closing
