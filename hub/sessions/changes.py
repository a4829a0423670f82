"""Files changed in a session's folder, with +/− counts, and one file's diff (docs/sessions.md "Changes").

Both compare two trees: the baseline (`start`: the snapshot made when the session started, uncommitted and untracked
work included, so only what happened since counts; `uncommitted`: HEAD; `base`: where the branch left its base) and
the folder as it is now (tracked files as on disk and untracked files that are not ignored, hashed into a tree with
a copy of the index: the person's index is never touched). Renames are found (`-M`); external diff tools and
textconv filters are never run; lists and diffs are bounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from hub.sessions import git

MAX_FILES = 1000                 # files listed; past it `truncated`
MAX_DIFF_BYTES = 512 * 1024      # one file's diff text; past it cut at a line, `truncated`

Against = Literal["start", "uncommitted", "base"]
AGAINST = ("start", "uncommitted", "base")
GITLINK = "160000"               # the mode of a nested repository's entry in a tree: a commit id, not files
STATUS = {"A": "added", "M": "modified", "D": "deleted", "R": "renamed", "C": "added", "T": "modified"}


@dataclass(frozen=True)
class Changed:
    path: str
    status: str
    added: int
    removed: int
    binary: bool
    old_path: str | None = None
    gitlink: str | None = None   # a nested repository (mode 160000) on either side: the commit it records


    def as_dict(self) -> dict[str, object]:
        entry: dict[str, object] = {"path": self.path, "status": self.status, "added": self.added,
                                    "removed": self.removed, "binary": self.binary}
        if self.old_path is not None:
            entry["oldPath"] = self.old_path
        return entry


def _split_z(data: bytes) -> list[str]:
    return [part.decode("utf-8", "surrogateescape") for part in data.split(b"\0")]


async def changed_files(folder: Path, baseline: str, current: str) -> tuple[list[Changed], bool]:
    """The files that differ between two trees (or commits), with their line counts; at most MAX_FILES."""
    statuses = await git.run(folder, "diff-tree", "-r", "-z", "-M", "--no-ext-diff", "--no-textconv", "--raw",
                             "--no-abbrev", baseline, current)
    parts = _split_z(statuses.stdout)
    entries: list[tuple[str, str, str | None, str | None]] = []  # status letter, path, old path, gitlink's commit
    index = 0
    while index + 1 < len(parts) and parts[index].startswith(":"):
        # ":<old mode> <new mode> <old id> <new id> <status letter><score>", then the path (two for R and C)
        fields = parts[index].split()
        letter = fields[4][0] if len(fields) > 4 and fields[4] else "M"
        gitlink = fields[3] if fields[1] == GITLINK else fields[2] if fields[0] == ":" + GITLINK else None
        if letter in ("R", "C"):
            if index + 2 >= len(parts):
                break
            old, new = parts[index + 1], parts[index + 2]
            entries.append((letter, new, old if letter == "R" else None, gitlink))
            index += 3
        else:
            entries.append((letter, parts[index + 1], None, gitlink))
            index += 2
    truncated = len(entries) > MAX_FILES or statuses.truncated
    entries = entries[:MAX_FILES]
    counts: dict[str, tuple[int, int, bool]] = {}
    numstat = await git.run(folder, "diff-tree", "-r", "-z", "-M", "--no-ext-diff", "--no-textconv", "--numstat",
                            baseline, current)
    parts = _split_z(numstat.stdout)
    index = 0
    while index < len(parts) and parts[index]:
        added, removed, path = (parts[index].split("\t", 2) + ["", ""])[:3]
        index += 1
        if not path:  # a rename: "added\tremoved\t" then the old and the new path
            path = parts[index + 1] if index + 1 < len(parts) else ""
            index += 2
        binary = added == "-" or removed == "-"
        counts[path] = (0 if binary else int(added or 0), 0 if binary else int(removed or 0), binary)
    files = [Changed(path, STATUS.get(letter, "modified"), *counts.get(path, (0, 0, False)), old_path=old,
                     gitlink=gitlink) for letter, path, old, gitlink in entries]
    return files, truncated


async def baseline_of(folder: Path, against: str, start_snapshot: str | None, base_commit: str | None,
                      base_ref: str | None) -> str:
    """The tree or commit `against` names for this session's folder."""
    if against == "start":
        return start_snapshot or base_commit or await empty_tree(folder)
    if against == "uncommitted":
        return await git.head(folder) or await empty_tree(folder)
    head = await git.head(folder)
    if head is None:
        return await empty_tree(folder)
    base = await git.resolve_commit(folder, base_ref) if base_ref else None
    if base is None:
        return base_commit or head
    return await git.merge_base(folder, head, base) or base


async def empty_tree(folder: Path) -> str:
    """The empty tree's id in this repository's hash (the baseline of a repository without commits)."""
    return await git.empty_tree(folder)


async def file_diff(folder: Path, baseline: str, current: str, entry: Changed) -> tuple[str, bool]:
    """The unified diff of one changed file (its old path too for a rename), cut at MAX_DIFF_BYTES."""
    paths = [entry.path] + ([entry.old_path] if entry.old_path else [])
    out = await git.run(folder, "diff-tree", "-p", "-M", "--no-ext-diff", "--no-textconv", "--no-color",
                        "--full-index", baseline, current, "--", *paths, max_output=MAX_DIFF_BYTES)
    data = out.stdout
    truncated = out.truncated
    if truncated:
        data = data[: data.rfind(b"\n") + 1]
    return data.decode("utf-8", "replace"), truncated
