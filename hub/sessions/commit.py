"""A session's commit through an approval card: the card shows one exact tree, and only that tree is committed.

The card approves a `commit` item (docs/protocol.md "What an approval approves"): the folder, the id of the tree of
everything in it as the card shows it (hub/sessions/git.py `working_tree`: tracked and untracked files, nothing
ignored, no filter run), the parent (HEAD then), the message, every file with its counts, and the hooks that run:
none. When the person approves, the tree is made again; if the files changed since the card was shown (the agent
works on meanwhile) nothing is committed and a new card shows the new list. Otherwise exactly that tree is committed
(`git commit-tree`, which runs no hook, in the person's name), HEAD moves only if it is still the parent
(`git update-ref HEAD <new> <old>`), and the index is made to match it; the working files are never touched.
docs/sessions.md "Commit".
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from hub.domain.approvals import MAX_APPROVES_BYTES
from hub.protocol.envelope import new_id
from hub.protocol.errors import LapError
from hub.runtimes import orphans
from hub.sessions import changes, commands, git
from hub.store.queries import sessions as session_rows
from hub.store.queries.records import SessionRecord

if TYPE_CHECKING:
    from hub.ports import HubCore
    from hub.sdk.client import AgentClient
    from hub.store.writer import Command

MAX_FILES = 500                  # files on one card; more are committed in a terminal
NO_HOOKS = "No hooks run: the commit is made from this exact tree, without the repository's hooks."
TERMINAL_HINT = "Commit in a terminal in the session's folder, where you see what git does."
STALE_REASON = "The hub restarted before the answer: ask for the commit again."


class CommitHost(Protocol):
    """What the commit cards use of the session host (hub/sessions/host.py)."""

    @property
    def hub(self) -> HubCore: ...

    @property
    def state_dir(self) -> Path: ...

    def client_of(self, record: SessionRecord) -> AgentClient | None: ...

    async def repository_of(self, record: SessionRecord) -> tuple[Path, git.Pin]: ...

    async def say(self, record: SessionRecord, text: str) -> None: ...

    def spawn(self, coro: Awaitable[Any]) -> None: ...

    async def execute_quietly(self, command: Command) -> None: ...


@dataclass(frozen=True)
class Shown:
    """What a card shows: the tree of the folder then, on which parent, and the files it changes."""

    tree: str
    parent: str | None
    files: list[changes.Changed]


async def request(host: CommitHost, record: SessionRecord, message: str) -> str:
    """Ask the person, as the session's agent, to commit the folder as it is now; commit when approved. Returns the
    card's interaction id. Refused up front: an ended session, a card already waiting, nothing to commit, more than
    a card shows, files a git filter would change."""
    folder, pin = await host.repository_of(record)
    if record.pending_commit:
        raise LapError("conflict", "A commit of this session already waits for an answer.",
                       hint="Answer that card first.")
    client = host.client_of(record)
    if client is None or record.status == "ended":
        raise LapError("conflict", "This session has ended.", hint="Commit in a session that runs.")
    with git.pinned(pin):
        shown = await what_is_shown(folder, host.state_dir / "tmp")
    interaction = card(record, folder, shown, message)
    await host.hub.execute(commands.commit_requested(record.workspace_id, record.id, record.conversation_id,
                                                     interaction["id"], message, [f.path for f in shown.files]))
    host.spawn(_when_answered(host, client, record, interaction, shown, message))
    return str(interaction["id"])


async def what_is_shown(folder: Path, scratch: Path) -> Shown:
    """The folder's tree now against HEAD; LapError when there is nothing to commit or it cannot be shown whole."""
    parent = await git.head(folder)
    tree = await git.working_tree(folder, scratch)
    files, truncated = await changes.changed_files(folder, parent or await git.empty_tree(folder), tree)
    if not files:
        raise LapError("conflict", "There are no uncommitted changes to commit.")
    if truncated or len(files) > MAX_FILES:
        raise LapError("conflict", f"{len(files):,}{'+' if truncated else ''} files changed: more than a commit card "
                                   f"shows ({MAX_FILES}), so none was made.", hint=TERMINAL_HINT)
    nested = [f for f in files if f.gitlink]
    if nested:  # a tree records only the commit id of a repository inside it: no card shows that as files
        first = nested[0]
        more = f" (and {len(nested) - 1} more)" if len(nested) > 1 else ""
        raise LapError("conflict", f"{first.path} is a nested git repository (at commit {(first.gitlink or '')[:12]})"
                                   f"{more}: a commit would record only that commit's id, not its files, so no "
                                   "commit card is made.",
                       hint="Commit in a terminal in the session's folder, where you decide what to do with it (a "
                            "submodule, its files, or leave it out with .gitignore).")
    filtered = await git.filtered_paths(folder, [f.path for f in files if f.status != "deleted"])
    if filtered:
        raise LapError("conflict", f"{len(filtered)} of the files go through a git filter ({filtered[0]}"
                                   f"{', …' if len(filtered) > 1 else ''}; e.g. Git LFS), which the hub never runs: "
                                   "it cannot show what git would store for them.", hint=TERMINAL_HINT)
    return Shown(tree, parent, files)


