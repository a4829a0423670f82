"""A web page of another site cannot open the hub's agent socket from the person's browser (security issue, item
11a). Chromium loads a page from another loopback port (another origin) and tries `new WebSocket(.../ws/agent)`:
the hub refuses the handshake (403), so the page only sees an error. The hub's own page still opens it. Before,
the foreign page's socket opened."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.support.hubs import HubProcess

OPEN_SOCKET = """async (url) => await new Promise((resolve) => {
  const ws = new WebSocket(url);
  ws.onopen = () => { resolve('open'); ws.close(); };
  ws.onerror = () => resolve('refused');
})"""


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b"<!doctype html><title>Another site</title><p>Another site"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def other_site() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_another_sites_page_cannot_open_the_agent_socket(hub: HubProcess, browser: Browser, other_site: str) -> None:
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(other_site)
        assert page.evaluate(OPEN_SOCKET, f"{hub.ws_base}/ws/agent") == "refused"
        page.goto(hub.base + "/-/health")  # the hub's own origin
        assert page.evaluate(OPEN_SOCKET, f"{hub.ws_base}/ws/agent") == "open"
    finally:
        context.close()
