"""The folders the phone may name: only under `[sessions] roots`, checked on the hub, never taken as typed.

A path from the app is refused unless it is absolute text without `..`, NUL or control characters, and, resolved
with its symlinks, an existing folder inside one of the roots (each resolved too). The projects the app offers are
found by walking the roots, bounded in depth and count (docs/sessions.md "Projects").
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hub.protocol.errors import LapError

MAX_PATH_CHARS = 4096
WALK_DEPTH = 3              # a root's folders, theirs, and theirs: ~/code/org/repo is found, deeper is not
WALK_FOLDERS = 5000         # folders looked at per listing, all roots together
MAX_PROJECTS = 500          # projects kept per listing before the query and the order cut them
SKIPPED = {"node_modules", "__pycache__", "venv", ".venv", "target", "dist", "build", "vendor"}


def resolved_roots(roots: tuple[Path, ...]) -> list[Path]:
    """The roots as real folders (symlinks resolved); a root that does not exist is left out."""
    found = []
    for root in roots:
        try:
            real = root.expanduser().resolve(strict=True)
        except (OSError, RuntimeError):
            continue
        if real.is_dir() and real not in found:
            found.append(real)
    return found


def check_text(raw: object, what: str) -> str:
    if not isinstance(raw, str) or not raw:
        raise LapError("invalid_payload", f"`{what}` must be a folder path.")
    if len(raw) > MAX_PATH_CHARS or any(ord(c) < 0x20 or ord(c) == 0x7F for c in raw):
        raise LapError("invalid_payload", f"`{what}` is not a usable path (too long, or control characters).")
    if not raw.startswith("/"):
        raise LapError("invalid_payload", f"`{what}` must be an absolute path, as the project list gives it.")
    if ".." in Path(raw).parts:
        raise LapError("forbidden", f"`{what}` may not contain `..`.",
                       hint="Pick the folder from the project list; paths are never typed.")
    return raw


def inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def check_folder(raw: object, roots: tuple[Path, ...], what: str = "project") -> Path:
    """The folder a request names, resolved and checked: an existing folder inside a root. A path outside the
    roots, one whose symlinks lead out of them, and one that is not a folder are each refused, saying which."""
    text = check_text(raw, what)
    allowed = resolved_roots(roots)
    if not allowed:
        raise LapError("forbidden", "None of the folders in [sessions] roots exists on the hub's machine.",
                       hint="Choose folders that exist in Settings → Sessions (or [sessions] roots in lineup.toml).")
    try:
        real = Path(text).resolve(strict=True)
    except FileNotFoundError:
        raise LapError("not_found", f"No folder {text} on the hub's machine.",
                       hint="It may have been moved or deleted: pick it again from the project list.") from None
    except (OSError, RuntimeError) as exc:
        raise LapError("invalid_payload", f"{text} cannot be used: {exc}") from None
    if not inside(real, allowed):
        escaped = inside(Path(os.path.normpath(text)), allowed)
        raise LapError("forbidden", f"{text} is outside the folders sessions may use"
                       + (" (a symlink in it leads out of them)." if escaped else "."),
                       hint="Only folders under [sessions] roots in the hub's lineup.toml can be used.")
    if not real.is_dir():
        raise LapError("invalid_payload", f"{text} is not a folder.")
    return real


@dataclass(frozen=True)
class Found:
    path: Path
    git: bool           # a repository's top level (a `.git` folder, or a worktree's `.git` file), its own
    refused: str = ""   # why a `.git` there is not taken as this folder's repository (then `git` is False)


def is_git_top(folder: Path) -> bool:
    return (folder / ".git").exists()


GITFILE_BYTES = 4096


@dataclass(frozen=True)
class OwnGit:
    """Where a folder's `.git` leads, read without running git: its git dir and common dir (resolved)."""

    top: Path
    git_dir: Path
    common_dir: Path


def _read(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(GITFILE_BYTES).decode("utf-8", "surrogateescape")
    except (OSError, ValueError):
        return None


def _resolve(base: Path, named: str) -> Path | None:
    try:
        return (base / named).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):
        return None


