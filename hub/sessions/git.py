"""Git as the hub runs it for sessions: a fixed argv, no prompts, no pager, no program of the repository's, bounded.

Every call runs `git` found on PATH with the argument list given (never a shell), in the folder given, with
`GIT_TERMINAL_PROMPT=0` (a credential prompt would hang), `GIT_OPTIONAL_LOCKS=0` (reads never take the index lock
the agent's own git needs), `LC_ALL=C` (messages the hub can match), no pager and no editor. Nothing a repository's
configuration names as a program runs, since an agent working in the folder can write that configuration
(`.git/config`, `.gitattributes`, `.git/hooks/`): hooks are off (`core.hooksPath=/dev/null`), `core.fsmonitor` is
off, every filter driver the configuration names (read just before each call that may touch the working files) has
its `clean`, `smudge` and `process` blanked, submodules are not entered, and diffs run with `--no-ext-diff
--no-textconv`. A session's calls are pinned to the repository it began in (`pinned`): git finds no other one
through a `.git` file written later. Each call has a timeout (the process group is killed when it passes) and a cap
on what it may print.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import shutil
import signal
import tempfile
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hub.protocol.errors import LapError

READ_TIMEOUT_S = 15.0          # status, diffs, lists
WRITE_TIMEOUT_S = 120.0        # worktree add, snapshot (hashes untracked files), commit
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
STDERR_BYTES = 8 * 1024
CONFIG_BYTES = 1024 * 1024     # what is read of the filter drivers' configuration
GIT_AT_ONCE = 8                # git processes of the hub at once; more wait their turn
_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()
SNAPSHOT_IDENTITY = {"GIT_AUTHOR_NAME": "LineUp", "GIT_AUTHOR_EMAIL": "lineup@localhost",
                     "GIT_COMMITTER_NAME": "LineUp", "GIT_COMMITTER_EMAIL": "lineup@localhost"}
# Set for every call, after the repository's own configuration (so they win): nothing the repository names runs.
OVERRIDES = (("core.fsmonitor", "false"), ("core.hooksPath", os.devnull), ("core.quotepath", "off"),
             ("submodule.recurse", "false"), ("protocol.allow", "never"), ("commit.gpgSign", "false"),
             ("maintenance.auto", "false"), ("gc.auto", "0"))
# Subcommands that never read the working files' content nor write the index: no filter can run, so the filter
# drivers need not be read first (`cat-file` only without --filters / --textconv, which the hub never passes).
# Writing an index (`add`, `write-tree`, `read-tree`, ...) re-reads "racily clean" files, through their clean filter.
CONTENT_FREE = frozenset({"rev-parse", "symbolic-ref", "for-each-ref", "show-ref", "check-ref-format",
                          "commit-tree", "update-ref", "merge-base", "diff-tree", "cat-file", "config", "check-attr"})


class GitError(LapError):
    """A git call that failed: what it was, and git's own words (the end of its stderr). Answered `conflict` where
    nothing else catches it: the folder's state, not the request, is what git refused."""

    def __init__(self, message: str, stderr: str = "", returncode: int | None = None) -> None:
        super().__init__("conflict", f"{message}: {stderr[-2000:]}" if stderr else message,
                         hint="git refused or took too long in that folder; what it said is in the message.")
        self.stderr = stderr
        self.returncode = returncode


@dataclass(frozen=True)
class Output:
    stdout: bytes
    returncode: int
    truncated: bool            # stdout reached its cap and the process was stopped


@dataclass(frozen=True)
class Pin:
    """A working tree and the repository it belongs to, as the hub verified them: git calls in `folder` use exactly
    these (GIT_DIR, GIT_COMMON_DIR, GIT_WORK_TREE) instead of finding a repository through the folder's `.git`."""

    folder: Path
    git_dir: Path
    common_dir: Path


_PIN: contextvars.ContextVar[Pin | None] = contextvars.ContextVar("lineup_git_pin", default=None)


@contextlib.contextmanager
def pinned(pin: Pin | None) -> Iterator[None]:
    """Within the block (and the tasks it starts), git calls in `pin.folder` go to `pin`'s repository only."""
    token = _PIN.set(pin)
    try:
        yield
    finally:
        _PIN.reset(token)


