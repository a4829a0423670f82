"""The `[relay]` table of lineup.toml (and LINEUP_RELAY_* variables): server, the hub's identity, its people."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

LINES = ("auto", "compat", "v2")
ENV_PREFIX = "LINEUP_RELAY_"
# Settings a variable may override (secrets are best kept out of lineup.toml).
ENV_KEYS = ("enabled", "ws_url", "app_ws_url", "api_url", "uid", "token", "manager_token", "server_line")


class RelayConfigError(ValueError):
    """A `[relay]` setting that cannot be used; the message names it and says what to write instead."""


@dataclass(frozen=True)
class Person:
    """Someone the hub serves through WuKongIM: their uid, acting as a LineUp user of that user's workspace."""

    uid: str
    user: str                  # the LineUp username whose identity their envelopes carry
    lap: bool = True           # send them every event as a LineUp envelope (the LineUp app renders these)
    # Plain IM text both ways (agent messages, questions, results; answers and chat by text): any IM client.
    # None (unset): on, unless the person's app holds sealed access, whose content the text would expose.
    text: bool | None = None

    def texts(self, sealed: bool) -> bool:
        return self.text if self.text is not None else not sealed


@dataclass(frozen=True)
class RelayConfig:
    enabled: bool = False
    ws_url: str = ""                   # WuKongIM's WebSocket address, e.g. ws://im.example.com:5200
    app_ws_url: str = ""               # the address phones use, e.g. wss://im.example.com:5210 (default: ws_url)
    api_url: str = ""                  # WuKongIM's HTTP API, e.g. http://im.example.com:5001 (reconcile, provisioning)
    uid: str = "lineup-hub"            # the hub's own WuKongIM uid
    token: str = ""                    # the hub's WuKongIM token ...
    manager_token: str = ""            # ... or the server's manager token: the hub registers a token of its own
    server_line: str = "auto"          # compat (official SDK) | v2 (released 2.x line) | auto (probe once)
    device_flag: int = 2               # WuKongIM device flag of the hub's connection: 0 app, 1 web, 2 PC
    people: tuple[Person, ...] = ()
    ping_interval_s: float = 25.0
    connect_timeout_s: float = 10.0
    request_timeout_s: float = 15.0
    reconnect_min_s: float = 1.0
    reconnect_max_s: float = 60.0
    blocked_retry_s: float = 60.0      # how often to try again while the server refuses to deliver (reason 13, ...)
    # WuKongIM with token authentication off lets anyone who reaches it sign in as a person and act as their
    # LineUp user: the uplink then refuses to relay, unless this says the risk is taken knowingly (a lab setup).
    allow_token_auth_off: bool = False
    sources: tuple[str, ...] = field(default=(), compare=False)

    @property
    def configured(self) -> bool:
        return bool(self.ws_url and self.uid)

    def person(self, uid: str) -> Person | None:
        return next((p for p in self.people if p.uid == uid), None)


def _bool(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise RelayConfigError(f"relay.{name} = {value!r} is not true or false")


def _url(name: str, value: str, schemes: tuple[str, ...]) -> str:
    if not value:
        return ""
    parts = urlsplit(value)
    if parts.scheme not in schemes or not parts.hostname:
        raise RelayConfigError(f"relay.{name} = {value!r} must be a {' or '.join(s + '://' for s in schemes)} address")
    return value.rstrip("/")


def _people(value: Any) -> tuple[Person, ...]:
    if not isinstance(value, list):
        raise RelayConfigError('relay.people must be a list like [{uid = "alice", user = "owner"}]')
    people: list[Person] = []
    for entry in value:
        if not isinstance(entry, dict) or not entry.get("uid") or not entry.get("user"):
            raise RelayConfigError(f'relay.people: {entry!r} needs `uid` (WuKongIM) and `user` (LineUp username)')
        unknown = set(entry) - {"uid", "user", "lap", "text"}
        if unknown:
            raise RelayConfigError(f"relay.people: unknown keys {sorted(unknown)} in {entry!r}")
        people.append(Person(str(entry["uid"]), str(entry["user"]), _bool("people.lap", entry.get("lap", True)),
                             None if entry.get("text") is None else _bool("people.text", entry["text"])))
    uids = [p.uid for p in people]
    if len(set(uids)) != len(uids):
        raise RelayConfigError("relay.people: each uid may appear once")
    return tuple(people)


def parse_relay(table: dict[str, Any], environ: dict[str, str] | None = None) -> RelayConfig:
    """Build the config from a `[relay]` table and the environment; unknown keys are an error."""
    environ = dict(os.environ if environ is None else environ)
    values: dict[str, Any] = dict(table)
    sources = ["lineup.toml"] if table else []
    for key in ENV_KEYS:
        if ENV_PREFIX + key.upper() in environ:
            values[key] = environ[ENV_PREFIX + key.upper()]
            sources.append(ENV_PREFIX + key.upper())
    known = set(RelayConfig.__dataclass_fields__) - {"sources"}
    unknown = set(values) - known
    if unknown:
        raise RelayConfigError(f"unknown [relay] settings {sorted(unknown)}; known: {sorted(known)}")
    out: dict[str, Any] = {}
    for key, value in values.items():
        if key == "people":
            out[key] = _people(value)
        elif key in ("enabled", "allow_token_auth_off"):
            out[key] = _bool(key, value)
        elif key in ("ws_url", "app_ws_url"):
            out[key] = _url(key, str(value), ("ws", "wss"))
        elif key == "api_url":
            out[key] = _url(key, str(value), ("http", "https"))
        elif key == "server_line":
            if str(value) not in LINES:
                raise RelayConfigError(f"relay.server_line = {value!r}; use one of {list(LINES)}")
            out[key] = str(value)
        elif key == "device_flag":
            if str(value) not in ("0", "1", "2"):
                raise RelayConfigError(f"relay.device_flag = {value!r}; use 0 (app), 1 (web) or 2 (PC)")
            out[key] = int(value)
        elif key.endswith("_s"):
            try:
                out[key] = float(value)
            except (TypeError, ValueError):
                raise RelayConfigError(f"relay.{key} = {value!r} is not a number of seconds") from None
            if out[key] <= 0:
                raise RelayConfigError(f"relay.{key} must be more than 0")
        else:
            out[key] = str(value)
    if "enabled" not in out and out.get("ws_url"):
        out["enabled"] = True  # a configured server means "use it" unless switched off
    return RelayConfig(**out, sources=tuple(sources))


def load_relay_config(path: Path, environ: dict[str, str] | None = None) -> RelayConfig:
    table: dict[str, Any] = {}
    if path.exists():
        try:
            data = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise RelayConfigError(f"{path}: not valid TOML: {exc}") from None
        table = data.get("relay", {})
        if not isinstance(table, dict):
            raise RelayConfigError(f"{path}: [relay] must be a table")
    try:
        return parse_relay(table, environ)
    except RelayConfigError as exc:
        raise RelayConfigError(f"{path}: {exc}") from None
