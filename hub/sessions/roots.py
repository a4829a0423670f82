"""The folders sessions may use (`[sessions] roots`), set from the app: checked, written into lineup.toml, taken live.

What a root may be (docs/sessions.md "Turning sessions on"): an absolute folder (`~` allowed) that exists, named by
text without NUL or control characters, resolved with its symlinks; never the file system's top (`/`), the home folder
itself or a folder above it (everything the hub's user owns would be a project, `~/.ssh` included), and never the
hub's data folder, a folder inside it or above it (a session there could read the hub's database and credentials).
At most 50, each once. The file keeps every other line and comment as it was (tomlkit edits the one key), is
replaced in one step (a temporary file, then rename) with its own mode, and the session host takes the new roots
at once; a session whose folder is no longer under them ends, saying why.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tomlkit
import tomlkit.exceptions

from hub.protocol.errors import LapError
from hub.sessions.folders import inside, resolved_roots
from hub.settings import CONFIG_FILE, SettingsError, _session_tables

if TYPE_CHECKING:
    from hub.sessions.host import SessionHost

MAX_ROOTS = 50
MAX_ROOT_CHARS = 4096
_WRITING = threading.Lock()  # one writer of lineup.toml at a time in this process


def check_roots(raw: list[str], data_dir: Path, home: Path | None = None) -> list[str]:
    """The roots as they will be written (each as typed, trimmed, without trailing slashes), every one checked on the
    hub; the first that cannot be one is refused, naming it and why."""
    home = (home or Path.home()).resolve()
    data = data_dir.expanduser().resolve()
    if len(raw) > MAX_ROOTS:
        raise LapError("invalid_payload", f"At most {MAX_ROOTS} folders can be used for sessions.")
    kept: list[str] = []
    seen: set[Path] = set()
    for given in raw:
        text = given.strip()
        text = text.rstrip("/") or text
        if not text or len(text) > MAX_ROOT_CHARS or any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise LapError("invalid_payload", f"{given!r} is not a folder name.",
                           hint="Type the folder's full path on the hub's machine, like /home/me/code or ~/code.")
        path = Path(text).expanduser()
        if not path.is_absolute():
            raise LapError("invalid_payload", f"{text} is not a full path.",
                           hint="Start it with / or ~ (the folder on the hub's machine, like ~/code).")
        if ".." in path.parts:
            raise LapError("invalid_payload", f"{text} has '..' in it.", hint="Type the folder's path without '..'.")
        try:
            real = path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise LapError("not_found", f"There is no folder {text} on the hub's machine.",
                           hint="Make it first, or check the path (it is looked up on the hub's machine).") from None
        if not real.is_dir():
            raise LapError("invalid_payload", f"{text} is a file, not a folder.")
        if real == Path(real.anchor) or real == home or home.is_relative_to(real):
            raise LapError("forbidden", f"{text} holds your whole home folder: every file of yours, keys included, "
                                        "could be a session's.",
                           hint="Choose the folder your projects are in, like ~/code.")
        if real == data or real.is_relative_to(data) or data.is_relative_to(real):
            raise LapError("forbidden", f"{text} holds the hub's own data ({data}): a session there could read its "
                                        "database and credentials.",
                           hint="Choose the folder your projects are in, outside the hub's data folder.")
        if real in seen:
            continue
        seen.add(real)
        kept.append(text)
    return kept


def write_roots(data_dir: Path, roots: list[str]) -> tuple[Path, ...]:
    """Write `[sessions] roots` into the data folder's lineup.toml, every other line kept; the roots as settings read
    them. A file that is not valid TOML, or whose `[sessions]` the hub would refuse, is left alone and refused."""
    path = data_dir / CONFIG_FILE
    with _WRITING:
        try:
            text = path.read_text() if path.exists() else ""
            document = tomlkit.parse(text)
        except (OSError, UnicodeDecodeError, tomlkit.exceptions.TOMLKitError) as exc:
            raise LapError("conflict", f"{path} could not be read as TOML, so it was left as it is: {exc}",
                           hint="Fix the file by hand (or set [sessions] roots there), then try again.") from None
        table: Any = document.get("sessions")
        if table is None:
            table = tomlkit.table()
            document.add("sessions", table)
        elif not isinstance(table, dict):
            raise LapError("conflict", f"`sessions` in {path} is not a table, so it was left as it is.",
                           hint="Make it a [sessions] table, then try again.")
        array = tomlkit.array()
        array.extend(roots)
        table["roots"] = array
        new_text = tomlkit.dumps(document)
        try:
            parsed = _session_tables(tomlkit.parse(new_text).unwrap().get("sessions", {}), str(path))
        except SettingsError as exc:
            raise LapError("conflict", f"{exc}: the file was left as it is.",
                           hint="Fix [sessions] in lineup.toml by hand, then try again.") from None
        _replace(path, new_text)
    return parsed.roots


def _replace(path: Path, text: str) -> None:
    """Write `text` to a temporary file beside `path` (its mode, else the owner's alone), then rename it over."""
    mode = path.stat().st_mode & 0o777 if path.exists() else 0o600
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


async def apply(host: SessionHost, roots: tuple[Path, ...]) -> int:
    """Hand the host the new roots; a session not ended whose folder is no longer under them ends, saying why (nothing
    runs outside the roots). How many ended."""
    host.replace_roots(roots)
    allowed = resolved_roots(roots)
    ended = 0
    for live in list(host.live.values()):
        folder = Path(live.record.folder)
        with contextlib.suppress(OSError):
            folder = folder.resolve()
        if allowed and inside(folder, allowed):
            continue
        with contextlib.suppress(LapError):
            await host.end(live.record, "sessions_off",
                           f"Its folder {live.record.folder} is no longer one of the folders sessions may use (changed "
                           "in Settings), so this session ended; its agent process was stopped.")
            ended += 1
    return ended