def git_program() -> str:
    found = shutil.which("git")
    if found is None:
        raise GitError("git is not installed on the hub's machine")
    return found


def base_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # the hub's own GIT_DIR etc. never leak
    env.update({"GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C", "GIT_PAGER": "cat",
                "PAGER": "cat", "GIT_EDITOR": "true", "GIT_ASKPASS": "", "SSH_ASKPASS": ""})
    env.update(extra or {})
    return env


def config_args(pairs: list[tuple[str, str]]) -> list[str]:
    """Configuration given on git's command line (`-c key=value`, read after the repository's own, so it wins).
    `-c` splits at the first `=`: a driver name holding one cannot be blanked, and git is then not run at all."""
    args: list[str] = []
    for key, value in pairs:
        if "=" in key or "\n" in key:
            raise GitError(f"the repository's git configuration names a filter driver the hub cannot switch off "
                           f"({key!r}), so the hub does not run git there")
        args += ["-c", f"{key}={value}"]
    return args


def blanked(drivers: list[str]) -> list[tuple[str, str]]:
    """Every named filter driver made to run nothing (and not required, so git does not fail for its absence)."""
    pairs = []
    for name in drivers:
        pairs += [(f"filter.{name}.clean", ""), (f"filter.{name}.smudge", ""), (f"filter.{name}.process", ""),
                  (f"filter.{name}.required", "false")]
    return pairs


def _slots() -> asyncio.Semaphore:
    """At most GIT_AT_ONCE git processes of the hub at a time (per event loop: tests run several hubs)."""
    loop = asyncio.get_running_loop()
    slots = _SLOTS.get(loop)
    if slots is None:
        slots = _SLOTS[loop] = asyncio.Semaphore(GIT_AT_ONCE)
    return slots


def _pin_env(cwd: Path) -> dict[str, str]:
    pin = _PIN.get()
    if pin is None:
        return {}
    try:
        here = cwd.resolve()
    except OSError:
        return {}
    if here != pin.folder:
        return {}
    return {"GIT_DIR": str(pin.git_dir), "GIT_COMMON_DIR": str(pin.common_dir), "GIT_WORK_TREE": str(pin.folder)}


def _content_free(args: tuple[str, ...]) -> bool:
    return bool(args) and (args[0] in CONTENT_FREE or args[:2] == ("worktree", "list"))


async def run(cwd: Path, *args: str, timeout_s: float = READ_TIMEOUT_S, env: dict[str, str] | None = None,
              max_output: int = MAX_OUTPUT_BYTES, check: bool = True, stdin: bytes | None = None) -> Output:
    """Run `git <args>` in `cwd` with the overrides above. With `check`, a non-zero exit raises GitError with git's
    message. Waits for one of GIT_AT_ONCE slots first (for at most the same timeout)."""
    try:
        async with asyncio.timeout(timeout_s):
            await _slots().acquire()
    except TimeoutError:
        raise GitError(f"git {args[0] if args else ''} waited {timeout_s:g} s for other git commands") from None
    try:
        place = _pin_env(cwd)
        pairs = list(OVERRIDES)
        if not _content_free(args):  # read just before, so a driver added a moment ago is blanked too
            pairs += blanked(await _filter_drivers(cwd, place, timeout_s))
        out, code, truncated, err = await _exec(cwd, (*config_args(pairs), *args), {**(env or {}), **place},
                                                timeout_s, max_output, stdin)
    finally:
        _slots().release()
    if check and code != 0 and not truncated:
        raise GitError(f"git {args[0] if args else ''} failed", err.decode("utf-8", "replace").strip(), code)
    return Output(out, code, truncated)


async def _filter_drivers(cwd: Path, place: dict[str, str], timeout_s: float) -> list[str]:
    """The filter drivers git's configuration for `cwd` names (every scope, includes followed)."""
    out, code, _, _ = await _exec(cwd, (*config_args(list(OVERRIDES)), "config", "--includes", "--null",
                                        "--get-regexp", r"^filter\."), place, timeout_s, CONFIG_BYTES, None)
    return drivers_in(out) if code == 0 else []


