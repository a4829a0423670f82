"""The `[notify]` tables of lineup.toml: what notifies, on which channel, quiet hours, rate limits."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import time
from pathlib import Path
from typing import Any

KINDS = ("waiting_for_me", "failed", "agent_offline", "succeeded", "agent_waiting")
# What each channel sends unless configured otherwise: the person's attention first (docs/design.md#notifications).
DEFAULT_KINDS = {"inapp": KINDS, "webhook": ("waiting_for_me", "failed"), "mail": ("waiting_for_me", "failed"),
                 "webpush": ("waiting_for_me", "agent_waiting", "failed")}
# Channels on with no table of their own: in-app, and Web Push, which reaches only the devices whose person asked
# for it in the app (Settings → Notifications), so it needs nothing set up in lineup.toml.
DEFAULT_ON = ("inapp", "webpush")
ALL_WORKSPACES = "*"
# Which workspaces a channel serves unless configured otherwise. In-app notifications are events of the
# interaction's own workspace, seen only by its members, so they serve every workspace. Any other channel
# reaches whoever wrote lineup.toml (their webhook, their mail box): by default only the hub's first workspace,
# the one `lineup token` creates on a new hub, never the workspaces of the other people the hub serves.
# Web Push likewise: a device subscribes for itself, and gets only its own workspace's notifications.
DEFAULT_WORKSPACES: dict[str, tuple[str, ...] | None] = {"inapp": (ALL_WORKSPACES,), "webpush": (ALL_WORKSPACES,)}


class NotifyConfigError(ValueError):
    """A `[notify]` setting that cannot be used; the message names it."""


@dataclass(frozen=True)
class ChannelConfig:
    name: str
    enabled: bool
    kinds: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict)
    # Workspace ids or names, ("*",) for all; None: the hub's first workspace (the oldest).
    workspaces: tuple[str, ...] | None = None

    def serves(self, workspace_id: str, workspaces: Sequence[tuple[str, str]]) -> bool:
        """Whether this channel may carry a notification of `workspace_id`. `workspaces` is the hub's
        (id, name) pairs, oldest first; names are resolved now, so a workspace made later is served too."""
        if self.workspaces is None:
            return bool(workspaces) and workspaces[0][0] == workspace_id
        if ALL_WORKSPACES in self.workspaces:
            return True
        return any(ws_id == workspace_id and (ws_id in self.workspaces or name in self.workspaces)
                   for ws_id, name in workspaces)

    def unmatched(self, workspaces: Sequence[tuple[str, str]]) -> list[str]:
        """The configured names or ids that match no workspace (yet)."""
        known = {value for pair in workspaces for value in pair}
        return [w for w in self.workspaces or () if w != ALL_WORKSPACES and w not in known]


@dataclass(frozen=True)
class NotifyConfig:
    channels: dict[str, ChannelConfig]
    quiet_hours: tuple[time, time] | None = None
    include_details: bool = False          # opt-in (docs/design.md#no-raw-details-outside-the-hub)
    rate_per_minute: int = 20              # per channel; more are delayed, never dropped
    max_age_s: float = 3600.0              # older events (a hub that was down a day) do not notify
    action_link_ttl_s: float = 3600.0
    public_url: str | None = None          # how links in notifications reach the hub (default: its LAN URL)

    def channel(self, name: str) -> ChannelConfig:
        return self.channels.get(name) or ChannelConfig(name, name in DEFAULT_ON, DEFAULT_KINDS.get(name, ()),
                                                         workspaces=DEFAULT_WORKSPACES.get(name))


def _hhmm(value: str, where: str) -> time:
    match = re.fullmatch(r"(\d{1,2}):(\d{2})", value.strip())
    if not match or int(match[1]) > 23 or int(match[2]) > 59:
        raise NotifyConfigError(f"{where}: {value!r} is not a time like 22:00")
    return time(int(match[1]), int(match[2]))


def _workspaces(name: str, options: dict[str, Any], origin: str) -> tuple[str, ...] | None:
    if "workspaces" not in options:
        return DEFAULT_WORKSPACES.get(name)
    value = options["workspaces"]
    if not isinstance(value, list) or not all(isinstance(w, str) and w.strip() for w in value):
        raise NotifyConfigError(f"{origin}: notify.{name}.workspaces must be a list of workspace names or ids, "
                                f'or ["*"] for all; got {value!r}')
    if not value:
        raise NotifyConfigError(f"{origin}: notify.{name}.workspaces names no workspace; "
                                "to turn the channel off, set enabled = false")
    return tuple(w.strip() for w in value)


def parse_notify(data: dict[str, Any], origin: str) -> NotifyConfig:
    table = data.get("notify", {})
    if not isinstance(table, dict):
        raise NotifyConfigError(f"{origin}: [notify] must be a table")
    quiet = None
    if table.get("quiet_hours"):
        start, _, end = str(table["quiet_hours"]).partition("-")
        quiet = (_hhmm(start, f"{origin}: notify.quiet_hours"), _hhmm(end, f"{origin}: notify.quiet_hours"))
    channels: dict[str, ChannelConfig] = {}
    for name, options in table.items():
        if not isinstance(options, dict):
            continue
        kinds = tuple(options.get("events", DEFAULT_KINDS.get(name, ("waiting_for_me", "failed"))))
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise NotifyConfigError(f"{origin}: notify.{name}.events has unknown kinds {sorted(unknown)}; "
                                    f"use {list(KINDS)}")
        channels[name] = ChannelConfig(name, bool(options.get("enabled", True)), kinds,
                                       {k: v for k, v in options.items()
                                        if k not in ("enabled", "events", "workspaces")},
                                       _workspaces(name, options, origin))
    return NotifyConfig(channels, quiet, bool(table.get("include_details", False)),
                        int(table.get("rate_per_minute", 20)), float(table.get("max_age_s", 3600)),
                        float(table.get("action_link_ttl_s", 3600)), table.get("public_url"))


def load_notify_config(path: Path) -> NotifyConfig:
    if not path.exists():
        return parse_notify({}, str(path))
    try:
        return parse_notify(tomllib.loads(path.read_text()), str(path))
    except tomllib.TOMLDecodeError as exc:
        raise NotifyConfigError(f"{path}: not valid TOML: {exc}") from None
