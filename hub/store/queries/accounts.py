"""Reads of people and their access: users, workspaces, devices, sign-in links, pairing codes, credentials."""

from __future__ import annotations

import sqlite3

import msgspec

# The hub's owner: the owner of its first workspace (what `lineup token`, `lineup pair` and renaming the hub use).
_FIRST_OWNER = ("SELECT u.* FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.role = 'owner' "
                "ORDER BY w.created_at, u.created_at LIMIT 1")


class DeviceOwner(msgspec.Struct, frozen=True):
    """The person a live device token stands for."""

    device_id: str
    user_id: str
    workspace_id: str


class CredentialOwner(msgspec.Struct, frozen=True):
    """The agent a live credential stands for."""

    agent_id: str
    workspace_id: str


def device_owner(conn: sqlite3.Connection, token_hash: str) -> DeviceOwner | None:
    """The unrevoked device with this token hash and its user, or None."""
    row = conn.execute(
        "SELECT d.id AS device_id, d.user_id, d.workspace_id FROM devices d JOIN users u ON u.id = d.user_id "
        "WHERE d.token_hash = ? AND d.revoked_at IS NULL", (token_hash,)).fetchone()
    return None if row is None else DeviceOwner(row["device_id"], row["user_id"], row["workspace_id"])


def credential_owner(conn: sqlite3.Connection, secret_hash: str) -> CredentialOwner | None:
    """The unrevoked agent behind an unrevoked credential with this secret hash, or None."""
    row = conn.execute(
        "SELECT c.agent_id, c.workspace_id FROM credentials c JOIN agents a ON a.id = c.agent_id "
        "WHERE c.secret_hash = ? AND c.revoked_at IS NULL AND a.revoked_at IS NULL", (secret_hash,)).fetchone()
    return None if row is None else CredentialOwner(row["agent_id"], row["workspace_id"])


def has_password_user(conn: sqlite3.Connection, password_prefix: str) -> bool:
    """Whether any user's password hash starts with this prefix (someone can sign in with a password)."""
    return conn.execute("SELECT 1 FROM users WHERE password_hash LIKE ? LIMIT 1",
                        (password_prefix + "%",)).fetchone() is not None


def user_by_id(conn: sqlite3.Connection, user_id: str) -> sqlite3.Row | None:
    """The users row with this id."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM users WHERE id = ?", (user_id,)).fetchone()
    return row


def user_by_username(conn: sqlite3.Connection, username: str) -> sqlite3.Row | None:
    """The users row with this username."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM users WHERE username = ?", (username,)).fetchone()
    return row


def user_id_by_username(conn: sqlite3.Connection, username: str) -> str | None:
    """The id of the user with this username."""
    row = conn.execute("SELECT id FROM users WHERE username = ?", (username,)).fetchone()
    return None if row is None else str(row["id"])


def owner_username_taken(conn: sqlite3.Connection) -> bool:
    """Whether a user is called 'owner' (the name the CLI's first owner takes when it is free)."""
    return conn.execute("SELECT 1 FROM users WHERE username = 'owner'").fetchone() is not None


def user_display_name(conn: sqlite3.Connection, user_id: str) -> str | None:
    """A user's display name, or None when there is no such user."""
    row = conn.execute("SELECT display_name FROM users WHERE id = ?", (user_id,)).fetchone()
    return None if row is None else row["display_name"]


def workspace_of_username(conn: sqlite3.Connection, username: str) -> str | None:
    """The workspace id of the user with this username."""
    row = conn.execute("SELECT workspace_id FROM users WHERE username = ?", (username,)).fetchone()
    return None if row is None else str(row[0])


def first_owner(conn: sqlite3.Connection) -> sqlite3.Row | None:
    """The hub's owner: the owner of its first workspace (users row)."""
    row: sqlite3.Row | None = conn.execute(_FIRST_OWNER).fetchone()
    return row


def owner_of_workspace_named(conn: sqlite3.Connection, workspace_name: str) -> sqlite3.Row | None:
    """The first owner (users row) of the workspace with this name."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT u.* FROM users u JOIN workspaces w ON w.id = u.workspace_id WHERE u.role = 'owner' "
        "AND w.name = ? ORDER BY u.created_at LIMIT 1", (workspace_name,)).fetchone()
    return row


def workspace_by_id(conn: sqlite3.Connection, workspace_id: str) -> sqlite3.Row | None:
    """The workspaces row with this id."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM workspaces WHERE id = ?", (workspace_id,)).fetchone()
    return row


def devices_of_user(conn: sqlite3.Connection, workspace_id: str, user_id: str) -> list[sqlite3.Row]:
    """A user's devices rows, oldest first."""
    return conn.execute("SELECT * FROM devices WHERE workspace_id = ? AND user_id = ? ORDER BY created_at",
                        (workspace_id, user_id)).fetchall()


def device_in_workspace(conn: sqlite3.Connection, device_id: str, workspace_id: str) -> sqlite3.Row | None:
    """The devices row with this id in this workspace."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM devices WHERE id = ? AND workspace_id = ?",
                                           (device_id, workspace_id)).fetchone()
    return row


def device_name(conn: sqlite3.Connection, device_id: str | None) -> str | None:
    """A device's name, or None when there is no such device."""
    row = conn.execute("SELECT name FROM devices WHERE id = ?", (device_id,)).fetchone()
    return None if row is None else row[0]


def sign_in_link(conn: sqlite3.Connection, code_hash: str) -> sqlite3.Row | None:
    """The sign_in_links row with this code hash."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM sign_in_links WHERE code_hash = ?",
                                           (code_hash,)).fetchone()
    return row


def pairing_code(conn: sqlite3.Connection, code_hash: str) -> sqlite3.Row | None:
    """The pairing_codes row with this code hash."""
    row: sqlite3.Row | None = conn.execute("SELECT * FROM pairing_codes WHERE code_hash = ?",
                                           (code_hash,)).fetchone()
    return row


def workspace_named_or_first(conn: sqlite3.Connection, name: str | None) -> sqlite3.Row | None:
    """The workspace with this name, or the oldest one when `name` is None; None when there is none."""
    row: sqlite3.Row | None = conn.execute(
        "SELECT id FROM workspaces WHERE (? IS NULL OR name = ?) ORDER BY created_at LIMIT 1", (name, name)).fetchone()
    return row
