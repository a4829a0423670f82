"""`lineup connect hermes`: LineUp as one of `hermes gateway`'s messaging platforms (docs/agents.md, "Hermes as a
messaging platform (always on)"), and `lineup hook hermes-bridge`, the process the plugin starts.

Connecting pairs the agent (a pairing code, as `lineup connect claude-code`), copies the plugin
(integrations/hermes_plugin/) into `$HERMES_HOME/plugins/lineup/` with `lineup.json` beside it (how to start the
bridge: this LineUp's own program, hub/cli_invocation.py `launcher`, and the credential file's path; no secret), and
adds `lineup` to `plugins.enabled` in Hermes's `config.yaml`, as Hermes requires before it loads a plugin it did
not ship (hermes_cli/plugins.py). `--remove` takes out the folder and that one list item.

Hermes's config.yaml is the person's file: our lines are added as lines (each marked `# lineup connect hermes`),
never by writing the whole file back, and the result is parsed and compared with what was meant before it is
written, so a file we cannot edit safely is left alone with the one-line fix to make by hand.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import click

from hub.connect.pairing_notes import STAYS_PAIRED
from hub.connect.shape import pair, pairing_options

NAME = "lineup"   # the plugin's folder and its key in plugins.enabled
MARK = "# lineup connect hermes"
PLUGIN_FILES = ("plugin.yaml", "__init__.py", "adapter.py", "lineproto.py")
CONFIG_NAME = "lineup.json"


def hermes_home(option: Path | None) -> Path:
    """--hermes-home, else $HERMES_HOME, else ~/.hermes: where Hermes keeps config.yaml and plugins/."""
    if option is not None:
        return option.expanduser().resolve()
    env = os.environ.get("HERMES_HOME")
    return Path(env).expanduser().resolve() if env else Path.home() / ".hermes"


def default_credential_path() -> Path:
    import platformdirs

    return Path(platformdirs.user_config_dir("lineup-agents", appauthor=False)) / "hermes.json"


def bridge_command(credential_path: Path) -> list[str]:
    """How the plugin starts the bridge: this installation's own program, from any folder (never `python -m hub`
    from Hermes's working folder, where a `hub/` of the project's would be imported instead)."""
    from hub.cli_invocation import launcher

    return [*launcher(), "hook", "hermes-bridge", "--credential-file", str(credential_path)]


# ---- the plugin's folder ---------------------------------------------------------------------------------------

def plugin_sources() -> dict[str, bytes]:
    """The plugin's files as this installation carries them (a wheel's package data, or the checkout)."""
    from hub.connect import integrations

    folder = integrations.folder(integrations.HERMES_PLUGIN)
    found: dict[str, bytes] = {}
    for name in PLUGIN_FILES:
        try:
            found[name] = (folder / name).read_bytes()
        except (OSError, FileNotFoundError):
            raise click.ClickException(f"This LineUp does not carry the Hermes plugin's {name} (a packaged build "
                                       "without it?): install LineUp with pip or pipx to use it.") from None
    return found


def ours(folder: Path) -> bool:
    """A folder this command made: it has our lineup.json (a folder of the same name that is not ours stays)."""
    try:
        data = json.loads((folder / CONFIG_NAME).read_text())
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("madeBy") == "lineup connect hermes"


def install_plugin(folder: Path, command: list[str], agent_name: str) -> None:
    if folder.exists() and not ours(folder):
        raise click.ClickException(f"{folder} exists and was not made by `lineup connect hermes`; move it away first.")
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    with contextlib.suppress(OSError):
        os.chmod(folder, 0o700)
    for name, data in plugin_sources().items():
        _write(folder / name, data)
    config = {"version": 1, "madeBy": "lineup connect hermes", "agentName": agent_name, "command": command}
    _write(folder / CONFIG_NAME, (json.dumps(config, indent=2) + "\n").encode())
    shutil.rmtree(folder / "__pycache__", ignore_errors=True)  # an older copy's bytecode


def _write(path: Path, data: bytes) -> None:
    """Owner-only (0600), replaced whole: lineup.json names the program the plugin runs."""
    tmp = path.with_name(path.name + ".lineup-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


# ---- plugins.enabled in config.yaml ------------------------------------------------------------------------------

class CannotEdit(ValueError):
    """config.yaml has a shape we do not edit by lines; the message says what to do by hand."""


def _load(text: str) -> dict[str, Any]:
    try:
        yaml: Any = importlib.import_module("yaml")  # PyYAML: with uvicorn[standard], a dependency of the hub
    except ImportError:  # pragma: no cover
        raise CannotEdit("PyYAML is not installed with LineUp") from None
    try:
        data = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise CannotEdit(f"it is not valid YAML ({str(exc).splitlines()[0]})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CannotEdit("it is not a YAML mapping")
    return data


def _enabled_of(data: dict[str, Any]) -> list[Any]:
    plugins = data.get("plugins")
    enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
    return list(enabled) if isinstance(enabled, list) else []


TOP_KEY = re.compile(r"^\S")
ITEM = re.compile(r"^(\s*)-\s+(.*?)\s*$")


def _blank(line: str) -> bool:
    return not line.strip() or line.lstrip().startswith("#")


def _plugins_block(lines: list[str]) -> tuple[int, int] | None:
    """(index of the `plugins:` line, index after its block), or None when there is no top-level `plugins` key."""
    for index, line in enumerate(lines):
        if re.match(r"^plugins\s*:", line):
            end = index + 1
            while end < len(lines) and (_blank(lines[end]) or not TOP_KEY.match(lines[end])):
                end += 1
            return index, end
    return None


def _value(line: str) -> str:
    """What follows `key:` on a line, its comment left out."""
    value = line.split(":", 1)[1]
    return re.sub(r"\s+#.*$", "", value).strip() if not value.strip().startswith("#") else ""


def _enabled_line(lines: list[str], block: tuple[int, int]) -> tuple[int, str] | None:
    """(index, indentation) of `enabled:` among the direct children of the plugins block."""
    start, end = block
    child = None
    for index in range(start + 1, end):
        if _blank(lines[index]):
            continue
        indent = re.match(r"^(\s*)", lines[index])[1]  # type: ignore[index]
        child = indent if child is None else child
        if indent == child and re.match(r"^\s*enabled\s*:", lines[index]):
            return index, indent
    return None


def _items(lines: list[str], at: int, end: int, indent: str) -> list[int]:
    """The lines of the block sequence under the `enabled:` line at `at`."""
    found = []
    for index in range(at + 1, end):
        if _blank(lines[index]):
            continue
        item = ITEM.match(lines[index])
        if item is None or len(item[1]) < len(indent):
            break
        found.append(index)
    return found


def _unquote(text: str) -> str:
    text = re.sub(r"\s+#.*$", "", text).strip()
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


def with_plugin(text: str) -> str:
    """config.yaml's text with `lineup` in plugins.enabled (unchanged when it is there already)."""
    data = _load(text)
    if NAME in _enabled_of(data):
        return text
    plugins = data.get("plugins")
    enabled = plugins.get("enabled") if isinstance(plugins, dict) else None
    if plugins is not None and not isinstance(plugins, dict) or isinstance(plugins, dict) and "enabled" in plugins \
            and enabled is not None and not isinstance(enabled, list):
        raise CannotEdit("its `plugins` or `plugins.enabled` is not what Hermes reads (a mapping with a list)")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    block = _plugins_block(lines)
    if block is None:
        lines += [f"plugins:  {MARK}\n", f"  enabled:  {MARK}\n", f"  - {NAME}  {MARK}\n"]
    else:
        if _value(lines[block[0]]) not in ("", "~", "null"):
            raise CannotEdit("its `plugins:` is written on one line")
        found = _enabled_line(lines, block)
        if found is None:
            child = next((re.match(r"^(\s*)", lines[i])[1] for i in range(block[0] + 1, block[1])  # type: ignore[index]
                          if not _blank(lines[i])), "  ")
            lines[block[0] + 1:block[0] + 1] = [f"{child}enabled:  {MARK}\n", f"{child}- {NAME}  {MARK}\n"]
        else:
            at, indent = found
            value = _value(lines[at])
            items = _items(lines, at, block[1], indent)
            flow = re.match(r"^(\s*enabled\s*:\s*\[)(.*)\](\s*)(#.*)?$", lines[at].rstrip("\n"))
            if flow is not None:
                inner = flow[2].strip()
                comment = flow[4] or MARK
                lines[at] = f"{flow[1]}{inner + ', ' if inner else ''}{NAME}]  {comment}\n"
            elif value in ("", "~", "null") and items:
                item_indent = ITEM.match(lines[items[-1]])[1]  # type: ignore[index]
                lines.insert(items[-1] + 1, f"{item_indent}- {NAME}  {MARK}\n")
            elif value in ("", "~", "null"):  # `enabled:` without a value: the item goes under it
                lines.insert(at + 1, f"{indent}- {NAME}  {MARK}\n")
            else:
                raise CannotEdit("its `plugins.enabled` is written in a form this command does not edit")
    result = "".join(lines)
    if not _same_but_enabled(data, _load(result), [*_enabled_of(data), NAME]):
        raise CannotEdit("adding a line did not give the file that was meant")
    return result


