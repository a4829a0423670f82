"""Storing a received file as a fact of its workspace (`file.stored`), within what one uploader may keep.

The bytes are already on disk when this runs (hub/web/files.py, hub/files/blobs.py): the event only names them. A
file's id is derived from who uploaded it, its name and its content within the workspace, so the same agent sending
the same file again (a restarted handler, a re-sent request) gets the same id and stores nothing new, while another
uploader, or another workspace, never meets that id: no answer depends on what anyone else stored.
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import Any

from hub.protocol.actors import Actor
from hub.protocol.errors import LapError
from hub.store.queries import files as file_rows
from hub.store.queries.records import FileRecord
from hub.store.writer import Command, Tx


class FileTooLarge(LapError):
    """One file over `max_file_bytes`: `invalid_payload`, answered with HTTP 413 (nothing was stored)."""

    status = 413

    def __init__(self, limit: int) -> None:
        super().__init__("invalid_payload", f"This file is larger than {describe_size(limit)}, the most one file may "
                                            "be on this hub (max_file_bytes); nothing was stored.",
                         hint="Send a smaller file, or link to it instead.",
                         details={"limit": "fileBytes", "max": limit})


class FileQuotaReached(LapError):
    """What one uploader keeps would pass `max_agent_file_bytes`: `rate_limited` (not retried: the cap stays until
    the person lifts it), answered with HTTP 413 (nothing was stored)."""

    status = 413

    def __init__(self, limit: int, kept: int, size: int | None) -> None:
        adding = f" and this one is {describe_size(size)}" if size is not None else ""
        super().__init__("rate_limited", f"This uploader keeps {describe_size(kept)} of files on the hub{adding}; "
                                         f"together they would pass {describe_size(limit)} (max_agent_file_bytes). "
                                         "Nothing was stored.",
                         hint="Ask the hub's owner to raise max_agent_file_bytes in lineup.toml, or link to "
                              "large files instead of uploading them.",
                         details={"limit": "storedFileBytes", "max": limit, "used": kept})


def describe_size(size: int) -> str:
    """1,536 → "1.5 KiB", 26,214,400 → "25 MiB": as the person reads a limit."""
    value = float(size)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            if unit == "bytes":
                return f"{size:,} bytes"
            return f"{value:.1f}".rstrip("0").rstrip(".") + f" {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def file_id_for(actor: Actor, name: str, sha256: str) -> str:
    digest = hashlib.sha256("\0".join((actor.workspace_id, actor.ref, name, sha256)).encode()).hexdigest()
    return f"file_{digest[:32]}"


def view(record: FileRecord) -> dict[str, Any]:
    """A file as the upload answers it and a message carries it."""
    return {"fileId": record.id, "name": record.name, "mimeType": record.mime_type, "size": record.size,
            "sha256": record.sha256}


def already_kept(conn: sqlite3.Connection, actor: Actor, file_id: str, size: int, max_kept: int) -> FileRecord | None:
    """The file if this uploader stored it before (sent again: nothing new to keep); else None when it fits within
    what the uploader may keep, and FileQuotaReached when it does not."""
    existing = file_rows.file(conn, file_id, actor.workspace_id)
    if existing is not None:
        return existing
    kept = file_rows.bytes_kept_by(conn, actor.workspace_id, actor.kind, actor.id)
    if kept + size > max_kept:
        raise FileQuotaReached(max_kept, kept, size)
    return None


def store_file(actor: Actor, name: str, mime_type: str, size: int, sha256: str, max_kept: int) -> Command:
    """The writer command that records a received file; its value is the file as `view` shows it."""
    file_id = file_id_for(actor, name, sha256)

    def run(tx: Tx) -> dict[str, Any]:
        existing = already_kept(tx.conn, actor, file_id, size, max_kept)  # again under the write lock: no race
        if existing is not None:  # the same uploader sent the same file again: the same answer, nothing new
            return view(existing)
        payload = {"fileId": file_id, "name": name, "mimeType": mime_type, "size": size, "sha256": sha256,
                   "uploadedBy": actor.as_author()}
        tx.append("file.stored", payload, workspace_id=actor.workspace_id, actor=actor.ref)
        return {key: payload[key] for key in ("fileId", "name", "mimeType", "size", "sha256")}

    return Command(run=run)
