"""`lineup relay …`: the status a running hub published, setup diagnostics, provisioning, the app's pairing data."""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from hub.relay import wire
from hub.relay.config import RelayConfig
from hub.relay.httpapi import ApiError, HttpApi
from hub.relay.probe import AUTH_OFF_STEP, probe, token_auth_off
from hub.relay.status import WHITELIST_STEP
from hub.store.queries import relay as store
from hub.store.writer import Command, Tx

RunCommand = Callable[[Command], Awaitable[Any]]


def _read_only(db_path: Path) -> sqlite3.Connection | None:
    if not db_path.exists():
        return None
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    return conn


def status_report(config: RelayConfig, db_path: Path) -> dict[str, Any]:
    """What the hub last published (relay_state), the outbox, and each person's cursors."""
    report: dict[str, Any] = {"enabled": config.enabled, "server": config.ws_url, "api": config.api_url,
                              "uid": config.uid, "serverLine": config.server_line, "status": None, "people": []}
    conn = _read_only(db_path)
    if conn is None or not store.has_schema(conn):
        return report
    try:
        raw = store.get_state(conn, "status")
        report["status"] = json.loads(raw) if raw else None
        report["pending"] = store.pending_count(conn)
        report["failed"] = store.failed_count(conn)
        for row in store.people(conn):
            report["people"].append({"uid": row.uid, "cursor": row.cursor, "syncedSeq": row.synced_seq})
    finally:
        conn.close()
    return report


async def hub_token(config: RelayConfig, run: RunCommand) -> str:
    """The token the hub connects with: [relay] token, or the one it made for itself (kept in relay_state)."""
    if config.token:
        return config.token
    candidate = secrets.token_urlsafe(24)

    def once(tx: Tx) -> str:
        existing = store.get_state(tx.conn, "hub_token")
        if existing is not None:
            return existing
        store.set_state(tx, "hub_token", candidate)
        return candidate
    return str(await run(Command(run=once)))


SESSION_UP = {None, "relay_not_in_whitelist", "relay_send_refused"}


async def check(config: RelayConfig, token: str, device_id: str,
                running: dict[str, Any] | None = None) -> list[tuple[str, str]]:
    """Setup diagnostics: (ok | FAIL | note, what) lines, most important first. `running` is the status a running
    hub published: while its session is up the WebSocket is not probed (signing in with the hub's uid and
    device flag would make WuKongIM kick the hub, reason 12)."""
    lines: list[tuple[str, str]] = []
    if not config.configured:
        return [("FAIL", "[relay] needs ws_url (WuKongIM's WebSocket, port 5200) and uid")]
    if running and running.get("state") in ("connected", "error") and running.get("code") in SESSION_UP \
            and running.get("line"):
        lines.append(("ok", f"WebSocket: the running hub is signed in as {config.uid!r} on the {running['line']} "
                            f"line ({'the official SDK' if running['line'] == 'compat' else 'its v2 client'})"))
    else:
        lines.extend(await _probe_lines(config, token, device_id))
    lines.extend(await _auth_lines(config))
    lines.extend(await _api_lines(config))
    if not config.people:
        lines.append(("note", 'nobody is served yet: add [relay] people = [{uid = "alice", user = "owner"}]'))
    if running and running.get("code") == "relay_not_in_whitelist":
        lines.append(("FAIL", "delivery is refused with reason 13 (NotInWhitelist): " + WHITELIST_STEP))
    else:
        lines.append(("note", "If messages fail with reason 13 (NotInWhitelist): " + WHITELIST_STEP))
    return lines


async def _probe_lines(config: RelayConfig, token: str, device_id: str) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    try:
        found = await probe(config.ws_url, config.uid, token, device_id, config.device_flag, config.connect_timeout_s)
    except ConnectionError as exc:
        lines.append(("FAIL", f"WebSocket: {exc}"))
    else:
        if found.line is None:
            lines.append(("FAIL", f"WebSocket: {config.ws_url} answers neither WuKongIM JSON-RPC line: "
                                  f"{found.evidence}"))
        else:
            chosen = config.server_line if config.server_line != "auto" else found.line
            lines.append(("ok" if chosen == found.line else "FAIL",
                          f"WebSocket: the server speaks the {found.line} line ({found.evidence}); the hub uses "
                          f"{'the official SDK' if chosen == 'compat' else 'its v2 client'}"
                          + ("" if chosen == found.line else f' — set server_line = "{found.line}" or "auto"')))
            if found.auth_code is not None:
                lines.append(("FAIL", f"the hub's uid {config.uid!r} and token were refused "
                                      f"({wire.reason_name(found.auth_code)}): check [relay] token, or run "
                                      "`lineup relay provision` with manager_token"))
            else:
                lines.append(("ok", f"the hub signs in as {config.uid!r}"))
    return lines


async def _auth_lines(config: RelayConfig) -> list[tuple[str, str]]:
    """Whether WuKongIM checks tokens at all: a sign-in with a wrong token must be refused."""
    off = await token_auth_off(config.ws_url, config.connect_timeout_s)
    if off is None:
        return [("note", "could not tell whether WuKongIM checks tokens (a test sign-in got no clear answer)")]
    if off:
        return [("FAIL", "WuKongIM accepted a sign-in with a WRONG token: its token authentication is OFF. "
                         + AUTH_OFF_STEP)]
    return [("ok", "WuKongIM refuses a wrong token (token authentication is on)")]


async def _api_lines(config: RelayConfig) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    if config.api_url:
        api = HttpApi(config.api_url, config.manager_token)
        try:
            await api.messagesync(config.uid, config.people[0].uid if config.people else config.uid, 0, 1)
            lines.append(("ok", f"HTTP API {config.api_url} answers (missed messages are recovered after a reconnect)"))
        except ApiError as exc:
            hint = " — set [relay] manager_token" if exc.status == 401 else ""
            lines.append(("FAIL", f"HTTP API: {exc}{hint}"))
    else:
        lines.append(("note", "no [relay] api_url: messages sent while the hub is offline are not recovered"))
    return lines


async def provision(config: RelayConfig, token: str) -> list[str]:
    """With the manager token: register the hub's token, make its uid a system user, whitelist both ways."""
    if not (config.api_url and config.manager_token):
        raise ApiError(0, "provisioning needs [relay] api_url and manager_token")
    api = HttpApi(config.api_url, config.manager_token)
    done = []
    await api.user_token(config.uid, token, config.device_flag)
    done.append(f"registered the hub's token for {config.uid!r} (device flag {config.device_flag})")
    await api.add_system_uids([config.uid])
    done.append(f"made {config.uid!r} a system user (it may message anyone; replies to it are allowed)")
    for person in config.people:
        await api.whitelist_add(person.uid, [config.uid])
        await api.whitelist_add(config.uid, [person.uid])
        done.append(f"whitelisted {config.uid!r} and {person.uid!r} for each other")
    return done


def pairing(config: RelayConfig, uid: str, workspace_id: str, token: str | None) -> dict[str, Any]:
    """What the LineUp app needs to reach this hub through WuKongIM (docs/relay.md, "The app's contract")."""
    data: dict[str, Any] = {
        "kind": "lineup.relay", "protocol": "LAP/0.1", "ws": config.app_ws_url or config.ws_url, "uid": uid,
        "hubUid": config.uid, "workspaceId": workspace_id, "channelType": wire.PERSON,
        "types": {"text": wire.TEXT, "lap": wire.LAP, "control": wire.CONTROL},
        "serverLine": config.server_line}
    if token:
        data["token"] = token
    return data
