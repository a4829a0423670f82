"""The agents a session can run: the `lineup agents add` presets and `[sessions.agents.<key>]` of lineup.toml.

A preset is installed when its program is on the hub's PATH (found by its full path, as `lineup agents add` does);
`[sessions.agents.<key>] command` replaces that (and names an agent of its own for a key that is no preset). What a
preset's program must be asked first (Gemini CLI's ACP flag) is asked in the background (hub/sessions/probes.py):
the list never waits for it, a start of that agent does. The modes and models each agent offered the last time one
of its sessions started are kept in `<data dir>/sessions/offers.json`; until then the preset's usual ones are shown,
labelled by the same kinds (docs/sessions.md "Agents").
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hub.presets import PRESETS
from hub.sessions.probes import Probes
from hub.settings import SessionSettings

log = logging.getLogger("lineup.sessions")

# What the app may call a mode, whatever the agent names it: Ask / Accept edits / Plan / Full access.
MODE_KINDS = {"default": "ask", "acceptEdits": "accept_edits", "plan": "plan", "bypassPermissions": "full_access",
              "dontAsk": "deny_unasked", "read-only": "read_only", "auto": "ask", "full-access": "full_access",
              "autoEdit": "accept_edits", "auto_edit": "accept_edits", "yolo": "full_access"}

# The modes and models a preset usually offers, shown until one of its sessions has started once.
USUAL: dict[str, dict[str, list[dict[str, Any]]]] = {
    "claude-code": {
        "modes": [{"id": "default", "name": "Default", "description": "Standard behavior, prompts for dangerous "
                                                                    "operations"},
                  {"id": "acceptEdits", "name": "Accept Edits", "description": "Auto-accept file edit operations"},
                  {"id": "plan", "name": "Plan Mode", "description": "Planning mode, no actual tool execution"},
                  {"id": "bypassPermissions", "name": "Bypass Permissions",
                   "description": "Bypass all permission checks"}],
        "models": [{"id": "default", "name": "Default (recommended)", "description": ""}]},
}
MAX_OFFERED = 100            # modes or models kept of one agent


@dataclass(frozen=True)
class SessionAgent:
    """One agent a session can run: its key, name, command (None: not installed) and the acp runtime's options."""

    key: str
    name: str
    command: list[str] | None
    install: str
    env: dict[str, str] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    checking: bool = False   # its program is still being asked (its command is not final): it cannot start yet
    # How to install it, in parts the app says in the person's language (`install` is the same in English words):
    # the preset's install command, and the program of a configured command that is not on the hub's PATH.
    install_command: str = ""
    missing_program: str = ""

    @property
    def installed(self) -> bool:
        return self.command is not None


def _found(program: str) -> str | None:
    if os.path.isabs(program):
        return program if os.access(program, os.X_OK) and Path(program).is_file() else None
    return shutil.which(program)