def own_git(top: Path, roots: list[Path]) -> tuple[OwnGit | None, str]:
    """Whether the `.git` in `top` makes `top` a repository the hub may run git in, judged before any git runs:
    its git dir and its common dir (where the objects and refs are) lie inside `top` (a `.git` folder, or a `.git`
    file naming a folder inside it), or it is a linked worktree: a `.git` file naming `<common dir>/worktrees/<name>`
    of a repository inside the roots, whose own record (`gitdir`) names this folder's `.git` back. (None, "") when
    there is no `.git`; (None, why) when there is one that leads elsewhere: an agent (or a clone) can write a `.git`
    file naming any repository on the machine (docs/sessions.md "Git, as the hub runs it")."""
    dot = top / ".git"
    if not os.path.lexists(dot):
        return None, ""
    if dot.is_dir():
        git_dir = _resolve(top, ".git")
    else:
        text = _read(dot)
        if text is None or not text.startswith("gitdir: "):
            return None, "its .git is neither a folder nor a file naming a git folder"
        git_dir = _resolve(top, text[len("gitdir: "):].rstrip("\r\n"))
    if git_dir is None or not git_dir.is_dir():
        return None, "its .git names a git folder that does not exist"
    named = _read(git_dir / "commondir")
    common_dir = git_dir if named is None else _resolve(git_dir, named.rstrip("\r\n"))
    if common_dir is None:
        return None, "its .git names a repository that does not exist"
    if git_dir.is_relative_to(top) and common_dir.is_relative_to(top):
        return OwnGit(top, git_dir, common_dir), ""
    leads = common_dir if not common_dir.is_relative_to(top) else git_dir
    where = "" if inside(leads, roots) else " and the folders sessions may use"
    refused = f"its .git leads to {leads}, outside this folder{where}"
    if git_dir == common_dir or git_dir.parent != common_dir / "worktrees" or not inside(common_dir, roots):
        return None, refused
    back = _read(git_dir / "gitdir")
    if back is None or _resolve(git_dir, back.rstrip("\r\n")) != _resolve(top, ".git"):
        return None, f"its .git names the worktree {git_dir.name} of {common_dir}, which is another folder's"
    return OwnGit(top, git_dir, common_dir), ""


def repository_top(folder: Path, roots: list[Path]) -> Path | None:
    """The nearest folder from `folder` up, inside the roots, that holds a `.git` (the top git would find), or None:
    a repository above the roots (a home folder kept in git) is never the project's."""
    for candidate in (folder, *folder.parents):
        if not inside(candidate, roots):
            return None
        if os.path.lexists(candidate / ".git"):
            return candidate
    return None


def walk_projects(roots: tuple[Path, ...], query: str = "") -> tuple[list[Found], bool]:
    """The projects under the roots: each root's folders (and a root that is itself a repository), and the
    repositories below them up to WALK_DEPTH; never inside a repository, never hidden folders, `node_modules` and
    the like, nor `<repo>.worktrees` folders (their worktrees belong to the repository). Bounded by WALK_FOLDERS
    looked at and MAX_PROJECTS kept; the second value says whether a bound was reached."""
    allowed = resolved_roots(roots)
    needle = query.strip().lower()
    found: list[Found] = []
    seen: set[Path] = set()
    looked = 0
    cut = False
    for root in allowed:
        if is_git_top(root) and root not in seen and own_git(root, allowed)[0] is not None:
            seen.add(root)
            if not needle or needle in str(root).lower():
                found.append(Found(root, True))
            continue
        stack: list[tuple[Path, int]] = [(root, 0)]
        while stack:
            folder, depth = stack.pop()
            try:
                entries = sorted(os.scandir(folder), key=lambda e: e.name, reverse=True)
            except OSError:
                continue
            for entry in entries:
                if looked >= WALK_FOLDERS or len(found) >= MAX_PROJECTS:
                    cut = True
                    break
                name = entry.name
                if name.startswith(".") or name in SKIPPED or name.endswith(".worktrees"):
                    continue
                try:
                    if not entry.is_dir():
                        continue
                    real = Path(entry.path).resolve(strict=True)
                except (OSError, RuntimeError):
                    continue
                looked += 1
                if real in seen or not inside(real, allowed):
                    continue  # a symlink out of the roots, or a folder seen through another link
                seen.add(real)
                git = is_git_top(real)
                refused = own_git(real, allowed)[1] if git else ""
                if (depth == 0 or git) and (not needle or needle in str(real).lower()):
                    found.append(Found(real, git and not refused, refused))
                if not git and depth + 1 < WALK_DEPTH:
                    stack.append((real, depth + 1))
    return found, cut


def worktree_location(repo: Path, branch: str) -> Path:
    """Where a new worktree of `repo` goes: `<repo's parent>/<repo>.worktrees/<branch, / as ->`."""
    return repo.parent / f"{repo.name}.worktrees" / branch.replace("/", "-")
