"""Hostile drill (docs/security.md): every attack at once against one real hub, while the owner keeps working.

Run: python -m bench.hostile [--seconds 60]

One `lineup serve` on loopback, started with a 1,024 soft file limit (hard limit 4,096 by default, so the hub's
own raise at start is exercised and bounded). During the attack window, all at once:
- evil patterns: an agent asks `input` questions with patterns RE2 cannot run (must be refused, naming the
  pattern) and with patterns catastrophic for a backtracking engine; the owner's app answers those with long
  non-matching text (refused at once), then with a matching one (taken, the agent receives it);
- 300 MiB request bodies to /api/login, unauthenticated, with Content-Length and chunked, streamed from a
  generator (the drill never holds them);
- 2,000 idle connections (half-sent headers, a byte now and then: slowloris) from 40 loopback addresses
  (127.0.1.1 ...: the hub caps connections per address at 64), reopened when the hub cuts them;
- a 10,000-question flood from one agent (the hub keeps at most 100 waiting per agent: the rest rate_limited);
- a guessing storm from 20 addresses (127.0.0.2 ... 127.0.0.21): wrong pairing codes and wrong passwords.
Meanwhile the owner's side: `/-/health` probed every 20 ms from a separate process on a fresh connection each time
(P50/P99/max), approvals answered end to end (a second agent asks in a task, the owner approves over the app
socket, the agent receives interaction.resolved), a valid pairing and a valid sign-in from the hub's machine in the
middle of the storm. At the end the hub is stopped with SIGTERM and `lineup db check` runs; every envelope the
hub acknowledged must be stored. Prints the figures with PASS/MISS per target; exit 1 on any MISS.

On loopback every 127.x peer is the hub's own machine for the guess limits (hub/web/auth.py client_key), so the
storm names the hub by its `.local` name (as a LAN client would): it is counted as another guesser than the
owner, but its 20 addresses are one guesser to the hub, not 20 (a LAN drill would need real hosts).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import resource
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bench.report import Recorder
from bench.stats import summarize_ns
from tests.support.hubproc import free_port, run_cli
from tests.support.lap import LapClient, envelope

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "correct horse battery staple"
MIB = 1024 * 1024
CHUNK = 64 * 1024
HEALTH_P99_LIMIT_MS = 100.0
# Valid RE2, exponential for a backtracking engine on the first answer; the second one matches.
CATASTROPHIC = [("(.|.)*Z", "a" * 9000 + "!", "a" * 40 + "Z"),
                ("(a+)+$", "a" * 9000 + "!", "a" * 40),
                ("(x+x+)+y", "x" * 9000, "xxy")]
# What RE2 cannot run (or only slowly): refused when asked.
REFUSED = [r"(\w)\1", r"(?=\d)\d+", r"(?<!x)y", r"(a{0,999}){0,999}", r".*a.{900}"]


# ---- the hub ----------------------------------------------------------------------------------------------------

def start_hub(data_dir: Path, soft: int, hard: int, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    """`lineup serve` on a loopback port whose file limits are set before exec."""
    port = free_port()

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    log = open(data_dir.parent / "hub.log", "wb")  # noqa: SIM115 - the child keeps its own descriptor
    proc = subprocess.Popen([sys.executable, "-m", "hub", "serve", "--host", "127.0.0.1", "--port", str(port),
                             "--data-dir", str(data_dir), "--no-mdns"], stdout=log, stderr=subprocess.STDOUT,
                            cwd=ROOT, env={**os.environ, "LINEUP_LOG_LEVEL": "warning", **env},
                            preexec_fn=limited)  # noqa: PLW1509 - sets a limit only, before exec
    log.close()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError((data_dir.parent / "hub.log").read_text())
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://127.0.0.1:{port}/-/health", timeout=1).status_code == 200:
                return proc, port
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the hub did not start")


def proc_status(pid: int, key: str) -> int:
    """A /proc/<pid>/status figure in bytes (VmHWM: peak resident size, VmRSS) or a count."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            parts = line.split()
            return int(parts[1]) * (1024 if len(parts) > 2 else 1)
    return 0


