"""Configuration: defaults < `lineup.toml` in the data dir < LINEUP_* environment variables < command line."""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import stat
import tomllib
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs

CONFIG_FILE = "lineup.toml"
ENV_PREFIX = "LINEUP_"


def default_data_dir() -> Path:
    return Path(platformdirs.user_data_dir("lineup-agents", appauthor=False))


def private_data_dir(folder: Path) -> str | None:
    """Make the data folder the owner's alone (0700), creating it if need be, also when it already exists with
    wider permissions (`--data-dir` made by hand, an older version); what to tell the person when its mode was
    changed or could not be, else None (docs/security.md, "Files at rest"). Not on Windows: no POSIX modes."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if os.name == "nt":
        return None
    info = folder.stat()
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return None
    if mode & stat.S_ISVTX or info.st_uid != os.getuid() or folder.resolve() == Path.home().resolve():
        # A shared folder (/tmp), someone else's, or the home folder: not the hub's to lock; a folder of its own is.
        return (f"Warning: {folder} is not a folder of its own (mode {mode:04o}): other users of this machine can "
                "list its files. Give the hub a data folder of its own (--data-dir); it makes it private.")
    try:
        os.chmod(folder, 0o700)
    except OSError as exc:
        return (f"Could not make {folder} private (mode {mode:04o}): {exc.strerror}. Other users of this machine can "
                f"list its files; make it yours alone: chmod 700 {folder}")
    return (f"Made {folder} private (was {mode:04o}): other users of this machine could list its files; now only "
            "you can.")


SESSION_AGENT_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass(frozen=True)
class SessionAgentSettings:
    """`[sessions.agents.<key>]`: a preset's command and environment for sessions (hub/sessions/, docs/sessions.md),
    or an ACP agent of its own (then `name` and `command` are needed). Other keys are the acp runtime's options."""

    name: str | None = None
    command: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SessionSettings:
    """`[sessions]`: the folders whose projects the phone may start sessions in (none: sessions are off), how many
    sessions may have an agent process at once, and the agents' own settings."""

    roots: tuple[Path, ...] = ()
    max_running: int = 6
    agents: dict[str, SessionAgentSettings] = field(default_factory=dict)

    @property
    def enabled(self) -> bool:
        return bool(self.roots)