def without_plugin(text: str) -> str:
    """config.yaml's text with `lineup` taken out of plugins.enabled, and the lines we added for it."""
    data = _load(text)
    if NAME not in _enabled_of(data):
        return text
    lines = text.splitlines(keepends=True)
    block = _plugins_block(lines)
    found = _enabled_line(lines, block) if block is not None else None
    if block is None or found is None:
        raise CannotEdit("its `plugins.enabled` is not where this command looks for it")
    at, indent = found
    flow = re.match(r"^(\s*enabled\s*:\s*\[)(.*)\](\s*)(#.*)?$", lines[at].rstrip("\n"))
    if flow is not None:
        kept = [p.strip() for p in flow[2].split(",") if p.strip() and _unquote(p) != NAME]
        comment = "" if (flow[4] or "") == MARK else (f"  {flow[4]}" if flow[4] else "")
        lines[at] = f"{flow[1]}{', '.join(kept)}]{comment}\n"
    else:
        items = _items(lines, at, block[1], indent)
        marked = True
        for index in reversed(items):
            if _unquote(ITEM.match(lines[index])[2]) == NAME:  # type: ignore[index]
                marked = marked and MARK in lines[index]
                del lines[index]
        if not _items(lines, at, block[1] - 1, indent):
            if MARK in lines[at]:
                del lines[at]  # we wrote that line
            elif not marked:  # Hermes rewrote the file (our marks are gone): its list held only ours, now none
                lines[at] = re.sub(r"^(\s*enabled\s*:)[^#\n]*", r"\1 [] ", lines[at]).rstrip() + "\n"
    block = _plugins_block(lines)
    if block is not None and MARK in lines[block[0]] \
            and all(_blank(lines[i]) for i in range(block[0] + 1, block[1])):
        del lines[block[0]]
    result = "".join(lines)
    if not _same_but_enabled(data, _load(result), [e for e in _enabled_of(data) if e != NAME]):
        raise CannotEdit("taking out its line did not give the file that was meant")
    return result