def open_fds(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return -1


def hub_file_limit(pid: int) -> tuple[int, int]:
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    return -1, -1


# ---- the owner's health probe, in its own process ---------------------------------------------------------------

def probe_health(port: int, interval_s: float, stop: Any, out: Any) -> None:
    """GET /-/health on a fresh connection every `interval_s` until `stop` is set; send back (latency ns | None)."""
    samples: list[int | None] = []
    request = b"GET /-/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port
    while not stop.is_set():
        started = time.monotonic_ns()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2.0) as sock:
                sock.sendall(request)
                data = b""
                while True:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    data += chunk
            samples.append(time.monotonic_ns() - started if data.startswith(b"HTTP/1.1 200") else None)
        except OSError:
            samples.append(None)
        time.sleep(max(0.0, interval_s - (time.monotonic_ns() - started) / 1e9))
    out.send(samples)
    out.close()


# ---- the attacks ------------------------------------------------------------------------------------------------

class Window:
    """The attack window: every attacker loops until it closes."""

    def __init__(self, seconds: float) -> None:
        self.start = time.monotonic()
        self.end = self.start + seconds

    def open(self) -> bool:
        return time.monotonic() < self.end

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())


async def slowloris(port: int, count: int, sources: list[str], window: Window) -> dict[str, Any]:
    """`count` connections that send half a request head and a byte every 2 s; reopened when cut."""
    stats: dict[str, Any] = {"opened": 0, "refused429": 0, "cutByHub": 0, "connectErrors": 0, "held": 0,
                             "peakHeld": 0, "lifetimes": []}

    async def one(source: str) -> None:
        while window.open():
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
            except OSError:
                stats["connectErrors"] += 1
                await asyncio.sleep(0.5)
                continue
            opened = time.monotonic()
            stats["opened"] += 1
            stats["held"] += 1
            stats["peakHeld"] = max(stats["peakHeld"], stats["held"])
            refused = False
            try:
                writer.write(b"GET /-/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Slow: " % port)
                while window.open():
                    try:
                        data = await asyncio.wait_for(reader.read(4096), min(2.0, window.left() + 0.01))
                    except TimeoutError:
                        writer.write(b"a")  # one more byte of a header that never ends
                        continue
                    if data.startswith(b"HTTP/1.1 429"):
                        refused = True
                    if not data:
                        break
            except OSError:
                pass
            finally:
                stats["held"] -= 1
                writer.close()
            if refused:
                stats["refused429"] += 1
                await asyncio.sleep(1.0)
            elif window.open():
                stats["cutByHub"] += 1
                stats["lifetimes"].append(time.monotonic() - opened)

    await asyncio.gather(*(one(sources[n % len(sources)]) for n in range(count)))
    lifetimes = stats.pop("lifetimes")
    stats["maxLifetimeS"] = round(max(lifetimes), 2) if lifetimes else None
    return stats


