"""The app's HTTP reads over the relay: each request runs the hub's own route in-process and is answered in chunks."""
# The page sends {type: 5202, op: "request", id, method, path, query, body} (docs/protocol.md, "Requests over the
# relay"); the hub builds an ASGI request for its own Starlette app, as the device that holds the person's relay
# access (relay_state app_device:<uid>), so who may read what, the workspace checks, validation and the answers are
# the HTTP ones, not a second implementation. The answer goes back as one `response` message, or as `parts` chunks
# of Base64 when it is larger than one WuKongIM message should be; WuKongIM keeps none of them (noPersist).

from __future__ import annotations

import asyncio
import base64
import json
import logging
import math
import re
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from hub.protocol.actors import Actor
from hub.relay import wire
from hub.relay.config import Person
from hub.relay.outbound import client_msg_no
from hub.store.queries import accounts
from hub.store.queries import relay as store
from hub.store.writer import Command, Tx

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message

    from hub.ports import HubCore as RelayHub  # what it uses of the hub: its core (reads, commands, settings)

log = logging.getLogger("lineup.relay")

REQUEST, RESPONSE = "request", "response"
# Set on the ASGI scope of a request run here, never by a socket: hub/web/auth.py takes the caller from it.
RELAY_ACTOR = "lineup.relay_actor"
CHUNK_BYTES = 192 * 1024          # raw bytes per part: 256 KiB of Base64, well under the 1 MiB WuKongIM frame
MAX_RESPONSE_BYTES = 8 * 1024 * 1024   # a larger answer (a file) is refused with 413: open it at home
RUN_TIMEOUT_S = 120.0             # a session's review or commit may take a while; nothing else comes close
AT_ONCE = 4                       # requests of one person run together; the rest wait their turn
METHODS = {"GET", "POST"}
# The relay's own access cannot be changed through the relay (a stolen relay token must not renew or keep itself),
# and signing in, setting up or pairing an agent are not requests of a signed-in device.
REFUSED = ("/api/relay/", "/api/login", "/api/setup", "/api/pair", "/api/sign-in-links/redeem")
# Read-only answers outside /api/ that a screen needs away from home: the Agents screen's `lineup agents add` presets.
OUTSIDE_API = ("/-/agent-presets.json",)
HOST = "localhost"  # an allowed name (hub/web/hostcheck.py); with no client address it never counts as this machine
_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,100}$")


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


def error(status: int, code: str, message: str, hint: str = "") -> Answer:
    """An answer shaped like the hub's HTTP errors (hub/web/errors.py), so the page reads it the same way."""
    return Answer(status, "application/json",
                  json.dumps({"error": {"code": code, "message": message, "hint": hint}}).encode())


def refusal(method: Any, path: Any, query: Any) -> Answer | None:
    """Why this request is not run, or None: only the hub's /api/ (and OUTSIDE_API, read), never the relay's own
    access."""
    if method not in METHODS:
        return error(405, "invalid_payload", "Only GET and POST requests travel through the relay.")
    if path in OUTSIDE_API and isinstance(query, str) and not query:
        return None if method == "GET" else error(405, "invalid_payload", f"{path} is read-only.")
    if not isinstance(path, str) or not path.startswith("/api/") or "?" in path or "#" in path:
        return error(400, "invalid_payload", "A relay request names a path under /api/ (or "
                                             f"{', '.join(OUTSIDE_API)}), without its query.")
    if not isinstance(query, str) or len(query) > 2000:
        return error(400, "invalid_payload", "A relay request's query is a string (like `limit=50`).")
    segments = unquote(path).split("/")
    if any(s in (".", "..") for s in segments):
        return error(400, "invalid_payload", "A relay request's path has no . or .. parts.")
    if path.startswith(REFUSED) or path == "/api/relay":
        if path in ("/api/relay", "/api/relay/check") and method == "GET":
            return None  # what the caller's access is, and the server's check: read-only
        return error(403, "forbidden", "This is not available through the relay.",
                     "Relay access, signing in and pairing are done at home, on the hub's own address.")
    return None


