"""The web page's safety in a real browser: a hub with a token refuses a wrong one and the page
keeps the token out of every URL; markup in names, rows, rules, tasks and tool outputs is shown
as text and never runs; a page on another origin cannot drive the hub."""

from __future__ import annotations

import contextlib
import json
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agentworld.hub.app import create_app
from agentworld.hub.client import SyncHubClient
from agentworld.hub.settings import HubSettings
from agentworld.servers import Catalog
from tests.fixtures.live_server import live_server
from tests.hub.web_support import (
    HOSTILE,
    PAYLOADS,
    chromium,
    chromium_path,
    hostile_definition,
    web_catalog,
)

expect = pytest.importorskip("playwright.sync_api").expect
pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")
TOKEN = "correct-horse-battery-staple"


class _Recorder:
    """The hub's app behind a note of every HTTP request that reached the server (method, path,
    Origin, status), so a test can tell a refused request from one the browser never sent."""

    def __init__(self, app) -> None:
        self.app, self.seen = app, []

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        origin = dict(scope.get("headers") or []).get(b"origin", b"").decode()

        async def noting(message):
            if message["type"] == "http.response.start":
                self.seen.append((scope["method"], scope["path"], origin, message["status"]))
            await send(message)

        await self.app(scope, receive, noting)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    chromium_path()
    catalog = web_catalog(tmp_path_factory.mktemp("web-security"))
    with live_server(create_app(catalog, settings=HubSettings(token=TOKEN))) as url:
        yield url


@pytest.fixture(scope="module")
def browser(hub):
    with chromium() as browser:
        yield browser


@pytest.fixture
def context(browser):
    # bypass_csp: the page's Content-Security-Policy would stop injected markup from running
    # anyway; without it, these tests show that the views themselves never parse data as HTML.
    context = browser.new_context(viewport={"width": 1280, "height": 860}, bypass_csp=True)
    yield context
    context.close()


def _enter_token(page, value: str) -> None:
    expect(page.locator("#token-panel")).to_be_visible()
    page.fill("#token-input", value)
    page.click("#token-form button[type=submit]")


def test_a_wrong_token_is_refused_and_the_token_stays_out_of_urls(context, hub):
    url = hub
    page = context.new_page()
    requests = []
    page.on("request", lambda r: requests.append((r.url, r.headers.get("authorization"))))
    page.goto(f"{url}/")
    expect(page.locator("#token-message")).to_contain_text("needs a token")
    _enter_token(page, "wrong-token")
    expect(page.locator("#token-message")).to_contain_text("refused this token")
    assert page.locator(".env-card").count() == 0
    _enter_token(page, TOKEN)
    expect(page.locator(".env-card").first).to_be_visible()
    assert page.evaluate("sessionStorage.getItem('agentworld.token')") == TOKEN
    assert page.evaluate("localStorage.length") == 0
    api = [(u, auth) for u, auth in requests if "/v1/" in u]
    assert ("wrong-token" in (api[1][1] or "")) and api[-1][1] == f"Bearer {TOKEN}"
    assert all(TOKEN not in u and "wrong-token" not in u for u, _ in requests)
    assert TOKEN not in page.url
    # Forgetting the token sends the page back to the prompt.
    page.click("#token-button")
    page.click("#token-clear")
    assert page.evaluate("sessionStorage.getItem('agentworld.token')") is None


def _assert_inert(page) -> None:
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src=x], svg, [onerror], [onload]").count() == 0
    assert page.locator("script").count() == 1  # the page's own module


