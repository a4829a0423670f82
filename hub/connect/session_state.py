"""What a hook process remembers of one Claude Code session between hook runs: its prompt count and open task."""

# Hook processes of one session can run at the same time (parallel tool calls), so the file is read and written
# under an exclusive lock. The ids themselves are derived from the session, not stored: a lost file costs at
# most a task numbered again, never a duplicate object (the hub dedupes by envelope id).

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no flock; the derived ids still keep the hub free of duplicates
    fcntl = None  # type: ignore[assignment]  # the module or None: code checks before it locks


def digest(*parts: object, size: int = 24) -> str:
    return hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:size]


@dataclass
class SessionState:
    prompts: int = 0           # how many tasks this session has opened
    open: bool = False         # the current task is running (no Stop yet)
    conversation_ready: bool = False
    title: str = ""
    # The current task's steps: Claude Code's own task (or todo) id → {"id": LineUp child task, "status", "title"}.
    steps: dict[str, dict[str, str]] = field(default_factory=dict)
    # Cards still waiting for the person: a digest of the tool call → its interaction id (withdrawn when Claude
    # moves on without the answer: the call ran, the session stopped).
    waiting: dict[str, str] = field(default_factory=dict)


@contextlib.contextmanager
def locked(folder: Path, session_id: str) -> Iterator[tuple[SessionState, Path]]:
    """The session's state, locked while the block runs and saved after it."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{digest(session_id, size=32)}.json"
    with open(path.with_suffix(".lock"), "a") as lock:
        if fcntl is not None:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            state = SessionState()
            if path.exists():
                with contextlib.suppress(OSError, ValueError, TypeError):
                    state = SessionState(**{k: v for k, v in json.loads(path.read_text()).items()
                                            if k in SessionState.__dataclass_fields__})
            yield state, path
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_text(json.dumps(asdict(state)))
            os.replace(tmp, path)
        finally:
            if fcntl is not None:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
