"""Reads of the conversations and messages projections."""

from __future__ import annotations

import sqlite3

from hub.store.queries.records import (
    ConversationRecord,
    MessageRecord,
    MessageStateRecord,
    fetch_all,
    fetch_one,
    select_list,
)

_CONVERSATIONS = f"SELECT {select_list(ConversationRecord)} FROM conversations"
# A message's text is stored once, in the payload of its last event (hub/store/projections.py _message_written):
# the messages row keeps '' in `content`, and reads take the text from that event.
MESSAGE_CONTENT = "COALESCE(json_extract(e.payload, '$.content'), '')"
_MESSAGES = (f"SELECT {select_list(MessageRecord, 'm').replace('m.content', MESSAGE_CONTENT)} FROM messages m "
             "JOIN events e ON e.sequence = m.last_sequence")
_MESSAGE_STATES = f"SELECT {select_list(MessageStateRecord)} FROM messages"


def recent_conversations(conn: sqlite3.Connection, workspace_id: str, limit: int) -> list[ConversationRecord]:
    """A workspace's conversations, the most recently active first."""
    return fetch_all(conn, ConversationRecord, f"{_CONVERSATIONS} WHERE workspace_id = ? "
                     "ORDER BY last_sequence DESC LIMIT ?", (workspace_id, limit))


def conversation_exists(conn: sqlite3.Connection, conversation_id: str, workspace_id: str) -> bool:
    """Whether this workspace has a conversation with this id."""
    return conn.execute("SELECT 1 FROM conversations WHERE id = ? AND workspace_id = ?",
                        (conversation_id, workspace_id)).fetchone() is not None


def conversation(conn: sqlite3.Connection, conversation_id: str, workspace_id: str) -> ConversationRecord | None:
    """The conversation with this id in this workspace."""
    return fetch_one(conn, ConversationRecord, f"{_CONVERSATIONS} WHERE id = ? AND workspace_id = ?",
                     (conversation_id, workspace_id))


def messages_before(conn: sqlite3.Connection, conversation_id: str, workspace_id: str, before: int,
                    limit: int) -> list[MessageRecord]:
    """A conversation's messages that began before a sequence, newest first, `limit` of them."""
    return fetch_all(conn, MessageRecord, f"{_MESSAGES} WHERE m.conversation_id = ? AND m.workspace_id = ? "
                     "AND m.first_sequence < ? ORDER BY m.first_sequence DESC LIMIT ?",
                     (conversation_id, workspace_id, before, limit))


def message(conn: sqlite3.Connection, message_id: str, workspace_id: str) -> MessageRecord | None:
    """The message with this id in this workspace."""
    return fetch_one(conn, MessageRecord, f"{_MESSAGES} WHERE m.id = ? AND m.workspace_id = ?",
                     (message_id, workspace_id))


def message_state_and_author(conn: sqlite3.Connection, message_id: str,
                             workspace_id: str) -> MessageStateRecord | None:
    """A message's `state` and `author_id`, or None when there is no such message."""
    return fetch_one(conn, MessageStateRecord, f"{_MESSAGE_STATES} WHERE id = ? AND workspace_id = ?",
                     (message_id, workspace_id))
