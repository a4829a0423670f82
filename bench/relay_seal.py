"""The sealed relay's cost: answers and a 2 MB file through the fake WuKongIM, sealed vs not, and the page's CPU per event.

Three figures (docs/relay.md, "The trust model"), each printed with the load average beside it:

  answers   Two real hubs (`lineup serve`) on one fake WuKongIM on loopback (tests/support/fake_wukong.py), one
            person each: alice's device set up with sealing keys (as a page in a secure context does), bob's
            without (a page on plain http: the hub relays LineUp payloads to him in clear). Per round an agent asks
            one approval on each hub, in a random order: agent's `interaction.requested` → the device opens it (to
            the phone) → the device answers at once → the agent's `interaction.resolved` (the answer back). The
            whole is the person's answer as the agent sees it. P50/P95/P99 per kind, sealed / unsealed.
  file      A 2 MB file stored on each hub, opened through the relay by the request envelope (GET /api/files/<id>,
            answered in Base64 parts): request sent → every part in and opened → the bytes joined and checked.
            Interleaved sealed / unsealed.
  page      The page's own code (ui/lib/relay-seal.js) in Chromium: keys agreed with a Python "hub" as on the LAN,
            then N payloads sealed (sealWith) and N sealed by Python opened (openWith), and the same through
            SealedChannel (which also keeps its counters in localStorage, as the app does per event): µs each,
            the median of 5 rounds (and the fastest round).

    python -m bench.relay_seal [--answers 200] [--files 10] [--page 2000] [--only answers,file,page]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import functools
import http.server
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hub.relay import seal
from hub.relay.seal import TO_DEVICE, TO_HUB, DeviceKeys, SealError
from hub.relay.transport import Inbound
from hub.relay.v2_transport import V2Transport
from tests.support.fake_wukong import FakeWuKong
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient

ROOT = Path(__file__).resolve().parent.parent
MANAGER = "bench-manager-token"
LAP, CONTROL, SEALED = 5201, 5202, 5203
WARM = 50  # payloads sealed and opened in the page before its timing starts
ROUNDS = 5  # timed rounds per figure in the page: the median is reported, and the fastest


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.2f} (5 min {five:.2f})"


def pct(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)

    def pick(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]
    return {"n": len(ordered), "p50": round(statistics.median(ordered), 2), "p95": round(pick(0.95), 2),
            "p99": round(pick(0.99), 2), "max": round(ordered[-1], 2)}


def line(values: dict[str, float]) -> str:
    return f"P50 {values['p50']:.1f} · P95 {values['p95']:.1f} · P99 {values['p99']:.1f} · max {values['max']:.1f} ms"


# ---- one hub, one person, one device ---------------------------------------------------------------------------

class Device:
    """The person's app through the relay, sealed or not: what the page's relay client does, in Python."""

    def __init__(self, fake: FakeWuKong, hub_uid: str, uid: str) -> None:
        self.fake, self.hub_uid, self.uid = fake, hub_uid, uid
        self.keys: DeviceKeys | None = None
        self.sent = self.received = 0
        self.token = ""
        self.transport: V2Transport | None = None
        self.waiters: list[tuple[Callable[[dict[str, Any]], bool], asyncio.Future[dict[str, Any]]]] = []
        self.refused = 0

    async def set_up(self, base: str, auth: dict[str, str], sealed: bool) -> Device:
        body: dict[str, Any] = {}
        private = ec.generate_private_key(ec.SECP256R1())
        public = seal.public_raw(private)
        if sealed:
            body["publicKey"] = seal.b64(public)
        answer = await asyncio.to_thread(httpx.post, base + "/api/relay/devices", headers=auth, json=body, timeout=30)
        assert answer.status_code == 201, answer.text
        pairing = answer.json()
        assert pairing["uid"] == self.uid
        self.token = pairing["token"]
        if sealed:
            info = pairing["seal"]
            hub_public = seal.unb64(info["hubPublicKey"])
            shared = private.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(),
                                                                                              hub_public))
            self.keys = seal.derive(shared, public, hub_public, hub_id=pairing["hubId"], uid=self.uid,
                                    device_id=info["deviceId"], kid=info["kid"])
        return self

    async def connect(self) -> Device:
        async def on(message: Inbound) -> None:
            if message.from_uid != self.hub_uid or message.payload is None:
                return
            payload = message.payload
            if self.keys is not None:
                if payload.get("type") != SEALED:
                    self.refused += 1
                    return
                try:
                    payload, self.received = seal.open_sealed(self.keys, TO_DEVICE, payload, self.received)
                except SealError:
                    self.refused += 1
                    return
            for waiter in list(self.waiters):
                check, future = waiter
                if not future.done() and check(payload):
                    future.set_result(payload)
                    self.waiters.remove(waiter)
        self.transport = V2Transport(self.fake.ws_url, self.uid, self.token, f"{self.uid}-web", 1, on,
                                     ping_interval_s=5, connect_timeout_s=5, request_timeout_s=10)
        await self.transport.connect()
        return self

    def expect(self, check: Callable[[dict[str, Any]], bool]) -> asyncio.Future[dict[str, Any]]:
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiters.append((check, future))
        return future

    async def send(self, payload: dict[str, Any], no_persist: bool = False) -> None:
        assert self.transport is not None
        if self.keys is not None:
            self.sent += 1
            payload = seal.seal(self.keys, TO_HUB, payload, self.sent)
        await self.transport.send(self.hub_uid, payload, f"{self.uid}-{time.monotonic_ns()}", red_dot=False,
                                  no_persist=no_persist)

    async def close(self) -> None:
        if self.transport is not None:
            await self.transport.close()


class Side:
    """A hub with its relay to the fake, its one person's device and one agent in a conversation."""

    def __init__(self, name: str, sealed: bool, fake: FakeWuKong, scratch: Path) -> None:
        self.name, self.sealed, self.fake = name, sealed, fake
        self.hub_uid, self.uid = f"lineup-{name}", f"person-{name}"
        self.data_dir = scratch / name
        self.hub: HubProcess | None = None
        self.device: Device | None = None
        self.agent: LapClient | None = None
        self.workspace = ""
        self.token = ""
        self.mark = 0  # agent frames already looked at

    async def start(self) -> Side:
        self.data_dir.mkdir(parents=True)
        values = {"ws_url": self.fake.ws_url, "api_url": self.fake.api_url, "uid": self.hub_uid,
                  "manager_token": MANAGER, "ping_interval_s": 5.0}
        (self.data_dir / "lineup.toml").write_text("\n".join([
            "agent_questions_per_second = 100000", "agent_question_burst = 100000", "[relay]",
            *(f"{k} = {json.dumps(v)}" for k, v in values.items()),
            f'people = [{{uid = "{self.uid}", user = "owner", text = false}}]', ""]))
        self.hub = HubProcess(self.data_dir)
        self.token = await asyncio.to_thread(self.hub.token)
        await asyncio.to_thread(self.hub.start)
        auth = {"Authorization": f"Bearer {self.token}"}
        async with httpx.AsyncClient(base_url=self.hub.base, headers=auth, timeout=30) as http:
            deadline = time.monotonic() + 30
            while (await http.get("/api/relay")).json()["status"]["state"] != "connected":
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name}: the uplink never connected")
                await asyncio.sleep(0.1)
            self.workspace = (await http.get("/api/me")).json()["workspace"]["id"]
        self.device = await (await Device(self.fake, self.hub_uid, self.uid).set_up(
            self.hub.base, auth, self.sealed)).connect()
        credential = (await asyncio.to_thread(pair_agent, self.hub, self.token, "Bench"))["credential"]
        self.agent = await LapClient.connect(self.hub.ws_base, "agent", credential)
        await self.agent.ok("conversation.create", {"title": "bench", "agentIds": []}, conversationId="conv-b")
        return self

    async def answer_one(self, n: int) -> tuple[float, float, float]:
        """(to the phone, the answer back, whole) in ms for one approval asked by the agent and answered."""
        assert self.agent is not None and self.device is not None
        interaction = f"q-{self.name}-{n}"
        seen = self.device.expect(lambda p: p.get("type") == LAP and p["envelope"]["type"] == "interaction.requested"
                                  and p["envelope"]["payload"]["interaction"]["id"] == interaction)
        start = len(self.agent.frames)
        asked = time.monotonic_ns()
        await self.agent.send("interaction.requested", {"interaction": {
            "id": interaction, "type": "approval", "title": f"Run step {n}?", "risk": "low"}},
            conversationId="conv-b")
        await asyncio.wait_for(seen, 20)
        opened = time.monotonic_ns()
        await self.device.send({"type": LAP, "envelope": {
            "id": f"env-{interaction}", "type": "interaction.respond", "version": "0.1",
            "occurredAt": "2026-01-01T00:00:00Z", "workspaceId": self.workspace,
            "payload": {"interactionId": interaction, "response": {"optionId": "approve"}}}})
        await self.agent.wait_for(lambda f: f["type"] == "interaction.resolved"
                                  and f["payload"].get("interactionId") == interaction, timeout=20, start=start)
        resolved = time.monotonic_ns()
        return (opened - asked) / 1e6, (resolved - opened) / 1e6, (resolved - asked) / 1e6

    async def upload(self, data: bytes) -> str:
        assert self.hub is not None
        async with httpx.AsyncClient(base_url=self.hub.base, timeout=60) as http:
            stored = await http.post("/api/files", content=data, headers={
                "Authorization": f"Bearer {self.token}", "X-File-Name": "bench.bin",
                "Content-Type": "application/octet-stream"})
        return str(stored.json()["fileId"])

    async def open_file(self, file_id: str, expected: bytes, n: int) -> tuple[float, int]:
        """ms from the request sent to the whole file joined, and the number of parts."""
        assert self.device is not None
        request_id = f"req-{self.name}-{n}"
        parts: list[dict[str, Any]] = []
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def take(payload: dict[str, Any]) -> bool:
            if payload.get("type") == CONTROL and payload.get("op") == "response" and payload.get("id") == request_id:
                parts.append(payload)
                if len(parts) == parts[0].get("parts", 1) and not done.done():
                    done.set_result(None)
            return False  # keep listening: every part comes through here
        self.device.waiters.append((take, asyncio.get_running_loop().create_future()))
        sent = time.monotonic_ns()
        await self.device.send({"type": CONTROL, "op": "request", "id": request_id, "method": "GET",
                                "path": f"/api/files/{file_id}", "query": "", "body": None}, no_persist=True)
        await asyncio.wait_for(done, 60)
        parts.sort(key=lambda p: p["part"])
        body = b"".join(base64.b64decode(p["body"]) for p in parts)
        whole = time.monotonic_ns()
        self.device.waiters = [w for w in self.device.waiters if w[0] is not take]
        if parts[0]["status"] != 200 or body != expected:
            raise RuntimeError(f"{self.name}: the file came back {parts[0]['status']}, {len(body)} bytes")
        return (whole - sent) / 1e6, len(parts)

    async def stop(self) -> None:
        if self.agent is not None:
            await self.agent.close()
        if self.device is not None:
            await self.device.close()
        if self.hub is not None:
            await asyncio.to_thread(self.hub.stop)


