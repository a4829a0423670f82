"""Single-use action links (a notification's buttons): stored by token hash, spent once, and who they answer as."""
# The links are the notifier's own bookkeeping, not projections of the log (hub/store/migrations.py,
# m005_create_notifications). Writes take the writer's Tx: spending a link is in the same transaction as the answer
# it gives (hub/notify/actions.py), so a link is never spent without its answer, nor answered twice.

from __future__ import annotations

import sqlite3

from hub.protocol.envelope import new_id, now_iso
from hub.store.queries.records import ActionLinkRecord, fetch_one, select_list
from hub.store.writer import Tx


def create(tx: Tx, token_hash: str, workspace_id: str, interaction_id: str, response: str, expires_at: str) -> None:
    """Store a new link that answers this interaction with this response (JSON) until it expires."""
    # Only the token's hash is stored: the database alone cannot answer an interaction.
    tx.conn.execute("INSERT INTO action_links (id, token_hash, workspace_id, interaction_id, response, expires_at, "
                    "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (new_id("act"), token_hash, workspace_id, interaction_id, response, expires_at, now_iso()))


def by_token_hash(conn: sqlite3.Connection, token_hash: str) -> ActionLinkRecord | None:
    """The action link with this token hash, spent or not, expired or not."""
    return fetch_one(conn, ActionLinkRecord, f"SELECT {select_list(ActionLinkRecord)} FROM action_links "
                     "WHERE token_hash = ?", (token_hash,))


def spend(tx: Tx, link_id: str) -> None:
    """Mark a link used, now."""
    tx.conn.execute("UPDATE action_links SET used_at = ? WHERE id = ?", (now_iso(), link_id))


def answering_owner_id(conn: sqlite3.Connection, workspace_id: str) -> str | None:
    """The id of the workspace's oldest owner, whom a link answers as; None when it has no owner."""
    # A link is followed without signing in, so no user is known: the answer is recorded as the owner's, the
    # oldest one when there are several, so the same person every time.
    row = conn.execute("SELECT id FROM users WHERE workspace_id = ? AND role = 'owner' ORDER BY created_at LIMIT 1",
                       (workspace_id,)).fetchone()
    return None if row is None else str(row[0])
