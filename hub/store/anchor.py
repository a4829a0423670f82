"""The anchor of the chain: the head the hub last saw committed, kept outside the database.

The chain (hub/store/chain.py) shows any edited, deleted or reordered row, but not the newest rows deleted: the
shorter chain still holds. So the running hub writes `chain-anchor.json` in the data folder,
{"epoch", "sequence", "chain", "writtenAt"}, every `chain_anchor_interval_s` seconds when the head moved and once
more on a clean shutdown, read from committed state on a read connection (never on the writer's path).
`lineup db verify` fails when the database is shorter than the anchored sequence or holds another chain value
there; `lineup db verify --anchor SEQUENCE:CHAIN` checks a head kept elsewhere the same way.

The anchor only claims what was committed when it was written, so after `kill -9` it lags by up to the interval
and still holds. It never moves backwards by itself: when the database contradicts it at start (a restore from an
older copy, a reset, or tampering), the hub leaves the file alone and logs what to do.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import sqlite3
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hub.protocol.envelope import now_iso
from hub.store.chain import GENESIS

ANCHOR_FILE = "chain-anchor.json"
HEX64 = re.compile(r"[0-9a-f]{64}")

log = logging.getLogger("lineup.anchor")


class AnchorError(ValueError):
    """An anchor that cannot be read or parsed."""


@dataclass(frozen=True)
class Anchor:
    epoch: str
    sequence: int
    chain: str
    written_at: str = ""

    def as_json(self) -> dict[str, Any]:
        return {"epoch": self.epoch, "sequence": self.sequence, "chain": self.chain, "writtenAt": self.written_at}


def anchor_path(data_dir: Path) -> Path:
    return data_dir / ANCHOR_FILE


def head(conn: sqlite3.Connection) -> tuple[int, str]:
    """The last committed (sequence, chain); (0, GENESIS) for an empty log."""
    row = conn.execute("SELECT sequence, chain FROM events ORDER BY sequence DESC LIMIT 1").fetchone()
    return (int(row[0]), str(row[1])) if row else (0, GENESIS)


def parse_head(text: str) -> tuple[int, str]:
    """"SEQUENCE:CHAIN" (as `lineup db verify` prints the head) -> (sequence, chain)."""
    sequence, _, chain = text.strip().partition(":")
    chain = chain.strip().lower()
    if not sequence.strip().isdigit() or not HEX64.fullmatch(chain):
        raise AnchorError(f"{text!r} is not SEQUENCE:CHAIN (a number, a colon, 64 hex digits)")
    return int(sequence), chain


def read_anchor(data_dir: Path) -> Anchor | None:
    """The anchor in the data folder; None when there is none (an older data folder, a hub that never ran)."""
    path = anchor_path(data_dir)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise AnchorError(f"{path} cannot be read: {exc}") from None
    try:
        anchor = Anchor(str(data["epoch"]), int(data["sequence"]), str(data["chain"]), str(data.get("writtenAt", "")))
    except (KeyError, TypeError, ValueError):
        raise AnchorError(f"{path} is not an anchor (epoch, sequence, chain)") from None
    if anchor.sequence < 0 or not HEX64.fullmatch(anchor.chain):
        raise AnchorError(f"{path} is not an anchor (epoch, sequence, chain)")
    return anchor


def write_anchor(data_dir: Path, anchor: Anchor) -> None:
    """Atomically, readable by the owner alone: a temporary file, fsync, rename, fsync of the folder."""
    path = anchor_path(data_dir)
    tmp = path.with_name(path.name + ".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(anchor.as_json()) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o600)  # an older temporary file may have had another mode
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    try:  # the rename itself survives a power loss once the folder is synced (POSIX; not possible on Windows)
        dir_fd = os.open(data_dir, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def check_head(conn: sqlite3.Connection, sequence: int, chain: str) -> tuple[int, str] | None:
    """(first bad sequence, what is wrong) when the log contradicts the head (sequence, chain), else None."""
    last, _ = head(conn)
    if sequence > last:
        return last + 1, f"events after {last} were removed"
    if sequence == 0:
        return None if chain == GENESIS else (0, "the chain of an empty log is 64 zeros")
    row = conn.execute("SELECT chain FROM events WHERE sequence = ?", (sequence,)).fetchone()
    if row is None:
        return sequence, f"sequence {sequence} is missing"
    if row[0] != chain:
        return sequence, ("its chain value differs from the anchored one (a row at or before it was changed and the "
                          "chain recomputed)")
    return None


def contradiction(conn: sqlite3.Connection, epoch: str, anchor: Anchor) -> str | None:
    """Why the database is not a continuation of the anchored log, or None when it is."""
    if anchor.epoch != epoch:
        return f"it names another event log (epoch {anchor.epoch}; this database: epoch {epoch})"
    broken = check_head(conn, anchor.sequence, anchor.chain)
    return f"at sequence {broken[0]}: {broken[1]}" if broken else None


class Anchorer:
    """The hub's background writer of the anchor: at start, every `interval_s` when the head moved, at stop."""

    def __init__(self, data_dir: Path, epoch: str,
                 read: Callable[[Callable[[sqlite3.Connection], Any]], Awaitable[Any]], interval_s: float) -> None:
        self.data_dir = data_dir
        self.epoch = epoch
        self.read = read
        self.interval_s = interval_s
        self.written: tuple[int, str] | None = None   # the head in the file, as far as this hub knows
        self.held: str | None = None                  # why the file is left alone (the database contradicts it)
        self._failing = False
        self._stopping = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        try:
            anchor = await asyncio.to_thread(read_anchor, self.data_dir)
        except AnchorError as exc:
            self._hold(str(exc))
        else:
            if anchor is not None:
                problem = await self.read(lambda c: contradiction(c, self.epoch, anchor))
                if problem:
                    self._hold(f"{anchor_path(self.data_dir)} does not match this database: {problem}")
                else:
                    self.written = (anchor.sequence, anchor.chain)
        await self.write_if_moved()
        if self.interval_s > 0:
            self._task = asyncio.create_task(self._run(), name="lineup-chain-anchor")

    async def stop(self) -> None:
        """Call after the writer stopped: the last committed head is anchored once more."""
        self._stopping.set()
        if self._task is not None:
            # Not cancelled: a write in its thread finishes first, so two writes never share the temporary file.
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self.write_if_moved()

    def _hold(self, why: str) -> None:
        self.held = why
        log.error("%s. The chain anchor is left as it is and not advanced: run `lineup db verify`. If the change "
                  "was intended (a reset, or a restore from an older copy), move the anchor away (keep it to show "
                  "the old head) and the hub writes a new one.", why)

    async def write_if_moved(self) -> None:
        try:
            if self.held is not None:
                if await asyncio.to_thread(anchor_path(self.data_dir).exists):
                    return
                log.warning("the chain anchor was moved away; anchoring this database from now on")
                self.held, self.written = None, None
            current = await self.read(head)
            if current == self.written or (current[0] == 0 and self.written is None):
                return
            await asyncio.to_thread(write_anchor, self.data_dir, Anchor(self.epoch, current[0], current[1], now_iso()))
            self.written = current
            self._failing = False
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - the hub serves without its anchor; said once until it works
            if not self._failing:
                log.warning("could not write the chain anchor in %s: %s", self.data_dir, exc)
            self._failing = True

    async def _run(self) -> None:
        while not self._stopping.is_set():
            try:
                async with asyncio.timeout(self.interval_s):
                    await self._stopping.wait()
            except TimeoutError:
                await self.write_if_moved()