async def through_the_relay(answers: int, files: int, only: set[str]) -> dict[str, Any]:
    fake = await FakeWuKong("v2", manager_token=MANAGER).start()
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="lineup-bench-seal-") as tmp:
        sides = {"sealed": Side("sealed", True, fake, Path(tmp)), "unsealed": Side("unsealed", False, fake, Path(tmp))}
        try:
            for side in sides.values():
                await side.start()
            names = list(sides)
            if "answers" in only:
                for n in range(10):  # warm-up, discarded
                    for name in names:
                        await sides[name].answer_one(-1 - n)
                legs: dict[str, dict[str, list[float]]] = {k: {"phone": [], "back": [], "whole": []} for k in names}
                result["answersLoadBefore"] = load()
                for n in range(answers):
                    random.shuffle(names)
                    for name in names:
                        phone, back, whole = await sides[name].answer_one(n)
                        legs[name]["phone"].append(phone)
                        legs[name]["back"].append(back)
                        legs[name]["whole"].append(whole)
                result["answersLoadAfter"] = load()
                result["answers"] = {name: {leg: pct(v) for leg, v in legs[name].items()} for name in legs}
                result["answersRefused"] = {name: sides[name].device.refused for name in sides}  # type: ignore[union-attr]
            if "file" in only:
                data = os.urandom(2 * 1024 * 1024)
                ids = {name: await side.upload(data) for name, side in sides.items()}
                for name in names:  # warm-up
                    await sides[name].open_file(ids[name], data, -1)
                times: dict[str, list[float]] = {name: [] for name in names}
                part_count = 0
                result["fileLoadBefore"] = load()
                for n in range(files):
                    random.shuffle(names)
                    for name in names:
                        ms, part_count = await sides[name].open_file(ids[name], data, n)
                        times[name].append(ms)
                result["fileLoadAfter"] = load()
                result["file"] = {"bytes": len(data), "parts": part_count,
                                  **{name: pct(v) for name, v in times.items()}}
            carried = fake.carried_text()
            result["fakeCarriedMB"] = round(len(carried) / 1e6, 1)
        finally:
            for side in sides.values():
                await side.stop()
            await fake.stop()
    return result


