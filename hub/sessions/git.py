"""Git as the hub runs it for sessions: a fixed argv, no prompts, no pager, bounded in time and output.

Every call runs `git` found on PATH with the argument list given (never a shell), in the folder given, with
`GIT_TERMINAL_PROMPT=0` (a credential prompt would hang), `GIT_OPTIONAL_LOCKS=0` (reads never take the index lock
the agent's own git needs), `LC_ALL=C` (messages the hub can match), no pager and no editor, and with
`core.fsmonitor=false` (a repository's config cannot make a read of the hub run a program). Hooks are off
(`core.hooksPath=/dev/null`) for everything the hub does on its own: reading status and diffs, making a worktree
(its post-checkout hook would run an agent-writable script before anyone asked for anything); they run for the
commit the person approved, as they would for the person's own commit. Each call has a timeout (the process group
is killed when it passes) and a cap on what it may print.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path

from hub.protocol.errors import LapError

READ_TIMEOUT_S = 15.0          # status, diffs, lists
WRITE_TIMEOUT_S = 120.0        # worktree add, snapshot (hashes untracked files), commit (runs its hooks)
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
STDERR_BYTES = 8 * 1024
GIT_AT_ONCE = 8                # git processes of the hub at once; more wait their turn
_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = weakref.WeakKeyDictionary()
SNAPSHOT_IDENTITY = {"GIT_AUTHOR_NAME": "LineUp", "GIT_AUTHOR_EMAIL": "lineup@localhost",
                     "GIT_COMMITTER_NAME": "LineUp", "GIT_COMMITTER_EMAIL": "lineup@localhost"}


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


def _slots() -> asyncio.Semaphore:
    """At most GIT_AT_ONCE git processes of the hub at a time (per event loop: tests run several hubs)."""
    loop = asyncio.get_running_loop()
    slots = _SLOTS.get(loop)
    if slots is None:
        slots = _SLOTS[loop] = asyncio.Semaphore(GIT_AT_ONCE)
    return slots


async def run(cwd: Path, *args: str, timeout_s: float = READ_TIMEOUT_S, hooks: bool = False,
              env: dict[str, str] | None = None, max_output: int = MAX_OUTPUT_BYTES, check: bool = True) -> Output:
    """Run `git <args>` in `cwd`. With `check`, a non-zero exit raises GitError with git's message. Waits for one of
    GIT_AT_ONCE slots first (for at most the same timeout)."""
    try:
        async with asyncio.timeout(timeout_s):
            await _slots().acquire()
    except TimeoutError:
        raise GitError(f"git {args[0] if args else ''} waited {timeout_s:g} s for other git commands") from None
    try:
        return await _run(cwd, args, timeout_s, hooks, env, max_output, check)
    finally:
        _slots().release()


async def _run(cwd: Path, args: tuple[str, ...], timeout_s: float, hooks: bool, env: dict[str, str] | None,
               max_output: int, check: bool) -> Output:
    argv = [git_program(), "-c", "core.fsmonitor=false", "-c", "core.quotepath=off"]
    if not hooks:
        argv += ["-c", f"core.hooksPath={os.devnull}"]
    argv += list(args)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv, cwd=str(cwd), env=base_env(env), stdin=asyncio.subprocess.DEVNULL,
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

    errors = asyncio.ensure_future(read_err())
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
            await errors
    except TimeoutError:
        _kill(process)
        await process.wait()
        raise GitError(f"git {args[0] if args else ''} took longer than {timeout_s:g} s and was stopped") from None
    finally:
        if not errors.done():
            errors.cancel()
            await asyncio.gather(errors, return_exceptions=True)
    stdout = b"".join(chunks)[:max_output] if truncated else b"".join(chunks)
    code = process.returncode if process.returncode is not None else -1
    if check and code != 0 and not truncated:
        raise GitError(f"git {args[0] if args else ''} failed", err.decode("utf-8", "replace").strip(), code)
    return Output(stdout, code, truncated)


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


async def head(folder: Path) -> str | None:
    """HEAD's commit, or None in a repository without commits."""
    out = await run(folder, "rev-parse", "--verify", "-q", "HEAD^{commit}", check=False)
    return out.stdout.decode().strip() or None if out.returncode == 0 else None


async def current_branch(folder: Path) -> str | None:
    """The branch checked out, or None when HEAD is detached."""
    out = await run(folder, "symbolic-ref", "-q", "--short", "HEAD", check=False)
    return out.stdout.decode("utf-8", "replace").strip() or None if out.returncode == 0 else None


async def dirty(folder: Path) -> bool:
    """Uncommitted changes: staged, unstaged, or untracked files that are not ignored."""
    out = await run(folder, "status", "--porcelain", "--untracked-files=normal", max_output=4096)
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
    """git's own rule for a branch name (`git check-ref-format --branch`), and no leading `-` (an option)."""
    if not name or name.startswith("-") or len(name) > 200:
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
    """`git worktree add -b <branch> <path> <start>` (hooks off: see the module's docstring)."""
    await run(repo, "worktree", "add", "-b", branch, "--", str(path), start, timeout_s=WRITE_TIMEOUT_S)


# ---- trees of the working state ---------------------------------------------------------------------------------

async def working_tree(folder: Path, scratch: Path) -> str:
    """A tree object of everything in the folder now: tracked files as they are on disk, and untracked files that
    are not ignored. Made with a copy of the index (its stat cache makes unchanged files free), so the person's own
    index is never touched."""
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
    args = ["commit-tree", tree, "-m", message] + (["-p", parent] if parent else [])
    commit = (await run(folder, *args, env=SNAPSHOT_IDENTITY)).stdout.decode().strip()
    await run(folder, "update-ref", ref, commit)
    return commit


async def merge_base(folder: Path, a: str, b: str) -> str | None:
    out = await run(folder, "merge-base", a, b, check=False)
    return out.stdout.decode().strip() or None if out.returncode == 0 else None


async def commit_all(folder: Path, message: str) -> str:
    """`git add -A`, then `git commit -m <message>` (the repository's hooks run: the person approved this commit);
    the new HEAD."""
    await run(folder, "add", "-A", "--", ".", timeout_s=WRITE_TIMEOUT_S)
    await run(folder, "commit", "-m", message, timeout_s=WRITE_TIMEOUT_S, hooks=True)
    new_head = await head(folder)
    if new_head is None:
        raise GitError("the commit left no HEAD")
    return new_head
