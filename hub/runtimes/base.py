"""The runtime contract plugins implement, and the `[[agents]]` entries of lineup.toml that use it."""

from __future__ import annotations

import re
import shlex
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hub.sdk.client import AgentClient

KNOWN_KEYS = {"name", "runtime", "command", "cwd", "env", "workspace"}


class RuntimeConfigError(ValueError):
    """An `[[agents]]` entry that cannot be used; the message names the entry and the field."""


@dataclass(frozen=True)
class AgentConfig:
    name: str
    runtime: str
    command: list[str]
    cwd: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    workspace: str | None = None          # the workspace's name; default: the first workspace
    options: dict[str, Any] = field(default_factory=dict)  # runtime-specific keys

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-") or "agent"


class SupervisedAgent(Protocol):
    """What a runtime builds for one configured agent: it registers handlers on its SDK client."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


@dataclass(frozen=True)
class RuntimeSpec:
    name: str
    description: str
    create: Callable[[AgentConfig, AgentClient], SupervisedAgent | Awaitable[SupervisedAgent]]


def parse_agent_configs(data: dict[str, Any], origin: str) -> list[AgentConfig]:
    entries = data.get("agents", [])
    if not isinstance(entries, list):
        raise RuntimeConfigError(f"{origin}: `agents` must be an array of tables ([[agents]]).")
    configs, names = [], set()
    for index, entry in enumerate(entries, start=1):
        where = f"{origin}: [[agents]] entry {index}"
        if not isinstance(entry, dict):
            raise RuntimeConfigError(f"{where} is not a table.")
        for key in ("name", "runtime"):
            if not isinstance(entry.get(key), str) or not entry[key].strip():
                raise RuntimeConfigError(f"{where} needs `{key}` (text).")
        if entry["name"] in names:
            raise RuntimeConfigError(f"{where}: the name {entry['name']!r} is used twice.")
        names.add(entry["name"])
        command = entry.get("command", [])
        if isinstance(command, str):
            command = shlex.split(command)
        if not isinstance(command, list) or not all(isinstance(part, str) for part in command):
            raise RuntimeConfigError(f"{where}: `command` must be text or a list of texts.")
        env = entry.get("env", {})
        if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
            raise RuntimeConfigError(f"{where}: `env` must be a table of texts.")
        cwd = Path(entry["cwd"]).expanduser() if entry.get("cwd") else None
        options = {k: v for k, v in entry.items() if k not in KNOWN_KEYS}
        configs.append(AgentConfig(entry["name"], entry["runtime"], command, cwd, dict(env), entry.get("workspace"),
                                   options))
    return configs


def load_agent_configs(config_path: Path) -> list[AgentConfig]:
    """The `[[agents]]` of lineup.toml (none when the file does not exist)."""
    if not config_path.exists():
        return []
    try:
        data = tomllib.loads(config_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise RuntimeConfigError(f"{config_path}: not valid TOML: {exc}") from None
    return parse_agent_configs(data, str(config_path))