def card(record: SessionRecord, folder: Path, shown: Shown, message: str) -> dict[str, Any]:
    """The approval card: one `commit` item carrying everything committed, whole."""
    item: dict[str, Any] = {"kind": "commit", "cwd": str(folder), "tree": shown.tree, "message": message,
                            "files": [f.as_dict() for f in shown.files], "hooks": []}
    if shown.parent:
        item["parent"] = shown.parent
    size = len(json.dumps(item, ensure_ascii=False).encode())
    if size > MAX_APPROVES_BYTES - 1024:  # the hub would refuse the card: say so now, not in the conversation later
        raise LapError("conflict", f"This commit is {size:,} bytes as a card (its file names and message): more than "
                                   f"a card shows whole ({MAX_APPROVES_BYTES:,}).", hint=TERMINAL_HINT)
    count = len(shown.files)
    on = f"on {shown.parent[:12]}" if shown.parent else "as the repository's first commit"
    return {
        "id": new_id("int"), "type": "approval", "title": f"Commit {count} file{'s' if count != 1 else ''} in "
                                                           f"{folder.name}?",
        "description": f"Exactly these files as they are now (tree {shown.tree[:12]}), {on}. {NO_HOOKS} If the "
                       "files change before you answer, nothing is committed and you are asked again.",
        "approves": [item], "notes": "not_sent",
        "options": [{"id": "approve", "label": "Commit", "style": "primary"},
                    {"id": "reject", "label": "Don't commit", "style": "danger"}],
        "details": {"sessionId": record.id}}


async def _when_answered(host: CommitHost, client: AgentClient, record: SessionRecord, interaction: dict[str, Any],
                         shown: Shown, message: str) -> None:
    interaction_id = interaction["id"]

    async def resolved(outcome: str, commit: str | None = None, error: str | None = None) -> None:
        await host.execute_quietly(commands.commit_resolved(record.workspace_id, record.id, record.conversation_id,
                                                            interaction_id, outcome, commit, error))
    try:
        answer = await client.ask(interaction, conversation_id=record.conversation_id)
    except Exception as exc:  # noqa: BLE001 - the card could not be asked: said, and the request is over
        await resolved("failed", error=str(exc))
        await host.say(record, f"The commit card could not be shown: {exc}")
        return
    if answer.option_id != "approve" or answer.outcome != "answered":
        declined = answer.outcome in ("answered", "declined")
        await resolved("declined" if declined else "withdrawn")
        await host.say(record, "No commit was made: " + ("you declined it." if declined
                                                         else f"the card {answer.outcome}."))
        return
    now = await host.hub.read(lambda c: session_rows.session(c, record.id, record.workspace_id))
    if now is None or now.status == "ended":
        await resolved("withdrawn")
        await host.say(record, "No commit was made: the session had ended before the answer.")
        return
    try:
        folder, pin = await host.repository_of(record)
        with git.pinned(pin):
            commit, note = await _commit_shown(host, folder, shown, message)
    except _Changed:
        await resolved("failed", error="The files changed since the card was shown.")
        await _ask_again(host, record, message)
        return
    except (git.GitError, LapError) as exc:
        await resolved("failed", error=str(exc))
        await host.say(record, f"No commit was made: {exc}")
        return
    await resolved("committed", commit=commit)
    await host.say(record, f"Committed {commit[:12]}: {message.splitlines()[0] if message else ''} (exactly the "
                           f"{len(shown.files)} file{'s' if len(shown.files) != 1 else ''} on the card; no hooks "
                           f"ran).{note}")


class _Changed(Exception):
    """The folder is not what the card showed any more."""


async def _commit_shown(host: CommitHost, folder: Path, shown: Shown, message: str) -> tuple[str, str]:
    """Commit exactly the shown tree, if the folder still is that tree and HEAD still its parent; the new commit and
    a note for the conversation."""
    head = await git.head(folder)
    if head != shown.parent:
        raise LapError("conflict", f"HEAD moved since the card was shown (from {_short(shown.parent)} to "
                                   f"{_short(head)}), so nothing was committed.", hint="Ask for the commit again.")
    if await git.working_tree(folder, host.state_dir / "tmp") != shown.tree:
        raise _Changed
    commit = await git.commit_tree(folder, shown.tree, shown.parent, message)
    subject = message.splitlines()[0] if message else ""
    try:
        await git.move_head(folder, commit, shown.parent, f"commit (LineUp session): {subject}"[:200])
    except git.GitError as exc:  # someone moved HEAD in the moment between: compare-and-swap refused
        said = exc.stderr or exc.message
        raise LapError("conflict", f"HEAD moved while the commit was made, so nothing was committed ({said}).",
                       hint="Ask for the commit again.") from None
    try:
        await git.reset_index(folder, commit)
    except git.GitError as exc:
        said = exc.stderr or exc.message
        return commit, f" The index could not be made to match it ({said}): run `git reset` there."
    return commit, ""


def _short(commit: str | None) -> str:
    return commit[:12] if commit else "no commit"


async def _ask_again(host: CommitHost, record: SessionRecord, message: str) -> None:
    """The files changed while the card waited: say so, and show the new list on a new card."""
    await host.say(record, "The files changed since the card was shown, so nothing was committed: here is the new "
                           "list.")
    fresh = await host.hub.read(lambda c: session_rows.session(c, record.id, record.workspace_id)) or record
    try:
        await request(host, fresh, message)
    except LapError as exc:
        await host.say(record, f"No new commit card: {exc.message}")


async def withdraw_stale(host: CommitHost, records: list[SessionRecord]) -> None:
    """Commit cards asked before a restart: nobody waits for their answer any more, so they are withdrawn (as the
    session's agent, by the hub itself: no connection needed) and stored as such."""
    for record in records:
        if not record.pending_commit:
            continue
        with contextlib.suppress(LapError):
            await orphans.withdraw(host.hub, record.agent_id, record.workspace_id, record.pending_commit,
                                   STALE_REASON)
        await host.execute_quietly(commands.commit_resolved(record.workspace_id, record.id, record.conversation_id,
                                                            record.pending_commit, "withdrawn"))