def _same_but_enabled(before: dict[str, Any], after: dict[str, Any], enabled: list[Any]) -> bool:
    """`after` is `before` with plugins.enabled being `enabled` (an empty `plugins` or `enabled` may come or go)."""
    def rest(data: dict[str, Any]) -> tuple[Any, Any]:
        plain = json.loads(json.dumps(data, default=str))
        plugins = plain.pop("plugins", None) or {}
        if isinstance(plugins, dict):
            plugins.pop("enabled", None)
        return plain, plugins
    return rest(before) == rest(after) and _enabled_of(after) == enabled


def approvals_timeout(text: str) -> int:
    try:
        approvals = _load(text).get("approvals")
        return int(approvals.get("timeout", 60)) if isinstance(approvals, dict) else 60
    except (CannotEdit, ValueError, TypeError):
        return 60


def write_text_keeping_mode(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    tmp = path.with_name(path.name + ".lineup-tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


# ---- the commands ------------------------------------------------------------------------------------------------

@click.command("hermes")
@pairing_options("Hermes", "hermes.json", "Take the plugin out of Hermes again.")
@click.option("--hermes-home", "hermes_home_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Hermes's folder (default: $HERMES_HOME, else ~/.hermes).")
def connect_hermes(hub_url: str | None, code: str | None, name: str, fingerprint: str | None,
                   credential_file: Path | None, hermes_home_dir: Path | None, remove: bool) -> None:
    """Connect `hermes gateway`: LineUp becomes one of its messaging platforms (chats, approvals, questions)."""
    home = hermes_home(hermes_home_dir)
    folder, config = home / "plugins" / NAME, home / "config.yaml"
    if remove:
        _remove(folder, config)
        return
    installed = shutil.which("hermes")
    if not home.is_dir():  # refused before pairing: the code stays usable for the next run
        if installed is None:
            raise click.ClickException(f"Hermes is not installed: no `hermes` on PATH and no Hermes folder at {home}. "
                                       f"{_install_hermes()}, then run this again (the pairing code was not used).")
        raise click.ClickException(f"No Hermes folder at {home}: run `hermes setup` first, or give --hermes-home "
                                   "(Hermes's $HERMES_HOME).")
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    try:
        merged = with_plugin(text)
    except CannotEdit as exc:
        raise click.ClickException(f"Cannot add LineUp to {config}: {exc}. Nothing was changed; fix it, or run "
                                   f"`hermes plugins enable {NAME}` after this command.") from None
    credential, credential_path = pair(hub_url, code, credential_file or default_credential_path(), name=name,
                                       runtime="hermes", fingerprint=fingerprint)
    install_plugin(folder, bridge_command(credential_path), name)
    if merged != text:
        write_text_keeping_mode(config, merged)
    click.echo(f"Hermes is connected to {credential.hub_url} as agent {credential.agent_id}.")
    click.echo(f"The LineUp platform plugin is in {folder} and enabled in {config} (plugins.enabled). Restart "
               "`hermes gateway` to start it; `--remove` takes it out again.")
    if installed is None:
        click.echo(f"Warning: no `hermes` program was found on PATH, so `hermes gateway` cannot start from here. If "
                   f"Hermes is installed elsewhere, start its gateway from there; if not: {_install_hermes()}.",
                   err=True)
    wait = approvals_timeout(merged)
    click.echo(f"Hermes waits {wait} s for an answer to an approval card (approvals.timeout in its config.yaml), "
               "then denies by itself" + (": for answering from your phone, 900 is more comfortable." if wait < 300
                                         else "."))


def _install_hermes() -> str:
    """How to install Hermes, as `lineup agents add hermes` says it (hub/presets.py): an environment of its own."""
    from hub.presets import PRESETS

    hermes = PRESETS["hermes"]
    return (f"Install it in an environment of its own: `{hermes.install}` (or `uv tool install '{hermes.package}'`), "
            "then `hermes setup` to choose its model")


def _remove(folder: Path, config: Path) -> None:
    changed = []
    if config.exists():
        text = config.read_text(encoding="utf-8")
        try:
            rest = without_plugin(text)
        except CannotEdit as exc:
            raise click.ClickException(f"Cannot take LineUp out of {config}: {exc}. Nothing was changed; run "
                                       f"`hermes plugins disable {NAME}` instead.") from None
        if rest != text:
            write_text_keeping_mode(config, rest)
            changed.append(f"{NAME} from plugins.enabled in {config}")
    if folder.exists():
        if not ours(folder):
            click.echo(f"{folder} was not made by `lineup connect hermes`: left as it is.")
        else:
            shutil.rmtree(folder)
            changed.append(f"the plugin folder {folder}")
    if changed:
        click.echo("Removed " + " and ".join(changed) + ". Restart `hermes gateway` for it to take effect.")
        click.echo(STAYS_PAIRED)
    else:
        click.echo("LineUp was not in this Hermes; nothing changed.")


@click.command("hermes-bridge")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), required=True)
def hook_hermes_bridge(credential_file: Path) -> None:
    """Run by LineUp's Hermes plugin (JSON lines on stdin and stdout), not by people."""
    from hub.connect.hermes_bridge import main

    sys.exit(main(credential_file))


def register(connect_group: click.Group, hook_group: click.Group) -> None:
    connect_group.add_command(connect_hermes, "hermes")
    hook_group.add_command(hook_hermes_bridge, "hermes-bridge")
