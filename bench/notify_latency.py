"""Notification latency: from an agent's `interaction.requested` to the notification handed to its channel.

Runs a real hub (`lineup serve`) with a webhook channel pointed at a local receiver, one agent and one app on
loopback. For N approvals it records, on one clock (CLOCK_MONOTONIC is system-wide on Linux):
  - in-app: send time → the app receives the stored `notification.created`;
  - webhook: send time → the receiver gets the POST.
Prints P50/P95/P99/max per channel. Target (docs/notifications.md#latency): P95 under 50 ms on loopback.

    python -m bench.notify_latency [--count 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient


def start_receiver(arrivals: dict[str, int]) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            arrivals.setdefault(body.get("interactionId", ""), time.monotonic_ns())
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def percentiles(values_ms: list[float]) -> str:
    ordered = sorted(values_ms)
    pick = lambda p: ordered[min(len(ordered) - 1, int(p * len(ordered)))]  # noqa: E731
    return (f"n={len(ordered)} P50={statistics.median(ordered):.1f} P95={pick(0.95):.1f} "
            f"P99={pick(0.99):.1f} max={ordered[-1]:.1f} ms")


async def run(count: int) -> tuple[list[float], list[float]]:
    """Send approvals one at a time; stamp the in-app arrival as the frame is read, the webhook's at the receiver."""
    arrivals: dict[str, int] = {}
    receiver = start_receiver(arrivals)
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "hub"
        data_dir.mkdir()
        (data_dir / "lineup.toml").write_text(
            f'[notify]\nrate_per_minute = 1000000\n[notify.webhook]\nurl = "http://127.0.0.1:{receiver.server_port}/b"\n')
        hub = HubProcess(data_dir).start()
        try:
            token = hub.token()
            paired = pair_agent(hub, token, name="bench")
            agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
            app = await LapClient.connect(hub.ws_base, "app", token)
            sent: dict[str, int] = {}
            inapp_ms: list[float] = []
            for n in range(count):
                interaction_id = f"bench-{n}"
                sent[interaction_id] = time.monotonic_ns()
                await agent.send("interaction.requested", {"interaction": {
                    "id": interaction_id, "type": "approval", "title": f"Approve step {n}?"}})
                await app.wait_for(lambda f, i=interaction_id: f["type"] == "notification.created"
                                   and f["payload"].get("interactionId") == i, timeout=10)
                inapp_ms.append((time.monotonic_ns() - sent[interaction_id]) / 1e6)
                await asyncio.sleep(0.01)
            deadline = time.monotonic() + 10
            while len(arrivals) < count and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            await agent.close()
            await app.close()
        finally:
            hub.stop()
    receiver.shutdown()
    webhook_ms = [(arrivals[i] - t) / 1e6 for i, t in sent.items() if i in arrivals]
    return inapp_ms, webhook_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    inapp, webhook = asyncio.run(run(args.count))
    print(f"in-app  (interaction.requested -> notification.created at the app): {percentiles(inapp)}")
    print(f"webhook (interaction.requested -> POST at the receiver):            {percentiles(webhook)}")


if __name__ == "__main__":
    main()