class Catalogue:
    """The session agents of this hub, and what each offered when it last started."""

    def __init__(self, settings: SessionSettings, data_dir: Path) -> None:
        self.settings = settings
        self.offers_path = data_dir / "sessions" / "offers.json"
        self.probes = Probes()              # gemini's ACP flag (asking its --help takes seconds, or hangs)
        self._offers: dict[str, Any] | None = None

    def names(self) -> list[str]:
        return [*PRESETS, *(k for k in self.settings.agents if k not in PRESETS)]

    def name_of(self, key: str) -> str:
        """What the agent of `key` is called (its lineup.toml name, else its preset's, else the key)."""
        configured = self.settings.agents.get(key)
        preset = PRESETS.get(key)
        return (configured.name if configured is not None else None) or (preset.name if preset else key)

    def probe_all(self) -> None:
        """Start asking every preset program that needs it (at the hub's start), so a list finds the answers."""
        for key in self.names():
            self.peek(key)

    def peek(self, key: str) -> SessionAgent | None:
        """The agent of `key` as it would start now, without waiting: `checking` while its program is still being
        asked (in the background; started now if it was not). None for an unknown key."""
        return self._build(key, self.probes.known)

    async def agent(self, key: str) -> SessionAgent | None:
        """The agent of `key` as it would start now (waiting for its program's answer), or None for an unknown key."""
        found = self.peek(key)
        if found is None or not found.checking:
            return found
        assert found.command is not None
        flag = await self.probes.answer(found.command[0])
        return self._build(key, lambda _: flag)

    def _build(self, key: str, flag_of: Callable[[str], str | None]) -> SessionAgent | None:
        configured = self.settings.agents.get(key)
        preset = PRESETS.get(key)
        if preset is None and (configured is None or not configured.command):
            return None
        name = (configured.name if configured is not None else None) or (preset.name if preset else key)
        options = dict(preset.options) if preset is not None else {}
        options.update(configured.options if configured is not None else {})
        env = dict(configured.env) if configured is not None else {}
        install = preset.install if preset is not None else ""
        if configured is not None and configured.command:
            program = _found(configured.command[0])
            command = [program, *configured.command[1:]] if program else None
            if command is None:
                install = (f"{configured.command[0]} (the command of [sessions.agents.{key}] in lineup.toml) is not "
                           "on the hub's PATH" + (f"; install it: {install}" if install else ""))
            if command is None:
                return SessionAgent(key, name, None, install, env, options, install_command=preset.install if preset
                                    else "", missing_program=configured.command[0])
            return SessionAgent(key, name, command, install, env, options)
        assert preset is not None
        program = _found(preset.program)
        if program is None:
            how = f"Install it on the hub's machine: {preset.install}" if preset.install else ""
            return SessionAgent(key, name, None, how + f" (or set [sessions.agents.{key}] command in lineup.toml), "
                                                       "then start a session again.", env, options,
                                install_command=preset.install)
        if key == "gemini":  # its ACP flag: --acp, or --experimental-acp for an older gemini
            flag = flag_of(program)
            if flag is None:
                return SessionAgent(key, name, [program], "", env, options, checking=True)
            return SessionAgent(key, name, [program, flag], "", env, options)
        return SessionAgent(key, name, [program, *preset.args], "", env, options)

    # ---- what each agent offered ------------------------------------------------------------------------------

    def _load_offers(self) -> dict[str, Any]:
        if self._offers is None:
            try:
                loaded = json.loads(self.offers_path.read_text())
                self._offers = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                self._offers = {}
        return self._offers

    def offered(self, key: str) -> dict[str, Any]:
        """`{modes, models, takes?, offeredAt?}`: as the agent last offered them, else the preset's usual ones; each
        mode with the same `kind` either way, so "Bypass Permissions" is Full access (and warned of) before the agent
        has ever run."""
        seen = self._load_offers().get(key)
        if isinstance(seen, dict):
            return {**seen, "modes": kinded(seen.get("modes") or [])}
        usual = USUAL.get(key, {})
        return {"modes": kinded(usual.get("modes", [])), "models": usual.get("models", []), "offeredAt": None}

    def remember(self, key: str, offers: dict[str, Any], takes: dict[str, bool]) -> None:
        """Keep what an agent offered at session/new (its modes and models) for the next listing."""
        entry = {"modes": modes_of(offers), "models": models_of(offers), "takes": takes,
                 "offeredAt": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")}
        stored = self._load_offers()
        if {k: v for k, v in (stored.get(key) or {}).items() if k != "offeredAt"} == \
                {k: v for k, v in entry.items() if k != "offeredAt"}:
            return
        stored[key] = entry
        try:
            self.offers_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            tmp = self.offers_path.with_name(self.offers_path.name + ".tmp")
            tmp.write_text(json.dumps(stored))
            os.replace(tmp, self.offers_path)
        except OSError as exc:
            log.warning("could not save %s: %s", self.offers_path, exc)


def _text(value: Any, limit: int = 500) -> str:
    return value[:limit] if isinstance(value, str) else ""


def _config_select(offers: dict[str, Any], category: str) -> tuple[str, list[dict[str, Any]]] | None:
    """A configuration option of this category (ACP `configOptions`, type select): its id and its values."""
    for option in offers.get("configOptions") or []:
        if isinstance(option, dict) and option.get("category") == category and option.get("type") == "select" \
                and isinstance(option.get("id"), str):
            values: list[dict[str, Any]] = []
            for item in option.get("options") or []:
                group = item.get("options") if isinstance(item, dict) and "group" in item else [item]
                values += [v for v in group or [] if isinstance(v, dict) and isinstance(v.get("value"), str)]
            return option["id"], values
    return None


def kinded(modes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The modes, each named by its kind where the app has a word for it (MODE_KINDS)."""
    return [{**mode, "kind": MODE_KINDS[mode["id"]]} if isinstance(mode, dict) and mode.get("id") in MODE_KINDS
            else mode for mode in modes]


def modes_of(offers: dict[str, Any]) -> list[dict[str, Any]]:
    """The modes a session offers: ACP `modes.availableModes`, else a `configOptions` select of category mode.
    Each `{id, name, description, kind?, via}`; `via` says how the hub sets it (`mode`, or `config:<option id>`)."""
    found: list[dict[str, Any]] = []
    modes = offers.get("modes")
    if isinstance(modes, dict):
        for mode in modes.get("availableModes") or []:
            if isinstance(mode, dict) and isinstance(mode.get("id"), str):
                found.append({"id": mode["id"][:200], "name": _text(mode.get("name")) or mode["id"][:200],
                              "description": _text(mode.get("description")), "via": "mode"})
    elif (config := _config_select(offers, "mode")) is not None:
        found = [{"id": v["value"][:200], "name": _text(v.get("name")) or v["value"][:200],
                  "description": _text(v.get("description")), "via": f"config:{config[0]}"} for v in config[1]]
    return kinded(found[:MAX_OFFERED])


def models_of(offers: dict[str, Any]) -> list[dict[str, Any]]:
    """The models a session offers: `models.availableModels` (claude-code-acp; set with `session/set_model`), else a
    `configOptions` select of category model (codex-acp; set with `session/set_config_option`)."""
    found: list[dict[str, Any]] = []
    models = offers.get("models")
    if isinstance(models, dict):
        for model in models.get("availableModels") or []:
            if isinstance(model, dict) and isinstance(model.get("modelId"), str):
                found.append({"id": model["modelId"][:200], "name": _text(model.get("name")) or model["modelId"][:200],
                              "description": _text(model.get("description")), "via": "model"})
    elif (config := _config_select(offers, "model")) is not None:
        found = [{"id": v["value"][:200], "name": _text(v.get("name")) or v["value"][:200],
                  "description": _text(v.get("description")), "via": f"config:{config[0]}"} for v in config[1]]
    return found[:MAX_OFFERED]


def current_of(offers: dict[str, Any]) -> tuple[str | None, str | None]:
    """The mode and model a session started in, as the agent said."""
    mode = model = None
    modes = offers.get("modes")
    if isinstance(modes, dict) and isinstance(modes.get("currentModeId"), str):
        mode = modes["currentModeId"]
    models = offers.get("models")
    if isinstance(models, dict) and isinstance(models.get("currentModelId"), str):
        model = models["currentModelId"]
    for option in offers.get("configOptions") or []:
        if isinstance(option, dict) and isinstance(option.get("currentValue"), str):
            if option.get("category") == "model" and model is None:
                model = option["currentValue"]
            elif option.get("category") == "mode" and mode is None:
                mode = option["currentValue"]
    return mode, model


def public(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Modes or models as the API shows them (without how the hub sets them)."""
    return [{k: v for k, v in entry.items() if k != "via"} for entry in entries]
