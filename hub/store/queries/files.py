"""Reads of the files projection: a workspace's files, what one uploader keeps, who may read a file, the blobs the
rows name (docs/protocol.md "Files")."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from hub.store.queries import conversations, tasks
from hub.store.queries.records import FileLinkRecord, FileRecord, fetch_all, fetch_one, select_list

_FILES = f"SELECT {select_list(FileRecord)} FROM files"
_LINKS = f"SELECT {select_list(FileLinkRecord)} FROM file_links"
# Where a file was attached, looked at when an agent asks for it: a file attached more often than this is judged by
# its first places (a message or an artifact names a file once; this bounds the work of one read).
MAX_LINKS_LOOKED_AT = 200


def file(conn: sqlite3.Connection, file_id: str, workspace_id: str) -> FileRecord | None:
    """The file with this id in this workspace."""
    return fetch_one(conn, FileRecord, f"{_FILES} WHERE id = ? AND workspace_id = ?", (file_id, workspace_id))


def files(conn: sqlite3.Connection, file_ids: Sequence[str], workspace_id: str) -> dict[str, FileRecord]:
    """The files of this workspace among `file_ids`, by id (the ids of other workspaces are simply absent)."""
    if not file_ids:
        return {}
    marks = ",".join("?" * len(file_ids))
    rows = fetch_all(conn, FileRecord, f"{_FILES} WHERE workspace_id = ? AND id IN ({marks})",
                     (workspace_id, *file_ids))
    return {row.id: row for row in rows}


def bytes_kept_by(conn: sqlite3.Connection, workspace_id: str, kind: str, uploader_id: str) -> int:
    """What one uploader (an agent, a person) has stored in all, in bytes."""
    row = conn.execute("SELECT COALESCE(SUM(size), 0) FROM files WHERE workspace_id = ? AND uploaded_by_kind = ? "
                       "AND uploaded_by_id = ?", (workspace_id, kind, uploader_id)).fetchone()
    return int(row[0])


def links(conn: sqlite3.Connection, file_id: str, workspace_id: str,
          limit: int = MAX_LINKS_LOOKED_AT) -> list[FileLinkRecord]:
    """Where the file was attached (messages, artifacts), the first `limit` places."""
    return fetch_all(conn, FileLinkRecord, f"{_LINKS} WHERE workspace_id = ? AND file_id = ? LIMIT ?",
                     (workspace_id, file_id, limit))


def agent_may_read(conn: sqlite3.Connection, record: FileRecord, agent_id: str) -> bool:
    """An agent reads a file it uploaded, or one attached (to a message or an artifact) in a conversation it is a
    member of, to a task assigned to it, or to a message addressed to it (docs/security.md "Files")."""
    if record.uploaded_by_kind == "agent" and record.uploaded_by_id == agent_id:
        return True
    for link in links(conn, record.id, record.workspace_id):
        if link.agent_id == agent_id:
            return True
        if link.task_id is not None:
            task = tasks.task(conn, link.task_id, record.workspace_id)
            if task is not None and task.agent_id == agent_id:
                return True
        if link.conversation_id is not None:
            conversation = conversations.conversation(conn, link.conversation_id, record.workspace_id)
            if conversation is not None and agent_id in conversation.members():
                return True
    return False


def blobs_after(conn: sqlite3.Connection, after: str, limit: int) -> list[tuple[str, int]]:
    """The blobs the rows name, (sha256, size) in order of sha256 after `after`, `limit` of them: for
    `lineup db check` (is each on disk?) and `lineup export --files`."""
    rows = conn.execute("SELECT sha256, MAX(size) FROM files WHERE sha256 > ? GROUP BY sha256 ORDER BY sha256 LIMIT ?",
                        (after, limit)).fetchall()
    return [(str(sha), int(size)) for sha, size in rows]
