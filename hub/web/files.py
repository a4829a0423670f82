"""Files over HTTP (docs/protocol.md "Files"): `POST /api/files` stores one, `GET /api/files/{id}` serves it.

Either credential may call them, in `Authorization: Bearer`: the app's device token (any file of its workspace) or an
agent's credential (the files it uploaded, and those attached where it takes part: docs/security.md "Files"). An
agent on another machine must come over TLS, as on its socket (hub/gateway/admission.py).

An upload is the request body itself (any Content-Type; the name in `X-File-Name`, percent-encoded UTF-8, or the
`name` query parameter), read as it arrives: written to disk while it is hashed, never whole in memory, cut off with
413 past `max_file_bytes` (hub/web/bodylimit.py raises the hub's 64 KiB body limit for this route only, and refuses
a larger Content-Length before a byte is read). The bytes are in place before the `file.stored` event that names
them is committed, so a stored file always has its bytes. A file is served as the type its bytes are
(hub/files/types.py), with `nosniff`, a sandboxing CSP, and as a download unless it is an image or text.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Iterator
from datetime import datetime
from email.utils import formatdate
from urllib.parse import unquote

from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from hub.auth.lookup import agent_actor, app_actor
from hub.domain.files import FileTooLarge, already_kept, file_id_for, store_file
from hub.files.blobs import BlobStore, Upload
from hub.files.types import PREVIEWED, clean_name, served_type, stored_type
from hub.gateway.admission import plain_agent_refusal
from hub.protocol.actors import Actor
from hub.protocol.errors import LapError
from hub.store.queries import files as file_rows
from hub.store.queries.records import FileRecord
from hub.web.auth import check_origin, relayed_caller
from hub.web.port import hub_of

ROUTE = "/api/files"
# Received bytes are written to disk in pieces of about this size (on a worker thread: the loop never waits on the
# disk), so one upload holds at most this much in memory whatever its size.
FLUSH_BYTES = 1024 * 1024
# Uploads one uploader may have under way at once; another is answered 429 (retry in a second).
UPLOADS_AT_ONCE = 4
# A stored file's own answer: nothing in it runs or loads anything, also when opened as a page of the hub.
FILE_CSP = "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; frame-ancestors 'none'"


async def caller(request: Request) -> Actor:
    """The person (device token) or the agent (credential) in `Authorization: Bearer`."""
    relayed = relayed_caller(request)
    if relayed is not None:
        return relayed
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise LapError("unauthorized", "Send the app's token or the agent's credential: `Authorization: Bearer …`.")
    hub = hub_of(request)
    actor = await app_actor(hub, token) or await agent_actor(hub, token)
    if actor is None:
        raise LapError("unauthorized", "The token or credential is unknown or has been revoked.")
    if actor.kind == "agent":
        refusal = plain_agent_refusal(hub, request.scope)
        if refusal is not None:
            raise refusal
    return actor


@contextlib.contextmanager
def upload_slot(request: Request, actor: Actor) -> Iterator[None]:
    under_way: dict[str, int] = getattr(request.app.state, "file_uploads", None) or {}
    request.app.state.file_uploads = under_way
    if under_way.get(actor.ref, 0) >= UPLOADS_AT_ONCE:
        raise LapError("rate_limited", f"{UPLOADS_AT_ONCE} uploads of this sender are under way already.",
                       hint="Send the next file when one of them is done.",
                       details={"limit": "rate", "retryAfterMs": 1000})
    under_way[actor.ref] = under_way.get(actor.ref, 0) + 1
    try:
        yield
    finally:
        under_way[actor.ref] -= 1
        if not under_way[actor.ref]:
            del under_way[actor.ref]


def _name(request: Request) -> str:
    raw = request.headers.get("x-file-name") or request.query_params.get("name") or ""
    return clean_name(unquote(raw, errors="replace"))


async def _receive(request: Request, upload: Upload, limit: int) -> None:
    pending = bytearray()
    async for chunk in request.stream():
        if upload.size + len(pending) + len(chunk) > limit:
            raise FileTooLarge(limit)
        pending += chunk
        if len(pending) >= FLUSH_BYTES:
            await asyncio.to_thread(upload.write, bytes(pending))
            pending.clear()
    if pending:
        await asyncio.to_thread(upload.write, bytes(pending))


async def upload_file(request: Request) -> JSONResponse:
    check_origin(request)
    actor = await caller(request)
    hub = hub_of(request)
    settings = hub.settings
    name = _name(request)
    with upload_slot(request, actor):
        upload = await asyncio.to_thread(BlobStore.in_data_dir(settings.data_dir).begin)
        try:
            await _receive(request, upload, settings.max_file_bytes)
            sha256 = await asyncio.to_thread(upload.seal)
            # What the uploader keeps is checked before the bytes take their place, so a refused file leaves
            # nothing behind (the writer checks again, under its lock, before the event is stored).
            file_id = file_id_for(actor, name, sha256)
            await hub.read(lambda c: already_kept(c, actor, file_id, upload.size, settings.max_agent_file_bytes))
            await asyncio.to_thread(upload.place)
        except BaseException:
            await asyncio.to_thread(upload.discard)
            raise
    mime_type = stored_type(upload.head, upload.is_text, request.headers.get("content-type"), name)
    stored = await hub.execute(store_file(actor, name, mime_type, upload.size, sha256, settings.max_agent_file_bytes))
    return JSONResponse(stored, status_code=201)


def _readable(conn: sqlite3.Connection, actor: Actor, file_id: str) -> FileRecord | None:
    record = file_rows.file(conn, file_id, actor.workspace_id)
    if record is None or (actor.kind == "agent" and not file_rows.agent_may_read(conn, record, actor.id)):
        return None
    return record


async def download_file(request: Request) -> Response:
    actor = await caller(request)
    hub = hub_of(request)
    file_id = request.path_params["file_id"]
    record = await hub.read(lambda c: _readable(c, actor, file_id))
    if record is None:  # another workspace's file, or one this agent may not read, is answered as a missing one
        raise LapError("not_found", f"No file {file_id!r} in this workspace.")
    path = BlobStore.in_data_dir(hub.settings.data_dir).path(record.sha256)
    if not path.is_file():
        raise LapError("internal", f"The bytes of file {file_id!r} are missing from the hub's data folder.",
                       hint="`lineup db check` lists the files whose bytes are missing; restore the data folder's "
                            "files/ from a backup.")
    # ETag and Last-Modified are the file's own (its content, when its workspace stored it), never the blob's on disk:
    # the blob is rewritten whenever anyone stores the same bytes, and its time would tell that to every reader.
    headers = {"content-security-policy": FILE_CSP, "etag": f'"{record.sha256}"',
               "last-modified": formatdate(datetime.fromisoformat(record.created_at).timestamp(), usegmt=True)}
    return FileResponse(path, media_type=served_type(record.mime_type), filename=record.name, headers=headers,
                        content_disposition_type="inline" if record.mime_type in PREVIEWED else "attachment")


routes = [
    Route(ROUTE, upload_file, methods=["POST"]),
    Route(ROUTE + "/{file_id}", download_file),
]
