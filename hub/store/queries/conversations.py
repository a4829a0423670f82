"""Reads of the conversations and messages projections."""

from __future__ import annotations

import sqlite3


def recent_conversations(conn: sqlite3.Connection, workspace_id: str, limit: int) -> list[sqlite3.Row]:
    """A workspace's conversations rows, the most recently active first."""
    return conn.execute("SELECT * FROM conversations WHERE workspace_id = ? ORDER BY last_sequence DESC LIMIT ?",
                        (workspace_id, limit)).fetchall()


def conversation_exists(conn: sqlite3.Connection, conversation_id: str, workspace_id: str) -> bool:
    """Whether this workspace has a conversation with this id."""
    return conn.execute("SELECT 1 FROM conversations WHERE id = ? AND workspace_id = ?",
                        (conversation_id, workspace_id)).fetchone() is not None


def conversation(conn: sqlite3.Connection, conversation_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The conversations row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM conversations WHERE id = ? AND workspace_id = ?",
                                           (conversation_id, workspace_id)).fetchone()
    return row


def messages_before(conn: sqlite3.Connection, conversation_id: str, workspace_id: str, before: int,
                    limit: int) -> list[sqlite3.Row]:
    """A conversation's messages rows that began before a sequence, newest first, `limit` of them."""
    return conn.execute("SELECT * FROM messages WHERE conversation_id = ? AND workspace_id = ? AND first_sequence < ? "
                        "ORDER BY first_sequence DESC LIMIT ?",
                        (conversation_id, workspace_id, before, limit)).fetchall()


def message(conn: sqlite3.Connection, message_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The messages row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM messages WHERE id = ? AND workspace_id = ?",
                                           (message_id, workspace_id)).fetchone()
    return row


def message_state_and_author(conn: sqlite3.Connection, message_id: str, workspace_id: str) -> sqlite3.Row | None:
    """A message's `state` and `author_id` (a row with just those), or None when there is no such message."""
    row: sqlite3.Row | None = conn.execute("SELECT state, author_id FROM messages WHERE id = ? AND workspace_id = ?",
                                           (message_id, workspace_id)).fetchone()
    return row
