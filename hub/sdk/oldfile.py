"""Whether a file an approval replaces may be read for its diff: inside the working folder, not a secret, small text.

A write or edit card shows the file's current content as the diff's removed lines, and that content then sits in the
hub's log, on the phone and in relay text. So it is read only when its real path (symlinks resolved) lies inside the
folder the agent works in, is not a key or credential file, and is a regular UTF-8 text file of at most 2 MiB;
otherwise the card says the whole file is replaced and how large it is, from `stat` alone
(docs/security.md#what-an-approval-shows).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from dataclasses import dataclass
from pathlib import Path, PurePath

MAX_DIFF_SOURCE_BYTES = 2 * 1024 * 1024  # a bigger file is not read for a diff (the change is still shown whole)

# Names that hold keys or credentials, matched against every part of the path (case ignored).
SECRET_NAMES = ("id_*", "*.pem", "*.key", "*.p12", "*.pfx", ".netrc", ".npmrc", ".pypirc", ".env", ".env.*",
                "credentials*", "*secret*", ".git-credentials")
SECRET_FOLDERS = (".ssh", ".gnupg", ".aws")
SECRET_TAILS = ((".docker", "config.json"), (".kube", "config"))


@dataclass(frozen=True)
class OldFile:
    """What the card may show of the file as it is: its text, or why not (`hidden`) and its size in bytes."""

    exists: bool
    text: str | None = None
    hidden: str | None = None   # "secret", "outside", "too_large", "not_text"
    size: int | None = None


def is_secret(path: str | PurePath, within: str | PurePath | None = None) -> bool:
    """A path whose name or folders say it holds a key or credential (~/.ssh/id_ed25519, .env.local, x.pem...).

    The key folders (.ssh, .gnupg, .aws, .docker/config.json, .kube/config) count anywhere in the path; the names
    count for the file and, under `within` (the working folder), for the folders below it only: a project that
    lives in a folder named `secrets-app` still gets its diffs."""
    full = PurePath(path)
    parts = [part.lower() for part in full.parts]
    if any(part in SECRET_FOLDERS for part in parts[:-1]):
        return True
    if any(tuple(parts[i:i + 2]) == tail for tail in SECRET_TAILS for i in range(len(parts) - 1)):
        return True
    named = parts
    if within is not None and full.is_relative_to(within):
        named = [part.lower() for part in full.relative_to(within).parts]
    return any(fnmatch.fnmatchcase(part, pattern) for part in named for pattern in SECRET_NAMES)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def read_old(path: str, cwd: str | None) -> OldFile:
    """The file at `path` (relative to `cwd`) as the card may show it, by the rule above.

    `~` is the home folder, as in the agent's own tools. Without `cwd` the working folder is the agent process's
    own: a relative path is there, and what lies outside it is not read."""
    cwd = cwd or os.getcwd()
    target = Path(os.path.expanduser(path))
    if not target.is_absolute():
        target = Path(cwd) / target
    try:
        info = os.stat(target)  # follows symlinks: the file the write replaces
    except OSError:
        return OldFile(exists=False)
    real = Path(os.path.realpath(target))
    folder = Path(os.path.realpath(cwd)) if cwd else None
    if is_secret(os.path.abspath(target), os.path.abspath(cwd) if cwd else None) or is_secret(real, folder):
        return OldFile(True, hidden="secret", size=info.st_size)
    if folder is None or not _inside(real, folder):
        return OldFile(True, hidden="outside", size=info.st_size)
    if not stat.S_ISREG(info.st_mode):
        return OldFile(True, hidden="not_text", size=info.st_size)
    if info.st_size > MAX_DIFF_SOURCE_BYTES:
        return OldFile(True, hidden="too_large", size=info.st_size)
    text = _text(real)
    if text is None:
        return OldFile(True, hidden="not_text", size=info.st_size)
    return OldFile(True, text=text, size=info.st_size)


def _text(real: Path) -> str | None:
    """The file's UTF-8 text without NUL, read to at most the limit (it may have grown since `stat`), or None."""
    try:
        with open(real, "rb") as handle:
            data = handle.read(MAX_DIFF_SOURCE_BYTES + 1)
        if len(data) > MAX_DIFF_SOURCE_BYTES or b"\0" in data:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