def test_markup_in_data_is_shown_as_text_and_never_runs(context, hub):
    url = hub
    page = context.new_page()
    page.goto(f"{url}/")
    _enter_token(page, TOKEN)
    page.fill("#search", "probe")
    card = page.locator(".env-card[data-env=xss-probe]")
    expect(card).to_contain_text(PAYLOADS[0])
    _assert_inert(page)

    card.locator("h3 a").click()
    expect(page.locator("#tables table").first).to_contain_text(PAYLOADS[1])
    # The rules and tasks arrive after the tables (tasks are listed on first use): wait for
    # them rather than read the page once (a busy CI machine read it before they came).
    for text in (f"Descriptions may hold markup: {HOSTILE}", f"Rules too: {HOSTILE}",
                 f"List the items. {HOSTILE}"):
        expect(page.locator("main")).to_contain_text(text, timeout=30_000)
    _assert_inert(page)

    page.click("#play-link")
    page.select_option("#task-select", "xss-probe/markup")
    page.click("#start")
    expect(page.locator("#prompt")).to_have_text(f"List the items. {HOSTILE}")
    page.click(".tool-list button[data-tool=list_items]")
    page.fill("[data-param=list_id]", "lst_home")
    page.click("#call")
    expect(page.locator("#log li")).to_have_count(1)
    page.click(".tool-list button[data-tool=add_item]")
    page.fill("[data-param=list_id]", "lst_home")
    page.fill("[data-param=title]", PAYLOADS[2])
    page.click("#call")
    expect(page.locator("#log li")).to_have_count(2)
    page.click("details.raw summary")
    page.fill("#raw", '{"name": "' + PAYLOADS[0].replace('"', '\\"') + '", "arguments": {}}')
    page.click("#send-raw")
    expect(page.locator("#log li")).to_have_count(3)
    log = page.text_content("#log")
    assert HOSTILE.replace('"', '\\"') in log and PAYLOADS[2].replace('"', '\\"') in log
    page.fill("#answer", PAYLOADS[1])
    page.click("#submit")
    expect(page.locator("#verdict")).to_contain_text(HOSTILE)  # a check named with markup
    _assert_inert(page)

    page.click("#replay-link")
    page.click("#last")
    expect(page.locator("#answer-shown")).to_have_text(PAYLOADS[1])
    page.click("#first")
    expect(page.locator(".step-view pre.observation-text")).to_contain_text("<script>")
    _assert_inert(page)


class _Attacker(BaseHTTPRequestHandler):
    """A page on another origin that tries to start and drive sessions on the hub."""

    target = ""

    def do_GET(self):  # noqa: N802 (http.server's name)
        script = f"""
          const hub = {self.target!r};
          const plain = {{method: "POST", mode: "no-cors",
                         headers: {{"content-type": "text/plain"}}}};
          const step = {{action: {{name: "complete_item", arguments: {{item_id: "itm_3"}}}}}};
          Promise.allSettled([
            fetch(hub + "/v1/sessions", {{...plain, body: '{{"env_id": "xss-probe"}}'}}),
            fetch(hub + "/v1/sessions/" + location.hash.slice(1) + "/step",
                  {{...plain, body: JSON.stringify(step)}}),
          ]).then(() => {{ document.title = "done"; }});
        """
        body = f"<!doctype html><title>attack</title><script>{script}</script>".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _attacker_site(target: str):
    handler = type("Attacker", (_Attacker,), {"target": target})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _sessions(url: str) -> int:
    with urllib.request.urlopen(f"{url}/healthz") as response:
        return json.load(response)["sessions"]


def test_a_page_on_another_origin_cannot_drive_the_hub(context):
    # A hub without a token, the loopback default: only the Origin check stands in the way.
    catalog = Catalog(modules={})
    catalog.add(hostile_definition())
    recorder = _Recorder(create_app(catalog))
    with live_server(recorder) as url:
        client = SyncHubClient(url)
        sid = client.reset("xss-probe", seed=0)["session_id"]
        before, sessions = client.state(sid), _sessions(url)
        try:
            with _attacker_site(url) as attacker:
                page = context.new_page()
                page.goto(f"{attacker}/#{sid}")
                expect(page).to_have_title("done")
            after, sessions_after = client.state(sid), _sessions(url)
        finally:
            client.close()
    forged = {(m, p): status for m, p, origin, status in recorder.seen if origin == attacker}
    # The browser sent both (same address space, no preflight for text/plain); both refused.
    assert forged == {("POST", "/v1/sessions"): 403, ("POST", f"/v1/sessions/{sid}/step"): 403}
    assert after["steps"] == before["steps"] == 0 and after["db_hash"] == before["db_hash"]
    assert sessions_after == sessions