def drivers_in(listing: bytes, variables: tuple[str, ...] | None = None) -> list[str]:
    """The driver names in `git config --null --get-regexp '^filter\\.'` output (those setting one of `variables`,
    with a non-empty value, when given)."""
    names: list[str] = []
    for entry in listing.split(b"\0"):
        key, _, value = entry.decode("utf-8", "surrogateescape").partition("\n")
        name, dot, variable = key.removeprefix("filter.").rpartition(".")
        if not key.startswith("filter.") or not dot:
            continue
        if variables is not None and (variable.lower() not in variables or not value.strip()):
            continue
        if name not in names:
            names.append(name)
    return names


async def _exec(cwd: Path, args: tuple[str, ...], env: dict[str, str], timeout_s: float, max_output: int,
                stdin: bytes | None) -> tuple[bytes, int, bool, bytes]:
    try:
        process = await asyncio.create_subprocess_exec(
            git_program(), *args, cwd=str(cwd), env=base_env(env),
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise GitError(f"could not run git in {cwd}", exc.strerror or str(exc)) from None
    assert process.stdout is not None and process.stderr is not None
    chunks: list[bytes] = []
    size = 0
    truncated = False
    err = b""

    async def read_err() -> None:
        nonlocal err
        assert process.stderr is not None
        while chunk := await process.stderr.read(65536):
            err = (err + chunk)[-STDERR_BYTES:]

    async def write_in() -> None:
        assert process.stdin is not None and stdin is not None
        with contextlib.suppress(ConnectionError):
            process.stdin.write(stdin)
            await process.stdin.drain()
            process.stdin.close()

    helpers = [asyncio.ensure_future(read_err())]
    if stdin is not None:
        helpers.append(asyncio.ensure_future(write_in()))
    try:
        async with asyncio.timeout(timeout_s):
            while chunk := await process.stdout.read(65536):
                chunks.append(chunk)
                size += len(chunk)
                if size > max_output:
                    truncated = True
                    _kill(process)
                    break
            await process.wait()
            await asyncio.gather(*helpers)
    except TimeoutError:
        _kill(process)
        await process.wait()
        name = next((a for a, before in zip(args, ("", *args), strict=False) if before != "-c" and a != "-c"), "")
        raise GitError(f"git {name} took longer than {timeout_s:g} s and was stopped") from None
    finally:
        for helper in helpers:
            if not helper.done():
                helper.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
    stdout = b"".join(chunks)[:max_output] if truncated else b"".join(chunks)
    return stdout, process.returncode if process.returncode is not None else -1, truncated, err


def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def text(cwd: Path, *args: str, timeout_s: float = READ_TIMEOUT_S) -> str:
    return (await run(cwd, *args, timeout_s=timeout_s)).stdout.decode("utf-8", "replace").strip()


# ---- what a folder is -------------------------------------------------------------------------------------------

async def toplevel(folder: Path) -> Path | None:
    """The working tree `folder` belongs to (a repository's top level), or None when it is not in one."""
    out = await run(folder, "rev-parse", "--show-toplevel", check=False)
    if out.returncode != 0:
        return None
    return Path(out.stdout.decode("utf-8", "replace").strip())


async def identity(folder: Path) -> Pin | None:
    """The working tree `folder` belongs to and its repository (git dir, common dir), all absolute and resolved, as
    git finds them from `folder`; None when it is in no working tree."""
    out = await run(folder, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir", check=False)
    lines = out.stdout.decode("utf-8", "surrogateescape").splitlines()
    if out.returncode != 0 or len(lines) != 3:
        return None
    top, git_dir, common = (folder / line for line in lines)  # the common dir may be relative to `folder`
    return Pin(top.resolve(), git_dir.resolve(), common.resolve())


async def head(folder: Path) -> str | None:
    """HEAD's commit, or None in a repository without commits."""
    out = await run(folder, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    return out.stdout.decode().strip() or None if out.returncode == 0 else None


async def current_branch(folder: Path) -> str | None:
    """The branch checked out, or None when HEAD is detached."""
    out = await run(folder, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return out.stdout.decode("utf-8", "replace").strip() or None if out.returncode == 0 else None


async def dirty(folder: Path) -> bool:
    """Uncommitted changes: staged, unstaged, or untracked files that are not ignored (submodules not entered: their
    own configuration would name other programs)."""
    out = await run(folder, "status", "--porcelain", "--untracked-files=normal", "--ignore-submodules=all",
                    max_output=4096)
    return bool(out.stdout.strip())


async def branches(folder: Path, limit: int) -> list[str]:
    """Local branches, the most recently committed first, at most `limit`."""
    out = await run(folder, "for-each-ref", "--sort=-committerdate", f"--count={limit}",
                    "--format=%(refname:short)", "refs/heads")
    return [line for line in out.stdout.decode("utf-8", "replace").splitlines() if line]


async def branch_exists(folder: Path, name: str) -> bool:
    out = await run(folder, "show-ref", "--verify", "--quiet", f"refs/heads/{name}", check=False)
    return out.returncode == 0


async def valid_branch_name(folder: Path, name: str) -> bool:
    """git's own rule for a branch name (`git check-ref-format --branch`), no leading `-` (an option), and not `@`
    (git takes it for HEAD: `worktree add -b @` fails after making the branch)."""
    if not name or name.startswith("-") or name == "@" or len(name) > 200:
        return False
    out = await run(folder, "check-ref-format", "--branch", name, check=False)
    return out.returncode == 0 and out.stdout.decode("utf-8", "replace").strip() == name


async def resolve_commit(folder: Path, ref: str) -> str | None:
    """The commit a branch (or HEAD) names, or None."""
    if ref.startswith("-"):
        return None
    out = await run(folder, "rev-parse", "--verify", "-q", "--end-of-options", f"{ref}^{{commit}}", check=False)
    return out.stdout.decode().strip() or None if out.returncode == 0 else None


@dataclass(frozen=True)
class Worktree:
    path: str
    head: str | None
    branch: str | None
    main: bool
    prunable: bool


async def worktrees(repo: Path) -> list[Worktree]:
    """`git worktree list --porcelain`: the main working tree first, then the linked ones."""
    out = await run(repo, "worktree", "list", "--porcelain", "-z", check=False)
    if out.returncode == 0:
        records = out.stdout.decode("utf-8", "replace").split("\0\0")
        blocks = [[field for field in record.split("\0") if field] for record in records]
    else:  # git before 2.36 has no -z
        plain = await run(repo, "worktree", "list", "--porcelain")
        blocks = [block.splitlines() for block in plain.stdout.decode("utf-8", "replace").split("\n\n")]
    found: list[Worktree] = []
    for block in blocks:
        fields: dict[str, str] = {}
        for line in block:
            key, _, value = line.partition(" ")
            fields[key] = value
        if "worktree" not in fields or "bare" in fields:
            continue
        branch = fields.get("branch")
        found.append(Worktree(fields["worktree"], fields.get("HEAD") or None,
                              branch.removeprefix("refs/heads/") if branch else None, not found,
                              "prunable" in fields))
    return found


async def add_worktree(repo: Path, path: Path, branch: str, start: str) -> None:
    """`git worktree add --no-checkout -b <branch> <path> <start>`, then its files checked out by `git reset --hard`
    under the same overrides (no smudge filter, no post-checkout hook). When either fails, what it left is removed:
    the branch (it did not exist before), the worktree's entry in the repository, the folder."""
    common = (repo / await text(repo, "rev-parse", "--git-common-dir")).resolve()
    entries = common / "worktrees"
    before = set(os.listdir(entries)) if entries.is_dir() else set()
    try:
        await run(repo, "worktree", "add", "--no-checkout", "-b", branch, "--", str(path), start,
                  timeout_s=WRITE_TIMEOUT_S)
        await run(path, "reset", "--hard", "-q", timeout_s=WRITE_TIMEOUT_S)
    except GitError:
        await _undo_worktree(repo, path, branch, entries, before)
        raise


async def _undo_worktree(repo: Path, path: Path, branch: str, entries: Path, before: set[str]) -> None:
    with contextlib.suppress(GitError):
        if await branch_exists(repo, branch):
            await run(repo, "update-ref", "-d", f"refs/heads/{branch}")
    for name in (set(os.listdir(entries)) if entries.is_dir() else set()) - before:
        await asyncio.to_thread(shutil.rmtree, entries / name, True)
    if path.is_dir() and not path.is_symlink():
        await asyncio.to_thread(shutil.rmtree, path, True)


# ---- trees of the working state ---------------------------------------------------------------------------------

async def working_tree(folder: Path, scratch: Path) -> str:
    """A tree object of everything in the folder now: tracked files as they are on disk, and untracked files that
    are not ignored, hashed as they are (no clean filter runs). Made with a copy of the index (its stat cache makes
    unchanged files free), so the person's own index is never touched."""
    index = Path(await text(folder, "rev-parse", "--git-path", "index"))
    if not index.is_absolute():
        index = folder / index
    scratch.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix="index-", dir=scratch)
    os.close(fd)
    temp = Path(name)
    try:
        if index.exists():
            await asyncio.to_thread(shutil.copyfile, index, temp)
        else:
            temp.unlink()
        env = {"GIT_INDEX_FILE": str(temp)}
        await run(folder, "add", "-A", "--", ".", timeout_s=WRITE_TIMEOUT_S, env=env)
        tree = (await run(folder, "write-tree", env=env)).stdout.decode().strip()
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
    return tree


async def snapshot(folder: Path, scratch: Path, ref: str, parent: str | None, message: str) -> str:
    """A commit of the folder's whole working state (`working_tree`), kept from garbage collection by `ref`."""
    tree = await working_tree(folder, scratch)
    args = ["commit-tree", "--no-gpg-sign", tree, "-m", message] + (["-p", parent] if parent else [])
    commit = (await run(folder, *args, env=SNAPSHOT_IDENTITY)).stdout.decode().strip()
    await run(folder, "update-ref", ref, commit)
    return commit


async def merge_base(folder: Path, a: str, b: str) -> str | None:
    out = await run(folder, "merge-base", a, b, check=False)
    return out.stdout.decode().strip() or None if out.returncode == 0 else None


async def empty_tree(folder: Path) -> str:
    """The empty tree's id in this repository's hash (the baseline of a repository without commits)."""
    return (await run(folder, "hash-object", "--no-filters", "-t", "tree", "/dev/null")).stdout.decode().strip()


# ---- a commit of an exact tree ----------------------------------------------------------------------------------

async def filtered_paths(folder: Path, paths: list[str]) -> list[str]:
    """Those of `paths` whose `filter` attribute names a driver the configuration gives a clean or process command
    (Git LFS): the hub hashes files without filters, so their content as the hub sees it is not what git would
    store."""
    listing = await run(folder, "config", "--includes", "--null", "--get-regexp", r"^filter\.", check=False,
                        max_output=CONFIG_BYTES)
    drivers = set(drivers_in(listing.stdout, ("clean", "process"))) if listing.returncode == 0 else set()
    if not drivers or not paths:
        return []
    out = await run(folder, "check-attr", "-z", "--stdin", "filter",
                    stdin=b"".join(p.encode("utf-8", "surrogateescape") + b"\0" for p in paths))
    parts = out.stdout.decode("utf-8", "surrogateescape").split("\0")
    return [parts[i] for i in range(0, len(parts) - 2, 3) if parts[i + 2] in drivers]


async def commit_tree(folder: Path, tree: str, parent: str | None, message: str) -> str:
    """A commit of exactly `tree` on `parent` with `message`, in the person's name as their configuration gives it
    (`git commit-tree`: no hook runs, nothing is signed)."""
    args = ["commit-tree", "--no-gpg-sign", tree, "-m", message] + (["-p", parent] if parent else [])
    return (await run(folder, *args, timeout_s=WRITE_TIMEOUT_S)).stdout.decode().strip()


async def move_head(folder: Path, new: str, old: str | None, reason: str) -> None:
    """HEAD (the branch it names) moved to `new` only if it is still at `old` (None: only if it has no commit yet);
    git refuses otherwise."""
    await run(folder, "update-ref", "-m", reason, "HEAD", new, old or "", timeout_s=WRITE_TIMEOUT_S)


async def reset_index(folder: Path, commit: str) -> None:
    """The index made to match `commit`, the working files left as they are, the stat data of unchanged entries
    kept (`git read-tree -m <commit>`: unlike `git reset`, no reflog line for a HEAD that did not move)."""
    await run(folder, "read-tree", "-m", commit, timeout_s=WRITE_TIMEOUT_S)