# ---- the page's CPU ----------------------------------------------------------------------------------------------

def serve_ui() -> http.server.ThreadingHTTPServer:
    handler = functools.partial(_Quiet, directory=str(ROOT / "ui"))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        return None


def payload(size: int, n: int) -> dict[str, Any]:
    """A LineUp event as the relay carries it: a stored `message.created` with `size` characters of content."""
    return {"type": LAP, "envelope": {
        "id": f"evt-{n}", "type": "message.created", "version": "0.1", "occurredAt": "2026-01-01T00:00:00Z",
        "workspaceId": "ws_bench", "conversationId": "conv-bench", "sequence": 1000 + n,
        "actor": {"type": "agent", "id": "agent-bench"},
        "payload": {"messageId": f"msg-{n}", "content": ("The build passed on the second try. " * 400)[:size]}}}


def page_cpu(n: int) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    from tests.support.browsers import launch

    server = serve_ui()
    hub_private = ec.generate_private_key(ec.SECP256R1())
    hub_public = seal.public_raw(hub_private)
    ids = {"hubId": "hub-bench", "uid": "person-bench", "deviceId": "dev-bench", "kid": "kid-bench"}
    rows: dict[str, Any] = {}
    try:
        with sync_playwright() as p:
            browser = launch(p, full=True)
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_port}/lib/")  # a listing: an empty page of the same origin
            page.evaluate("""async (hub) => {
              const s = await import('/lib/relay-seal.js');
              window.__start = await s.startAgreement();
              window.__hub = hub;
            }""", {"hubPublicKey": seal.b64(hub_public), **ids})
            device_public = seal.unb64(page.evaluate("window.__start.publicKey"))
            shared = hub_private.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(
                ec.SECP256R1(), device_public))
            keys = seal.derive(shared, device_public, hub_public, hub_id=ids["hubId"], uid=ids["uid"],
                               device_id=ids["deviceId"], kid=ids["kid"])
            page.evaluate("""async () => {
              const s = await import('/lib/relay-seal.js');
              const h = window.__hub;
              window.__keys = await s.finishAgreement(window.__start, h, { hubId: h.hubId, uid: h.uid });
              localStorage.clear();
            }""")
            for size in (250, 4000):
                events = [payload(size, i) for i in range(n)]
                sealed = [seal.seal(keys, TO_DEVICE, payload(size, i), i + 1) for i in range(n + WARM)]
                bytes_json = len(json.dumps(events[0]).encode())
                timing = page.evaluate("""async ({ events, sealed, warm, rounds }) => {
                  const s = await import('/lib/relay-seal.js');
                  const keys = window.__keys;
                  const runs = {};
                  const once = async (name, act, before = () => {}) => {
                    before();
                    for (let i = 0; i < warm; i++) await act(i % events.length);  // warm-up, not counted
                    const t0 = performance.now();
                    for (let i = 0; i < events.length; i++) await act(i);
                    (runs[name] ||= []).push(((performance.now() - t0) * 1000) / events.length);
                  };
                  const made = [];
                  const channel = new s.SealedChannel(keys);
                  let k = 0;
                  // Rounds outside, the four figures inside: each is timed as often early as late (the arguments'
                  // 20 MB of fresh strings make the first seconds slower while the heap settles).
                  for (let r = 0; r < rounds; r++) {
                    await once('seal', async (i) => {  // three kept to check, not 2,000
                      const one = await s.sealWith(keys, events[i], i + 1);
                      if (i < 3) made[i] = one;
                    });
                    await once('open', async (i) => { await s.openWith(keys, sealed[i], 0); });
                    await once('channelSeal', async (i) => { await channel.seal(events[i]); }, () => localStorage.clear());
                    await once('channelOpen', async () => { await channel.open(sealed[k++]); },
                      () => { localStorage.clear(); k = 0; });
                  }
                  const out = { check: made.slice(0, 3) };
                  for (const [name, values] of Object.entries(runs)) {
                    values.sort((a, b) => a - b);
                    out[name] = values[Math.floor(values.length / 2)];
                    out[name + 'Min'] = values[0];
                  }
                  return out;
                }""", {"events": events, "sealed": sealed, "warm": WARM, "rounds": ROUNDS})
                for made in timing.pop("check"):  # the page's seals open on the hub's side
                    seal.open_sealed(keys, TO_HUB, made, 0)
                rows[f"{size} characters ({bytes_json} B JSON)"] = {k: round(v, 1) if isinstance(v, float) else v
                                                                   for k, v in timing.items()}
            rows["chromium"] = browser.version
            browser.close()
    finally:
        server.shutdown()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=200, help="answers per kind (sealed, unsealed)")
    parser.add_argument("--files", type=int, default=10, help="2 MB file opens per kind")
    parser.add_argument("--page", type=int, default=2000, help="payloads sealed and opened in the page per size")
    parser.add_argument("--only", default="answers,file,page")
    args = parser.parse_args()
    only = set(args.only.split(","))
    head = subprocess_head()
    print(f"bench.relay_seal at {head}, {load()}", flush=True)
    result: dict[str, Any] = {"commit": head}
    if only & {"answers", "file"}:
        result.update(asyncio.run(through_the_relay(args.answers, args.files, only)))
    if "page" in only:
        result["pageLoadBefore"] = load()
        result["page"] = page_cpu(args.page)
        result["pageLoadAfter"] = load()
    print(json.dumps(result, indent=2))
    if "answers" in result:
        a = result["answers"]
        print(f"answers ({result['answersLoadBefore']} → {result['answersLoadAfter']}):")
        for leg in ("whole", "phone", "back"):
            ratio = a["sealed"][leg]["p95"] / a["unsealed"][leg]["p95"]
            print(f"  {leg:6} sealed {line(a['sealed'][leg])} | unsealed {line(a['unsealed'][leg])} | "
                  f"P95 ratio {ratio:.2f}")
    if "file" in result:
        f = result["file"]
        print(f"2 MB file ({f['parts']} parts; {result['fileLoadBefore']} → {result['fileLoadAfter']}): "
              f"sealed {line(f['sealed'])} | unsealed {line(f['unsealed'])}")
    if "page" in result:
        print(f"page ({result['pageLoadBefore']} → {result['pageLoadAfter']}), µs per payload:")
        for size, row in result["page"].items():
            if isinstance(row, dict):
                print(f"  {size}: seal {row['seal']} (fastest round {row['sealMin']}) · open {row['open']} "
                      f"({row['openMin']}) · with the counters (SealedChannel): seal {row['channelSeal']} "
                      f"({row['channelSealMin']}) · open {row['channelOpen']} ({row['channelOpenMin']})")


def subprocess_head() -> str:
    found = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return found.stdout.strip() or "?"


if __name__ == "__main__":
    main()
