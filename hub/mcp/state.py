"""What one MCP session keeps on disk beside the credential: its task, child tasks, questions and their outcomes."""

# An MCP client restarts its server whenever it likes (a crash, a reload, a new window on the same folder), and
# the new process must find the task it was working on and the questions still waiting for the person, so that a
# re-issued call picks up the pending question instead of asking twice. A session is named by a key: by default
# a digest of the working folder the client started the server in (`--session` names it explicitly).

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from hub.sdk.privatefile import write_private_json

log = logging.getLogger("lineup.mcp")

KEEP_QUESTIONS = 500  # the newest questions (and their outcomes) a session remembers


def default_session_key(folder: Path | None = None) -> str:
    """The session of the folder the MCP client started us in: the same folder after a restart, the same key."""
    return hashlib.sha256(str((folder or Path.cwd()).resolve()).encode()).hexdigest()[:16]


def session_files(credential_path: Path, key: str) -> tuple[Path, Path]:
    """(the session's state, the SDK cursor) — beside the credential, in `<credential stem>-sessions/`."""
    folder = credential_path.with_name(credential_path.stem + "-sessions")
    return folder / f"{key}.json", folder / f"{key}.cursor.json"


MAX_SIBLINGS = 32  # MCP processes working in one folder at once, each with a session of its own


def claim_session(credential_path: Path, key: str) -> tuple[str, IO[str] | None]:
    """The session this process works in: `key`, or `key-2`, `key-3`, … while another live process holds it.

    A restarted process (the one before it is gone, its lock with it) gets its own session back, with its task
    and waiting questions; a second window of the same MCP client in the same folder, started while the first
    runs, gets a session of its own instead of sharing (and overwriting) the first one's state. The returned
    file holds the claim (an exclusive lock) for as long as it stays open: keep it for the life of the process.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no advisory locks; one session per folder, as before
        return key, None
    folder = session_files(credential_path, key)[0].parent
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(1, MAX_SIBLINGS + 1):
        candidate = key if index == 1 else f"{key}-{index}"
        handle = open(folder / f"{candidate}.lock", "a")  # noqa: SIM115 - held open: the lock is the claim
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            continue
        return candidate, handle
    raise RuntimeError(f"{MAX_SIBLINGS} `lineup mcp` processes already work in this folder's session {key}")


@dataclass
class SessionState:
    """The session's LineUp objects. Ids are minted here and saved before they are sent, so a restart re-sends
    the same envelopes (the hub stores each once) instead of creating a second task or asking twice."""

    path: Path
    task_id: str | None = None
    conversation_id: str | None = None
    title: str = ""
    ready: bool = False                          # the hub acked the task's creation and its acceptance
    conversation_title: str = ""
    conversation_ready: bool = False             # the hub acked the conversation (one per session, kept)
    children: dict[str, dict[str, str]] = field(default_factory=dict)  # child title -> {id, status}
    questions: dict[str, dict[str, Any]] = field(default_factory=dict)  # interaction id -> what was asked
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)   # interaction id -> how it ended
    finished: dict[str, Any] | None = None      # the last task this session finished: {taskId, status, summary}
    cancelled: dict[str, Any] | None = None     # the person cancelled the task; not yet told to the MCP caller

    @classmethod
    def load(cls, path: Path) -> SessionState:
        state = cls(path)
        if not path.exists():
            return state
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            log.warning("ignoring an unreadable session file %s", path)
            return state
        for key, value in data.items():
            if key != "path" and hasattr(state, key):
                setattr(state, key, value)
        return state

    def save(self) -> None:
        """Write atomically, readable by the owner only (it names the tasks and the questions asked)."""
        self._prune()
        write_private_json(self.path, {k: v for k, v in asdict(self).items() if k != "path"})

    def _prune(self) -> None:
        while len(self.questions) > KEEP_QUESTIONS:
            oldest = next(iter(self.questions))
            self.questions.pop(oldest)
            self.outcomes.pop(oldest, None)

    # ---- the session's task ----------------------------------------------------------------------------

    def begin_conversation(self, conversation_id: str, title: str) -> None:
        self.conversation_id, self.conversation_title, self.conversation_ready = conversation_id, title, False
        self.save()

    def begin_task(self, task_id: str, title: str) -> None:
        self.task_id, self.title, self.ready, self.children = task_id, title, False, {}
        self.save()

    def end_task(self, status: str, summary: str | None = None) -> None:
        """Forget the task (the next call starts a new one, in the same conversation) and remember how it ended."""
        if self.task_id is not None:
            self.finished = {"taskId": self.task_id, "status": status, "summary": summary}
        self.task_id, self.title, self.ready, self.children = None, "", False, {}
        self.save()