async def device_actor(hub: RelayHub, person: Person, actor: Actor) -> Actor | None:
    """The signed-in device that holds this person's relay access, as HTTP's bearer token would name it; None
    when no device holds it or that device was revoked."""
    def read(c: Any) -> Actor | None:
        raw = store.get_state(c, f"app_device:{person.uid}")
        device_id = json.loads(raw).get("deviceId") if raw else None
        device = accounts.device_in_workspace(c, device_id, actor.workspace_id) if device_id else None
        if device is None or device.revoked_at is not None or device.user_id != actor.id:
            return None
        return Actor("user", actor.id, actor.workspace_id, device_id=device.id)
    return await hub.read(read)


async def run_route(app: ASGIApp, actor: Actor, method: str, path: str, query: str, body: Any) -> Answer:
    """Run the hub's own app for one request as `actor`; the answer, or 413 past MAX_RESPONSE_BYTES."""
    sent = b"" if body is None else json.dumps(body).encode()
    headers = [(b"host", HOST.encode()), (b"accept", b"application/json")]
    if method == "POST":
        headers += [(b"content-type", b"application/json"), (b"content-length", str(len(sent)).encode())]
    scope: dict[str, Any] = {
        "type": "http", "asgi": {"version": "3.0", "spec_version": "2.4"}, "http_version": "1.1",
        "method": method, "scheme": "http", "path": unquote(path), "raw_path": path.encode(),
        "query_string": query.encode(), "root_path": "", "headers": headers, "client": None,
        "server": (HOST, 80), "state": {}, RELAY_ACTOR: actor,
    }
    done = asyncio.Event()
    delivered = False
    start: dict[str, Any] = {}
    parts: list[bytes] = []
    size = 0

    async def receive() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": sent, "more_body": False}
        await done.wait()  # the client "disconnects" only once the answer is whole
        return {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        nonlocal size
        if message["type"] == "http.response.start":
            start.update(message)
        elif message["type"] == "http.response.body":
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise _TooLarge
            parts.append(chunk)
            if not message.get("more_body"):
                done.set()

    try:
        async with asyncio.timeout(RUN_TIMEOUT_S):
            await app(scope, receive, send)
    except _TooLarge:
        return error(413, "too_large", f"This answer is larger than the relay carries "
                                       f"({MAX_RESPONSE_BYTES // (1024 * 1024)} MiB).",
                     "Open it at home, on the hub's own address.")
    except TimeoutError:
        return error(504, "timeout", f"The hub did not answer within {RUN_TIMEOUT_S:g} s.")
    except Exception:  # the app already answered 500 when it could; the page must hear something either way
        log.exception("relay: a request to %s %s failed", method, path)
        if not start:
            return error(500, "internal", "The hub failed to answer this request.")
    finally:
        done.set()
    content_type = next((v.decode("latin-1") for k, v in start.get("headers", ()) if k.lower() == b"content-type"),
                        "application/octet-stream")
    return Answer(int(start.get("status", 500)), content_type, b"".join(parts))


def messages(request_id: str, answer: Answer) -> list[dict[str, Any]]:
    """The `response` messages for an answer: one with the JSON body as it is when it fits, else Base64 parts."""
    head = {"type": wire.CONTROL, "op": RESPONSE, "id": request_id, "status": answer.status,
            "headers": {"content-type": answer.content_type}}
    if len(answer.body) <= CHUNK_BYTES and answer.content_type.startswith("application/json"):
        try:
            return [{**head, "body": json.loads(answer.body) if answer.body else None}]
        except ValueError:
            pass  # not JSON after all: sent as bytes below
    count = max(1, math.ceil(len(answer.body) / CHUNK_BYTES))
    return [{**head, "encoding": "base64", "part": index, "parts": count, "size": len(answer.body),
             "body": base64.b64encode(answer.body[index * CHUNK_BYTES:(index + 1) * CHUNK_BYTES]).decode()}
            for index in range(count)]


class RelayRequests:
    """One per hub: runs the people's requests beside the inbound loop (a slow read never holds up an answer)."""

    def __init__(self, hub: RelayHub, tag: str, app: Callable[[], ASGIApp] | None = None) -> None:
        self.hub = hub
        self.tag = tag
        self._app = app
        self._built: ASGIApp | None = None
        self._slots: dict[str, asyncio.Semaphore] = {}
        self._running: set[asyncio.Task[None]] = set()

    def app(self) -> ASGIApp:
        """The hub's own Starlette app, the one its HTTP port serves: the same routes, middlewares and error handling.
        The web layer hands it over (`serve_with`, from hub/app.py): the relay sits below the web layer and does not
        import it."""
        if self._built is None:
            self._built = self._app() if self._app is not None else _apps.get(self.hub)
            if self._built is None:
                raise RuntimeError("the hub's web app was not handed to the relay (hub/app.py calls serve_with)")
        return self._built

    def accept(self, person: Person, actor: Actor, message_id: str, payload: dict[str, Any]) -> str:
        """Start answering a request message; returns the outcome recorded for it (its answer follows)."""
        request_id = payload.get("id")
        if not isinstance(request_id, str) or not _ID.match(request_id):
            return "invalid_request"
        task = asyncio.create_task(self._answer(person, actor, message_id, request_id, payload),
                                   name=f"lineup-relay-request-{request_id}")
        self._running.add(task)
        task.add_done_callback(self._running.discard)
        return "request"

    async def _answer(self, person: Person, actor: Actor, message_id: str, request_id: str,
                      payload: dict[str, Any]) -> None:
        method, path, query = payload.get("method"), payload.get("path"), payload.get("query", "")
        slot = self._slots.setdefault(person.uid, asyncio.Semaphore(AT_ONCE))
        async with slot:
            answer = refusal(method, path, query)
            if answer is None:
                caller = await device_actor(self.hub, person, actor)
                if caller is None:
                    answer = error(401, "unauthorized", "No signed-in device holds this relay access.",
                                   "At home, open Settings → “Use this phone away from home” and set it up again.")
                else:
                    answer = await run_route(self.app(), caller, str(method), str(path), str(query),
                                             payload.get("body"))
            await self._send(person.uid, message_id, messages(request_id, answer))

    async def _send(self, uid: str, message_id: str, replies: list[dict[str, Any]]) -> None:
        def run(tx: Tx) -> None:
            for index, reply in enumerate(replies):
                store.enqueue(tx, uid, client_msg_no(self.tag, uid, "q", message_id, index), reply,
                              red_dot=False, no_persist=True)
        await self.hub.execute(Command(run=run))
        # The uplink's delivery loop sleeps until something is queued; the inbound loop that woke it has moved on.
        wake = getattr(getattr(self.hub, "relay", None), "_outbox_wake", None)
        if isinstance(wake, asyncio.Event):
            wake.set()

    async def settle(self) -> None:
        """Wait for the requests under way (tests, and a hub that stops)."""
        while self._running:
            await asyncio.gather(*list(self._running), return_exceptions=True)


class _TooLarge(Exception):
    """The answer passed MAX_RESPONSE_BYTES: the app is stopped there."""


_per_hub: weakref.WeakKeyDictionary[Any, RelayRequests] = weakref.WeakKeyDictionary()


_apps: weakref.WeakKeyDictionary[Any, ASGIApp] = weakref.WeakKeyDictionary()


def serve_with(hub: Any, app: ASGIApp) -> None:
    """The web app whose routes answer the hub's relay requests (called by hub/app.py as it makes the app)."""
    _apps[hub] = app


def for_hub(hub: RelayHub, tag: str) -> RelayRequests:
    """The hub's request runner, made on its first request."""
    runner = _per_hub.get(hub)
    if runner is None:
        runner = _per_hub[hub] = RelayRequests(hub, tag)
    return runner