@dataclass
class Settings:
    host: str = "0.0.0.0"
    port: int = 9527
    data_dir: Path = field(default_factory=default_data_dir)
    mdns: bool = True
    mdns_interfaces: str = ""              # addresses to advertise on, comma-separated; empty: every interface
    hub_name: str = "LineUp hub"
    # Durability: FULL (default) fsyncs every commit; NORMAL may lose the last commits on power loss.
    synchronous: str = "FULL"
    # Caps the database size in pages (4 KiB each); unset means only the disk limits it.
    db_max_pages: int | None = None
    heartbeat_interval_s: float = 25.0
    missed_heartbeats_offline: int = 2
    grace_period_s: float = 900.0          # tasks fail after 15 min away (docs/design.md#an-agent-that-goes-away)
    cancel_timeout_s: float = 120.0        # a cancel request the agent never confirms ends the task after this
    hello_timeout_s: float = 10.0
    pairing_code_ttl_s: float = 600.0      # 10 minutes (docs/design.md#connecting-an-agent)
    stream_snapshot_s: float = 2.0         # a streaming message is saved at least this often
    # The head of the chain is written to <data dir>/chain-anchor.json this often when it moved (and at shutdown),
    # so `lineup db verify` notices the newest events deleted; 0: only at start and at shutdown.
    chain_anchor_interval_s: float = 5.0
    max_frame_bytes: int = 1024 * 1024
    outbound_buffer_bytes: int = 1024 * 1024
    tool_call_timeout_s: float = 300.0     # a call to an app's or agent's tool fails when nobody answers by then
    max_in_flight: int = 1000              # envelopes of one socket awaiting their ack before reading pauses
    # One agent (all its connections together) may send this many envelopes a second on average, in bursts of up
    # to agent_event_burst; beyond that each is answered `rate_limited` (retryable) and not stored, so no single
    # agent can fill the writer for everyone else (docs/security.md).
    agent_events_per_second: float = 2000.0
    agent_event_burst: int = 4000
    # Questions to the person are rarer still: an agent asking faster than this (bursts of agent_question_burst) is
    # answered `rate_limited` at the socket, before the writer, so a flood costs the hub next to nothing.
    agent_questions_per_second: float = 10.0
    agent_question_burst: int = 100
    # The newest committed events kept in memory (and at most 8 MiB of them) for receivers that resume at once;
    # replays from further back read the log. 0 turns it off.
    replay_window_events: int = 8192
    # Limits against hostile clients (docs/security.md): HTTP bodies and heads, slow or idle connections, connections
    # per address, streamed messages. A refused body is 413, a refused head 431 (400 when the parser finds it first),
    # a refused connection 429.
    max_body_bytes: int = 64 * 1024        # an HTTP request body above this is refused before it is read
    # Files agents and people upload (POST /api/files, docs/protocol.md "Files"): the one route whose body may pass
    # max_body_bytes, up to this per file, streamed to disk; and what one uploader (an agent, or a person) may keep
    # stored in all. Beyond either: 413, nothing stored.
    max_file_bytes: int = 25 * 1024 * 1024
    max_agent_file_bytes: int = 500 * 1024 * 1024
    max_header_bytes: int = 64 * 1024      # the request line and headers of one request
    request_timeout_s: float = 10.0        # a whole request must arrive within this of connecting / the last answer
    keep_alive_timeout_s: float = 5.0      # an idle kept-alive HTTP connection is closed after this
    max_connections_per_address: int = 64  # from one other machine (an IPv4 address, an IPv6 /64)
    max_connections_per_local_address: int = 4096  # from the hub's own machine (127.0.0.1, ::1)
    connections_reserved_local: int = 256  # file descriptors other machines' connections never take
    max_open_streams_per_agent: int = 16   # the least recently active stream is saved and closed beyond this
    stream_idle_s: float = 120.0           # a stream without a delta for this long is saved and closed
    log_level: str = "info"
    tls_cert: Path | None = None           # serve HTTPS/WSS with this certificate (PEM) ...
    tls_key: Path | None = None            # ... and this key
    tls_self_signed: bool = False          # or make a self-signed certificate once (clients pin its fingerprint)
    agent_tls: str = "auto"                # auto: beyond loopback without TLS, agents get a TLS listener; "off": plain
    agent_tls_port: int = 0                # that listener's port (0: the hub's port + 1)
    # auto: the hub's port answers https too, with a certificate of the hub's own CA (trusted once per device,
    # Settings → "Trust this hub"); "off": plain HTTP only. Not with --tls-* (the whole port is TLS then).
    lan_https: str = "auto"
    # Addresses (or networks, comma-separated) of TLS proxies on other machines that forward an https:// public_url
    # to this hub's plain port: agents that came through public_url from them are taken there
    # (hub/gateway/admission.py). A proxy on this machine needs no entry.
    trusted_proxies: str = ""
    plugins_dir: Path | None = None        # one more folder of plugins, besides <data dir>/plugins
    blocked_plugins: str = ""              # names of plugins not to load, comma-separated
    # Each plugin's own settings: the `[plugins.<name>]` tables of lineup.toml (only from the file).
    plugin_configs: dict[str, dict[str, Any]] = field(default_factory=dict)
    # `[sessions]` of lineup.toml (only from the file): sessions started from the phone (docs/sessions.md).
    sessions: SessionSettings = field(default_factory=SessionSettings)

    @property
    def db_path(self) -> Path:
        return self.data_dir / "lineup.db"

    @property
    def mdns_interface_list(self) -> list[str]:
        return [name.strip() for name in self.mdns_interfaces.split(",") if name.strip()]

    @property
    def blocked_plugin_names(self) -> list[str]:
        return [name.strip() for name in self.blocked_plugins.split(",") if name.strip()]

    @property
    def trusted_proxy_networks(self) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
        """`trusted_proxies` parsed (load_settings has refused an entry that is not an address or a network)."""
        return [ipaddress.ip_network(entry.strip(), strict=False) for entry in self.trusted_proxies.split(",")
                if entry.strip()]

    @property
    def heartbeat_interval_ms(self) -> int:
        return int(self.heartbeat_interval_s * 1000)


class SettingsError(ValueError):
    """A configuration value that cannot be used; the message names where it came from."""


def _coerce(name: str, kind: Any, value: Any, origin: str) -> Any:
    if isinstance(value, bool) and kind is not bool:  # TOML `port = true` is a mistake, not port 1
        raise SettingsError(f"{origin}: {name} = {value!r} is not a valid {kind}")
    try:
        if kind is bool:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if kind is int:
            return int(value)
        if kind is float:
            return float(value)
        if kind is Path:
            return Path(value).expanduser()
        if kind == (Path | None):
            return None if value in (None, "") else Path(value).expanduser()
        if kind == (int | None):
            return None if value in (None, "", "none") else int(value)
        return str(value)
    except (TypeError, ValueError):
        raise SettingsError(f"{origin}: {name} = {value!r} is not a valid {kind}") from None


def _plugin_tables(value: Any, origin: str) -> dict[str, dict[str, Any]]:
    """`[plugins.<name>]`: a table per plugin, handed to that plugin as it is (Datasette's plugin_config)."""
    if not isinstance(value, dict) or not all(isinstance(table, dict) for table in value.values()):
        raise SettingsError(f"{origin}: `plugins` must hold one table per plugin: [plugins.<name>]")
    return {str(name): dict(table) for name, table in value.items()}


