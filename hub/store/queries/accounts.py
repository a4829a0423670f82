"""Reads of people and their access: users, workspaces, devices, sign-in links, pairing codes, credentials."""

from __future__ import annotations

import sqlite3

import msgspec

from hub.store.queries.records import (
    DeviceRecord,
    PairingCodeRecord,
    SignInLinkRecord,
    UserRecord,
    WorkspaceRecord,
    fetch_all,
    fetch_one,
    select_list,
)

_USERS = f"SELECT {select_list(UserRecord)} FROM users"
_DEVICES = f"SELECT {select_list(DeviceRecord)} FROM devices"
# The owners of workspaces, each with its workspace (w).
_OWNERS = (f"SELECT {select_list(UserRecord, 'u')} FROM users u JOIN workspaces w ON w.id = u.workspace_id "
           "WHERE u.role = 'owner'")
# The hub's owner: the owner of its first workspace (what `lineup token`, `lineup pair` and renaming the hub use).
_FIRST_OWNER = f"{_OWNERS} ORDER BY w.created_at, u.created_at LIMIT 1"


class DeviceOwner(msgspec.Struct, frozen=True, gc=False):
    """The person a live device token stands for."""

    device_id: str
    user_id: str
    workspace_id: str


class CredentialOwner(msgspec.Struct, frozen=True, gc=False):
    """The agent a live credential stands for."""

    agent_id: str
    workspace_id: str


def device_owner(conn: sqlite3.Connection, token_hash: str) -> DeviceOwner | None:
    """The unrevoked device with this token hash and its user, or None."""
    return fetch_one(conn, DeviceOwner,
                     "SELECT d.id, d.user_id, d.workspace_id FROM devices d JOIN users u ON u.id = d.user_id "
                     "WHERE d.token_hash = ? AND d.revoked_at IS NULL", (token_hash,))


def credential_owner(conn: sqlite3.Connection, secret_hash: str) -> CredentialOwner | None:
    """The unrevoked agent behind an unrevoked credential with this secret hash, or None."""
    return fetch_one(conn, CredentialOwner,
                     "SELECT c.agent_id, c.workspace_id FROM credentials c JOIN agents a ON a.id = c.agent_id "
                     "WHERE c.secret_hash = ? AND c.revoked_at IS NULL AND a.revoked_at IS NULL", (secret_hash,))


class CredentialState(msgspec.Struct, frozen=True, gc=False):
    """A credential, live or not, and whether it or its agent was revoked (a rotated credential is revoked)."""

    agent_id: str
    workspace_id: str
    revoked_at: str | None
    agent_revoked_at: str | None


def credential_state(conn: sqlite3.Connection, secret_hash: str) -> CredentialState | None:
    """The credential with this secret hash, revoked or not, with its agent's revocation; None when unknown."""
    return fetch_one(conn, CredentialState,
                     "SELECT c.agent_id, c.workspace_id, c.revoked_at, a.revoked_at FROM credentials c "
                     "JOIN agents a ON a.id = c.agent_id WHERE c.secret_hash = ?", (secret_hash,))


def has_password_user(conn: sqlite3.Connection, password_prefix: str) -> bool:
    """Whether any user's password hash starts with this prefix (someone can sign in with a password)."""
    return conn.execute("SELECT 1 FROM users WHERE password_hash LIKE ? LIMIT 1",
                        (password_prefix + "%",)).fetchone() is not None


def user_by_id(conn: sqlite3.Connection, user_id: str) -> UserRecord | None:
    """The user with this id."""
    return fetch_one(conn, UserRecord, f"{_USERS} WHERE id = ?", (user_id,))


def user_by_username(conn: sqlite3.Connection, username: str) -> UserRecord | None:
    """The user with this username."""
    return fetch_one(conn, UserRecord, f"{_USERS} WHERE username = ?", (username,))


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


def first_owner(conn: sqlite3.Connection) -> UserRecord | None:
    """The hub's owner: the owner of its first workspace."""
    return fetch_one(conn, UserRecord, _FIRST_OWNER)


def owner_of_workspace_named(conn: sqlite3.Connection, workspace_name: str) -> UserRecord | None:
    """The first owner of the workspace with this name."""
    return fetch_one(conn, UserRecord, f"{_OWNERS} AND w.name = ? ORDER BY u.created_at LIMIT 1", (workspace_name,))


def workspace_by_id(conn: sqlite3.Connection, workspace_id: str) -> WorkspaceRecord | None:
    """The workspace with this id."""
    return fetch_one(conn, WorkspaceRecord, f"SELECT {select_list(WorkspaceRecord)} FROM workspaces WHERE id = ?",
                     (workspace_id,))


def devices_of_user(conn: sqlite3.Connection, workspace_id: str, user_id: str) -> list[DeviceRecord]:
    """A user's devices, oldest first."""
    return fetch_all(conn, DeviceRecord, f"{_DEVICES} WHERE workspace_id = ? AND user_id = ? ORDER BY created_at",
                     (workspace_id, user_id))


def device_in_workspace(conn: sqlite3.Connection, device_id: str, workspace_id: str) -> DeviceRecord | None:
    """The device with this id in this workspace."""
    return fetch_one(conn, DeviceRecord, f"{_DEVICES} WHERE id = ? AND workspace_id = ?", (device_id, workspace_id))


def device_name(conn: sqlite3.Connection, device_id: str | None) -> str | None:
    """A device's name, or None when there is no such device."""
    row = conn.execute("SELECT name FROM devices WHERE id = ?", (device_id,)).fetchone()
    return None if row is None else row[0]


def sign_in_link(conn: sqlite3.Connection, code_hash: str) -> SignInLinkRecord | None:
    """The sign-in link with this code hash, used or not, expired or not."""
    return fetch_one(conn, SignInLinkRecord, f"SELECT {select_list(SignInLinkRecord)} FROM sign_in_links "
                     "WHERE code_hash = ?", (code_hash,))


def pairing_code(conn: sqlite3.Connection, code_hash: str) -> PairingCodeRecord | None:
    """The pairing code with this code hash, used or not, expired or not."""
    return fetch_one(conn, PairingCodeRecord, f"SELECT {select_list(PairingCodeRecord)} FROM pairing_codes "
                     "WHERE code_hash = ?", (code_hash,))


def workspace_id_named_or_first(conn: sqlite3.Connection, name: str | None) -> str | None:
    """The id of the workspace with this name, or of the oldest one when `name` is None; None when there is none."""
    row = conn.execute("SELECT id FROM workspaces WHERE (? IS NULL OR name = ?) ORDER BY created_at LIMIT 1",
                       (name, name)).fetchone()
    return None if row is None else str(row[0])