def body_chunks(size: int, chunked: bool) -> Iterator[bytes]:
    """A `size`-byte body, 64 KiB at a time (chunked framing if asked): never held whole."""
    block = b"x" * CHUNK
    framed = b"%x\r\n" % CHUNK + block + b"\r\n"
    for _ in range(size // CHUNK):
        yield framed if chunked else block
    if chunked:
        yield b"0\r\n\r\n"


async def body_bombs(port: int, sources: list[str], size: int, window: Window) -> dict[str, Any]:
    """Unauthenticated POST /api/login with a `size` body, over and over from each source, alternately with
    Content-Length and chunked; counts what the hub answered and how much it let the sender push."""
    stats: dict[str, Any] = {"attempts": 0, "statuses": {}, "maxSentMiB": 0.0, "wholeBodySent": 0, "stalled": 0}

    async def one(source: str, chunked: bool) -> None:
        head = (b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n" % port
                + (b"Transfer-Encoding: chunked\r\n\r\n" if chunked else b"Content-Length: %d\r\n\r\n" % size))
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        except OSError:
            stats["statuses"]["connect error"] = stats["statuses"].get("connect error", 0) + 1
            await asyncio.sleep(0.5)
            return
        stats["attempts"] += 1
        answer = asyncio.ensure_future(reader.read(65536))
        sent = 0
        try:
            writer.write(head)
            for chunk in body_chunks(size, chunked):
                if answer.done():
                    break
                writer.write(chunk)
                try:
                    await asyncio.wait_for(writer.drain(), 10)
                except TimeoutError:
                    stats["stalled"] += 1
                    break
                sent += len(chunk)
        except OSError:
            pass
        if sent >= size:
            stats["wholeBodySent"] += 1
        try:
            data = await asyncio.wait_for(answer, 10)
        except (TimeoutError, OSError):
            data = b""
        status = data.split(b" ", 2)[1].decode() if data.startswith(b"HTTP/1.1 ") else "closed"
        stats["statuses"][status] = stats["statuses"].get(status, 0) + 1
        stats["maxSentMiB"] = max(stats["maxSentMiB"], round(sent / MIB, 1))
        writer.close()

    async def loop(source: str, chunked: bool) -> None:
        while window.open():
            await one(source, chunked)
            chunked = not chunked

    await asyncio.gather(*(loop(source, n % 2 == 1) for n, source in enumerate(sources)))
    return stats


async def guess_storm(port: int, sources: list[str], username: str, window: Window) -> dict[str, Any]:
    """Wrong pairing codes and wrong passwords from each source, naming the hub by a non-loopback Host."""
    stats: dict[str, Any] = {"pair": {}, "login": {}, "accepted": 0}

    async def one(source: str, n: int) -> None:
        transport = httpx.AsyncHTTPTransport(local_address=source)
        # The hub's own `.local` name, as a LAN client would use it: on loopback, a loopback Host would make the
        # storm the person at the hub's machine (their own budget), a foreign name is refused by the Host check.
        headers = {"Host": f"{socket.gethostname().split('.')[0].lower()}.local:{port}"}
        async with httpx.AsyncClient(transport=transport, base_url=f"http://127.0.0.1:{port}", timeout=10,
                                     headers=headers) as http:
            k = 0
            while window.open():
                k += 1
                for kind, path, body in (
                        ("pair", "/api/pair", {"code": f"ZZZZ-{(n * 10_000 + k) % 10_000:04d}", "name": "guess",
                                               "runtime": "x", "agentVersion": "1"}),
                        ("login", "/api/login", {"username": username, "password": f"guess {n} {k}"})):
                    try:
                        response = await http.post(path, json=body)
                        code = (response.json().get("error", {}).get("code", "?") if response.status_code >= 400
                                else "ACCEPTED")
                    except (httpx.HTTPError, ValueError) as exc:
                        code = type(exc).__name__
                    stats[kind][code] = stats[kind].get(code, 0) + 1
                    if code == "ACCEPTED":
                        stats["accepted"] += 1
                await asyncio.sleep(0.05)

    await asyncio.gather(*(one(source, n) for n, source in enumerate(sources)))
    return stats


async def ask(client: LapClient, type_: str, payload: dict[str, Any], timeout: float = 30.0,
              **fields: Any) -> dict[str, Any]:
    """Send one envelope and return its ack or error (a longer wait than LapClient's: the hub is under attack)."""
    return await client.answer(await client.send(type_, payload, **fields), timeout)


class OwnerApp:
    """The owner's app socket: like the real app, it resumes from its last sequence when the hub closes it (a slow
    consumer, 4008) and re-sends what was unanswered under the same envelope id; `reconnects` counts it."""

    def __init__(self, ws_base: str, token: str) -> None:
        self.ws_base, self.token = ws_base, token
        self.history: list[dict[str, Any]] = []
        self.reconnects = 0
        self.client: LapClient | None = None

    @property
    def frames(self) -> list[dict[str, Any]]:
        assert self.client is not None
        return self.history + self.client.frames

    async def connect(self) -> OwnerApp:
        sequences = [f["sequence"] for f in self.history if f.get("sequence") is not None]
        self.client = await LapClient.connect(self.ws_base, "app", self.token,
                                              last_sequence=max(sequences) if sequences else None)
        return self

    async def reconnect(self) -> None:
        assert self.client is not None
        self.history.extend(self.client.frames)
        self.reconnects += 1
        with contextlib.suppress(Exception):
            await self.client.close()
        await self.connect()

    async def ask(self, type_: str, payload: dict[str, Any], timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        assert self.client is not None
        env = envelope(type_, payload, self.client.workspace_id, **fields)
        for _ in range(5):
            try:
                await self.client.send_raw(env)
                return await self.client.answer(str(env["id"]), timeout)
            except (ConnectionError, websockets.ConnectionClosed):
                await self.reconnect()
        raise ConnectionError(f"the app socket kept closing ({type_})")

    async def ok(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
        answer = await self.ask(type_, payload, **fields)
        assert answer["type"] == "system.ack", answer
        return dict(answer["payload"])

    async def seen(self, predicate: Any, timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for frame in self.frames:
                if predicate(frame):
                    return frame
            assert self.client is not None
            if self.client.closed.is_set():
                await self.reconnect()
            await asyncio.sleep(0.05)
        raise TimeoutError("not seen")

    async def close(self) -> None:
        if self.client is not None:
            self.history.extend(self.client.frames)
            await self.client.close()


def frame_id(frame: dict[str, Any]) -> str:
    return str(frame["payload"].get("id"))


async def answers_to(client: LapClient, ids: set[str], timeout_s: float) -> dict[str, dict[str, Any]]:
    """The ack or error of each envelope id, scanning the socket's frames once (for thousands of ids)."""
    found: dict[str, dict[str, Any]] = {}
    index = 0
    deadline = time.monotonic() + timeout_s
    while len(found) < len(ids) and time.monotonic() < deadline and not client.closed.is_set():
        while index < len(client.frames):
            frame = client.frames[index]
            index += 1
            if frame["type"] in ("system.ack", "system.error") and frame_id(frame) in ids:
                found[frame_id(frame)] = frame
        await asyncio.sleep(0.05)
    return found


async def question_flood(agent: LapClient, conversation_id: str, count: int, size: int) -> dict[str, Any]:
    """`count` approval questions as fast as the socket takes them; how each was answered."""
    started = time.monotonic()
    ids = set()
    for n in range(count):
        env = envelope("interaction.requested", {"interaction": {
            "id": f"flood-{n}", "type": "approval", "title": f"Question {n}", "description": "x" * size}},
            agent.workspace_id, conversationId=conversation_id)
        ids.add(env["id"])
        await agent.send_raw(env)
        if n % 20 == 0:
            await asyncio.sleep(0)  # let the owner's sockets read: a real flood comes from another machine
    found = await answers_to(agent, ids, 120)
    codes: dict[str, int] = {}
    for frame in found.values():
        if frame["type"] == "system.ack":
            key = "ack"
        else:
            code = frame["payload"].get("code")
            key = f"{code}: waiting cap" if "waiting" in frame["payload"].get("message", "") else str(code)
        codes[key] = codes.get(key, 0) + 1
    return {"sent": count, "answered": len(found), "answers": codes, "seconds": round(time.monotonic() - started, 1),
            "ackedIds": [i for i, f in found.items() if f["type"] == "system.ack"]}


async def evil_patterns(agent: LapClient, app: OwnerApp, conversation_id: str, window: Window) -> dict[str, Any]:
    """Rounds of refused patterns and catastrophic ones answered badly, then well, until the window closes."""
    stats: dict[str, Any] = {"rounds": 0, "refusedAsked": 0, "refusedOk": 0, "badAnswers": 0, "badRefusedOk": 0,
                             "badMaxMs": 0.0, "goodResolved": 0, "problems": [], "ackedIds": []}
    r = 0
    while window.open():
        r += 1
        for pattern in REFUSED:
            stats["refusedAsked"] += 1
            answer = await ask(agent, "interaction.requested", {"interaction": {
                "type": "input", "title": "Which code?", "pattern": pattern}}, conversationId=conversation_id)
            if (answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload"
                    and pattern in answer["payload"]["message"]):
                stats["refusedOk"] += 1
            else:
                stats["problems"].append(f"{pattern!r} asked: {answer['type']} {answer['payload']}"[:200])
        for n, (pattern, bad, good) in enumerate(CATASTROPHIC):
            interaction_id = f"evil-{r}-{n}"
            asked = await ask(agent, "interaction.requested", {"interaction": {
                "id": interaction_id, "type": "input", "title": "Which code?", "pattern": pattern}},
                conversationId=conversation_id)
            if asked["type"] != "system.ack":
                stats["problems"].append(f"{pattern!r} refused when asked: {asked['payload']}"[:200])
                continue
            stats["ackedIds"].append(frame_id(asked))
            stats["badAnswers"] += 1
            started = time.monotonic()
            answer = await app.ask("interaction.respond", {"interactionId": interaction_id,
                                                            "response": {"text": bad}})
            stats["badMaxMs"] = max(stats["badMaxMs"], round((time.monotonic() - started) * 1000, 1))
            if answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload":
                stats["badRefusedOk"] += 1
            else:
                stats["problems"].append(f"{pattern!r} bad answer: {answer['type']} {answer['payload']}"[:200])
            ok = await app.ask("interaction.respond", {"interactionId": interaction_id,
                                                        "response": {"text": good}})
            if ok["type"] == "system.ack":
                resolved = await agent.event("interaction.resolved", timeout=30, interactionId=interaction_id)
                if resolved["payload"].get("response", {}).get("text") == good:
                    stats["goodResolved"] += 1
            else:
                stats["problems"].append(f"{pattern!r} good answer: {ok['payload']}"[:200])
        stats["rounds"] = r
        await asyncio.sleep(0.5)
    return stats


async def approval_end_to_end(worker: LapClient, app: OwnerApp, conversation_id: str, n: int) -> dict[str, Any]:
    """The owner's task → the worker asks an approval → the owner approves on the app socket → the worker hears."""
    task_id, interaction_id = f"work-{n}", f"approve-{n}"
    started = time.monotonic()
    await app.ok("task.create", {"title": f"Deploy {n}"}, conversationId=conversation_id, taskId=task_id)
    await worker.event("task.assigned", timeout=30, taskId=task_id)
    await worker.ok("task.accepted", {}, taskId=task_id)
    asked = time.monotonic()
    ack = await worker.ok("interaction.requested", {"interaction": {
        "id": interaction_id, "type": "approval", "title": f"Deploy {n} to production?"}}, taskId=task_id)
    await app.seen(lambda f: f["type"] == "interaction.requested" and f.get("sequence") is not None
                   and f["payload"]["interaction"]["id"] == interaction_id)
    await app.ok("interaction.respond", {"interactionId": interaction_id, "response": {"optionId": "approve"}})
    resolved = await worker.event("interaction.resolved", timeout=30, interactionId=interaction_id)
    return {"ok": resolved["payload"].get("outcome") in ("approved", "answered", "resolved")
            or resolved["payload"].get("response", {}).get("optionId") == "approve",
            "outcome": resolved["payload"].get("outcome"), "askToResolvedMs": round((time.monotonic() - asked) * 1e3),
            "totalMs": round((time.monotonic() - started) * 1e3), "ackedId": ack.get("id")}


async def owner_during_storm(port: int, token: str, username: str) -> dict[str, Any]:
    """From the hub's own machine, mid-storm: a new pairing code is redeemed and the right password signs in."""
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10) as http:
        code = (await http.post("/api/pairing-codes", json={"name": "mid-storm"}, headers=auth)).json()["code"]
        paired = await http.post("/api/pair", json={"code": code, "name": "mid-storm", "runtime": "test",
                                                    "agentVersion": "1.0"})
        login = await http.post("/api/login", json={"username": username, "password": PASSWORD,
                                                    "deviceName": "owner mid-storm"})
        started = time.monotonic()
        inbox = await http.get("/api/inbox", headers=auth)
        inbox_ms = round((time.monotonic() - started) * 1e3)
    body = inbox.json() if inbox.status_code == 200 else {}
    return {"pairStatus": paired.status_code, "loginStatus": login.status_code, "inboxStatus": inbox.status_code,
            "inboxBytes": len(inbox.content), "inboxMs": inbox_ms, "inboxShown": len(body.get("waitingForMe", [])),
            "inboxTotal": body.get("waitingForMeTotal")}


# ---- the drill --------------------------------------------------------------------------------------------------

async def drill(port: int, token: str, username: str, args: argparse.Namespace, hub_pid: int) -> dict[str, Any]:
    ws_base = f"ws://127.0.0.1:{port}"
    base = f"http://127.0.0.1:{port}"
    agents = {}
    async with httpx.AsyncClient(base_url=base, timeout=10) as http:
        auth = {"Authorization": f"Bearer {token}"}
        for name in ("evil", "flood", "worker"):
            code = (await http.post("/api/pairing-codes", json={"name": name}, headers=auth)).json()["code"]
            answer = await http.post("/api/pair", json={"code": code, "name": name, "runtime": "test",
                                                        "agentVersion": "1.0"})
            answer.raise_for_status()
            agents[name] = answer.json()
    app = await OwnerApp(ws_base, token).connect()
    clients = {name: await LapClient.connect(ws_base, "agent", spec["credential"]) for name, spec in agents.items()}
    for name, spec in agents.items():
        await app.ok("conversation.create", {"title": name, "agentIds": [spec["agentId"]]}, conversationId=f"c-{name}")

    window = Window(args.seconds)
    fds: list[int] = []

    async def sample_fds() -> None:
        while window.open():
            fds.append(open_fds(hub_pid))
            await asyncio.sleep(0.5)

    async def approvals() -> list[dict[str, Any]]:
        done = []
        for n, at in enumerate((0.3, 0.6, 0.85)):
            await asyncio.sleep(max(0.0, window.start + at * args.seconds - time.monotonic()))
            try:
                done.append(await approval_end_to_end(clients["worker"], app, "c-worker", n))
            except (TimeoutError, AssertionError, ConnectionError) as exc:
                done.append({"ok": False, "error": f"{type(exc).__name__}: {exc}"[:200]})
        return done

    async def owner_checks() -> dict[str, Any]:
        await asyncio.sleep(args.seconds * 0.5)
        return await owner_during_storm(port, token, username)

    idle_sources = [f"127.0.1.{n}" for n in range(1, 1 + args.idle_addresses)]
    attacks = {"idle": lambda: slowloris(port, args.idle, idle_sources, window),
               "bodies": lambda: body_bombs(port, [f"127.0.2.{n}" for n in range(1, 5)], args.body_mib * MIB, window),
               "guesses": lambda: guess_storm(port, [f"127.0.0.{n}" for n in range(2, 22)], username, window),
               "flood": lambda: question_flood(clients["flood"], "c-flood", args.questions, args.question_bytes),
               "patterns": lambda: evil_patterns(clients["evil"], app, "c-evil", window)}

    async def skipped() -> dict[str, Any]:
        return {"skipped": True}

    results = await asyncio.gather(*(skipped() if name in args.skip else make() for name, make in attacks.items()),
                                   approvals(), owner_checks(), sample_fds())
    slow, bodies, guesses, flood, evil, approved, owner, _ = results
    acked = set(flood.pop("ackedIds", [])) | set(evil.pop("ackedIds", [])) | {a.pop("ackedId") for a in approved
                                                                      if "ackedId" in a}
    await app.close()
    for client in clients.values():
        await client.close()
    acked |= {frame_id(f) for c in (app, *clients.values()) for f in c.frames if f["type"] == "system.ack"}
    return {"idle": slow, "bodies": bodies, "guesses": guesses, "flood": flood, "evil": evil, "approvals": approved,
            "owner": owner, "appReconnects": app.reconnects, "hubFdsPeak": max(fds, default=-1), "acked": sorted(acked),
            "attackS": round(time.monotonic() - window.start, 1)}


def stored_ids(db_path: Path, ids: list[str]) -> set[str]:
    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as db:
        found: set[str] = set()
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            found |= {r[0] for r in db.execute(f"SELECT id FROM events WHERE id IN ({','.join('?' * len(part))})",
                                               part)}
        return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.hostile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="the attack window")
    parser.add_argument("--idle", type=int, default=2000, help="idle (slowloris) connections")
    parser.add_argument("--idle-addresses", type=int, default=40)
    parser.add_argument("--body-mib", type=int, default=300)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--question-bytes", type=int, default=20_000)
    parser.add_argument("--skip", default="", help="attacks left out, comma separated (to find which one costs "
                        "what): idle,bodies,guesses,flood,patterns")
    parser.add_argument("--soft-files", type=int, default=1024, help="the hub's soft RLIMIT_NOFILE at exec")
    parser.add_argument("--hard-files", type=int, default=4096, help="the hub's hard RLIMIT_NOFILE at exec")
    args = parser.parse_args(argv)
    args.skip = {name for name in args.skip.split(",") if name}

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the drill itself holds > 2,000 sockets
    tmp = Path(tempfile.mkdtemp(prefix="lineup-hostile-"))
    data_dir = tmp / "hub"
    proc, port = start_hub(data_dir, args.soft_files, args.hard_files, {})
    username = "ada"
    probe = None
    try:
        setup = httpx.post(f"http://127.0.0.1:{port}/api/setup", json={
            "username": username, "displayName": "Ada", "password": PASSWORD, "workspaceName": "Drill"}, timeout=30)
        setup.raise_for_status()
        token = setup.json()["token"]
        limits = hub_file_limit(proc.pid)
        rss_before = proc_status(proc.pid, "VmHWM")
        ctx = multiprocessing.get_context("fork")
        stop = ctx.Event()
        receive, send = ctx.Pipe(duplex=False)
        probe = ctx.Process(target=probe_health, args=(port, 0.02, stop, send), daemon=True)
        probe.start()
        figures = asyncio.run(drill(port, token, username, args, proc.pid))
        stop.set()
        samples = receive.recv() if receive.poll(30) else []
        probe.join(10)
        rss_peak = proc_status(proc.pid, "VmHWM")
        stop_started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            exit_code: int | None = proc.wait(20)
        except subprocess.TimeoutExpired:
            exit_code = None
            proc.kill()
            proc.wait()
        stop_s = round(time.monotonic() - stop_started, 2)
        check = run_cli(data_dir, "db", "check", check=False)
        acked = figures.pop("acked")
        lost = sorted(set(acked) - stored_ids(data_dir / "lineup.db", acked))
    finally:
        if probe is not None and probe.is_alive():
            probe.kill()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    ok_samples = [s for s in samples if s is not None]
    health = summarize_ns(ok_samples)
    health["failed"] = len(samples) - len(ok_samples)
    figures.update(health=health, hubFileLimit={"soft": limits[0], "hard": limits[1]},
                   hubPeakRssMB={"before": round(rss_before / MIB), "after": round(rss_peak / MIB)},
                   stopS=stop_s, stopExit=exit_code, dbCheck=check.returncode, ackedEnvelopes=len(acked),
                   lost=len(lost))
    verdicts = judge(figures, args)
    figures["verdicts"] = verdicts
    Recorder("hostile").write("hostile", figures)
    report(figures, verdicts)
    if check.returncode != 0 or lost:
        print("db check:", check.stdout[-1500:], check.stderr[-1500:], "lost:", lost[:5])
    log = (tmp / "hub.log").read_text(errors="replace")
    if any(v[3] != "PASS" for v in verdicts):
        print("--- hub log (tail) ---\n" + log[-3000:])
    import shutil
    shutil.rmtree(tmp, ignore_errors=True)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return 0 if all(v[3] == "PASS" for v in verdicts) else 1


def judge(f: dict[str, Any], args: argparse.Namespace) -> list[tuple[str, str, str, str]]:
    """(what, measured, target, PASS|MISS) per target; an attack left out (--skip) has no rows."""
    rows: list[tuple[str, str, str, str]] = []

    def add(what: str, measured: Any, target: str, ok: bool) -> None:
        rows.append((what, str(measured), target, "PASS" if ok else "MISS"))

    def live(key: str) -> bool:
        return "skipped" not in f[key]

    h = f["health"]
    add("/-/health P99 during the attacks", f"{h['p99']} ms (P50 {h['p50']}, max {h['max']}, n {h['n']})",
        f"< {HEALTH_P99_LIMIT_MS:.0f} ms", h["p99"] is not None and h["p99"] < HEALTH_P99_LIMIT_MS)
    add("/-/health probes failed", h["failed"], "0", h["failed"] == 0)
    e = f["evil"]
    if live("evil"):
        add("patterns RE2 cannot run, refused naming them", f"{e['refusedOk']}/{e['refusedAsked']}", "all",
            e["refusedAsked"] > 0 and e["refusedOk"] == e["refusedAsked"])
        add("long non-matching answers refused", f"{e['badRefusedOk']}/{e['badAnswers']}, slowest {e['badMaxMs']} ms",
            "all, < 1000 ms", e["badAnswers"] > 0 and e["badRefusedOk"] == e["badAnswers"] and e["badMaxMs"] < 1000)
        add("matching answers reach the agent", f"{e['goodResolved']}/{e['badAnswers']}", "all",
            e["badAnswers"] > 0 and e["goodResolved"] == e["badAnswers"])
    b = f["bodies"]
    if live("bodies"):
        # "closed": the hub cut the connection and the reset for unread data swallowed its 413 (TCP, not the hub).
        # 429: under a small file limit the hub refused the connection itself (too many open) before any body.
        add(f"{args.body_mib} MiB bodies to /api/login", f"{b['attempts']} sent, answers {b['statuses']}",
            "all 413, 429 or cut", b["attempts"] > 0 and set(b["statuses"]) <= {"413", "429", "closed"})
        add("body bytes pushed before the hub cut", f"max {b['maxSentMiB']} MiB, whole {b['wholeBodySent']}",
            "< 32 MiB, 0 whole", b["maxSentMiB"] < 32 and b["wholeBodySent"] == 0)
    rss = f["hubPeakRssMB"]
    add("hub peak RSS growth", f"{rss['after'] - rss['before']} MB ({rss['before']} → {rss['after']})", "< 200 MB",
        rss["after"] - rss["before"] < 200)
    i = f["idle"]
    if live("idle"):
        add("idle connections held at once", f"{i['peakHeld']} (opened {i['opened']}, 429 {i['refused429']})",
            f">= {args.idle}", i["peakHeld"] >= args.idle)
        add("longest idle connection before the hub cut it", f"{i['maxLifetimeS']} s", "< 12 s (deadline 10 s)",
            i["maxLifetimeS"] is not None and i["maxLifetimeS"] < 12)
    lim = f["hubFileLimit"]
    add("hub file limit after its raise; peak fds", f"{lim['soft']}/{lim['hard']}; {f['hubFdsPeak']}",
        f"soft raised to hard ({args.hard_files})", lim["soft"] == args.hard_files)
    q = f["flood"]
    if live("flood"):
        acked = q["answers"].get("ack", 0)
        add("question flood answered", f"{q['answered']}/{q['sent']} in {q['seconds']} s: {q['answers']}",
            "all answered, <= 100 taken", q["answered"] == q["sent"] and acked <= 100)
    o = f["owner"]
    add("owner's inbox mid-flood", f"{o['inboxStatus']}, {o['inboxBytes']} B, {o['inboxMs']} ms, "
        f"{o['inboxShown']} of {o['inboxTotal']}", "200, <= 50 shown, < 2 MB (before: 102 MB)",
        o["inboxStatus"] == 200 and o["inboxShown"] <= 50 and o["inboxBytes"] < 2_000_000)
    g = f["guesses"]
    if live("guesses"):
        add("guesses accepted", f"{g['accepted']} (pair {g['pair']}, login {g['login']})", "0", g["accepted"] == 0)
        add("guess limits engaged", f"pair 429s {g['pair'].get('rate_limited', 0)}, "
            f"login 429s {g['login'].get('rate_limited', 0)}", "> 0 each",
            g["pair"].get("rate_limited", 0) > 0 and g["login"].get("rate_limited", 0) > 0)
    add("owner's valid pairing and sign-in mid-storm", f"pair {o['pairStatus']}, login {o['loginStatus']}",
        "201, 201", o["pairStatus"] == 201 and o["loginStatus"] == 201)
    a = f["approvals"]
    add("approvals answered end to end", f"{sum(x.get('ok', False) for x in a)}/{len(a)}, ask→resolved "
        f"{[x.get('askToResolvedMs') for x in a]} ms", "all", bool(a) and all(x.get("ok") for x in a))
    add("hub stops on SIGTERM", f"exit {f['stopExit']} in {f['stopS']} s", "exit 0, < 15 s",
        f["stopExit"] == 0 and f["stopS"] < 15)
    add("lineup db check; acked envelopes stored", f"exit {f['dbCheck']}; {f['lost']} of {f['ackedEnvelopes']} "
        "missing", "exit 0; 0 missing", f["dbCheck"] == 0 and f["lost"] == 0)
    return rows


def report(figures: dict[str, Any], verdicts: list[tuple[str, str, str, str]]) -> None:
    print(json.dumps({k: v for k, v in figures.items() if k != "verdicts"}, default=str))
    width = max(len(v[0]) for v in verdicts)
    for what, measured, target, result in verdicts:
        print(f"{result:4}  {what:<{width}}  {measured}  [target {target}]")
    print("hostile drill:", "PASS" if all(v[3] == "PASS" for v in verdicts) else "MISS")


if __name__ == "__main__":
    sys.exit(main())