def _session_tables(value: Any, origin: str) -> SessionSettings:
    """`[sessions]`: roots (folders, `~` allowed, absolute), max_running, and `[sessions.agents.<key>]` tables."""
    where = f"{origin}: [sessions]"
    if not isinstance(value, dict):
        raise SettingsError(f"{where} must be a table")
    unknown = set(value) - {"roots", "max_running", "agents"}
    if unknown:
        raise SettingsError(f"{where}: unknown setting {sorted(unknown)[0]!r} (known: roots, max_running, agents)")
    roots = value.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) and r.strip() for r in roots) or len(roots) > 50:
        raise SettingsError(f'{where}: roots must be a list of at most 50 folders, like roots = ["~/code"]')
    paths = tuple(Path(r).expanduser() for r in roots)
    for raw, path in zip(roots, paths, strict=True):
        if not path.is_absolute():
            raise SettingsError(f"{where}: root {raw!r} is not an absolute folder (start it with / or ~)")
    max_running = value.get("max_running", 6)
    if isinstance(max_running, bool) or not isinstance(max_running, int) or not 1 <= max_running <= 64:
        raise SettingsError(f"{where}: max_running must be a whole number from 1 to 64")
    agents_table = value.get("agents", {})
    if not isinstance(agents_table, dict):
        raise SettingsError(f"{where}: agents must hold one table per agent: [sessions.agents.<key>]")
    agents: dict[str, SessionAgentSettings] = {}
    for key, entry in agents_table.items():
        at = f"{origin}: [sessions.agents.{key}]"
        if not key or len(key) > 40 or not set(key) <= SESSION_AGENT_KEY_CHARS:
            raise SettingsError(f"{at}: the key must be lower-case letters, digits and -")
        if not isinstance(entry, dict):
            raise SettingsError(f"{at} must be a table")
        name = entry.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > 100):
            raise SettingsError(f"{at}: name must be text of at most 100 characters")
        command = entry.get("command", [])
        if isinstance(command, str):
            command = command.split()
        if not isinstance(command, list) or not all(isinstance(part, str) and part for part in command):
            raise SettingsError(f"{at}: command must be a list of texts")
        env = entry.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise SettingsError(f"{at}: env must be a table of texts")
        options = {k: v for k, v in entry.items() if k not in ("name", "command", "env")}
        agents[key] = SessionAgentSettings(name.strip() if name else None, tuple(command), dict(env), options)
    return SessionSettings(paths, max_running, agents)


def load_settings(overrides: dict[str, Any] | None = None, environ: dict[str, str] | None = None) -> Settings:
    """Build settings from every source; unknown keys in the TOML file are an error, not ignored."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    environ = dict(os.environ if environ is None else environ)
    kinds = typing.get_type_hints(Settings)
    del kinds["plugin_configs"]  # tables, not a value: read below, never from the environment
    del kinds["sessions"]
    values: dict[str, Any] = {}
    data_dir_source = overrides.get("data_dir") or environ.get(ENV_PREFIX + "DATA_DIR")
    data_dir = Path(data_dir_source).expanduser() if data_dir_source else default_data_dir()
    config_path = data_dir / CONFIG_FILE
    if config_path.exists():
        try:
            from_file = tomllib.loads(config_path.read_text())
        except tomllib.TOMLDecodeError as exc:
            raise SettingsError(f"{config_path}: not valid TOML: {exc}") from None
        hub_table = from_file.get("hub", from_file)
        for key, value in hub_table.items():
            if isinstance(value, (dict, list)):
                continue  # other tables ([[agents]], [notifications], ...) belong to other parts
            if key not in kinds:
                raise SettingsError(f"{config_path}: unknown setting {key!r}")
            values[key] = _coerce(key, kinds[key], value, str(config_path))
        values["plugin_configs"] = _plugin_tables(from_file.get("plugins", {}), str(config_path))
        if "sessions" in from_file:
            values["sessions"] = _session_tables(from_file["sessions"], str(config_path))
    for name, kind in kinds.items():
        env_value = environ.get(ENV_PREFIX + name.upper())
        if env_value is not None:
            values[name] = _coerce(name, kind, env_value, f"environment {ENV_PREFIX + name.upper()}")
    for name, value in overrides.items():
        values[name] = _coerce(name, kinds[name], value, "command line")
    values["data_dir"] = data_dir
    settings = Settings(**values)
    if settings.synchronous not in ("FULL", "NORMAL"):
        raise SettingsError(f"synchronous must be FULL or NORMAL, not {settings.synchronous!r}")
    for entry in (e.strip() for e in settings.trusted_proxies.split(",")):
        try:
            if entry:
                ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise SettingsError(f"trusted_proxies: {entry!r} is not an IP address or network (like 192.168.1.5 or "
                                f"192.168.1.0/24); list the addresses of your TLS proxies, comma-separated") from None
    return settings


def with_changes(settings: Settings, **changes: Any) -> Settings:
    return dataclasses.replace(settings, **changes)
