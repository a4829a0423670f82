"""The bytes of stored files: `<data dir>/files/<sha256[:2]>/<sha256>`, one copy per content, whole or absent.

An upload is written to a temporary file in `files/` (the same file system as its final place) while its SHA-256 is
computed, then flushed to disk (fsync), renamed to its content's name and the folder synced, so a blob that exists
holds exactly the bytes its name says, also after a crash. The blob is in place before the `file.stored` event that
names it commits (hub/web/files.py), so a row never names a missing blob; an upload refused after its bytes arrived
(a cap reached at the last moment) can leave a blob that no row names, which a later clean-up may remove (nothing
reads it: every read goes through a row of the workspace). Writing the same content again replaces the blob with the
same bytes: an upload takes the same steps whether or not the content was already here, so its answer and its timing
tell nothing of other workspaces' files. Files and folders are the owner's only (0600, 0700).

The methods of `Upload` block (disk writes, fsync): the web route runs them on a worker thread.
"""

from __future__ import annotations

import codecs
import contextlib
import hashlib
import os
import re
import secrets
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from hub.files.types import SNIFF_BYTES
from hub.store.queries import files as file_rows

FOLDER = "files"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
TEMP_PREFIX = ".upload-"


class BlobStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def in_data_dir(cls, data_dir: Path) -> BlobStore:
        return cls(data_dir / FOLDER)

    def path(self, sha256: str) -> Path:
        if not _SHA256.match(sha256):
            raise ValueError(f"not a SHA-256 in hex: {sha256!r}")
        return self.root / sha256[:2] / sha256

    def has(self, sha256: str, size: int | None = None) -> bool:
        """Whether the blob is on disk (and, given `size`, has that many bytes)."""
        try:
            found = self.path(sha256).stat()
        except (OSError, ValueError):
            return False
        return size is None or found.st_size == size

    def begin(self) -> Upload:
        self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
        return Upload(self)


class Upload:
    """One file being received: `write` its bytes in order, then `finish` (or `discard`)."""

    def __init__(self, store: BlobStore) -> None:
        self.store = store
        self.temp = store.root / f"{TEMP_PREFIX}{secrets.token_hex(12)}"
        self._fd = os.open(self.temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
        self._hash = hashlib.sha256()
        self._text = codecs.getincrementaldecoder("utf-8")()
        self.is_text = True   # UTF-8 without NUL so far
        self.head = b""       # the first SNIFF_BYTES, for the type checks (hub/files/types.py)
        self.size = 0
        self.sha256 = ""

    def write(self, data: bytes) -> None:
        self._hash.update(data)
        if len(self.head) < SNIFF_BYTES:
            self.head += data[:SNIFF_BYTES - len(self.head)]
        if self.is_text:
            try:
                self._text.decode(data)
            except UnicodeDecodeError:
                self.is_text = False
            else:
                self.is_text = b"\0" not in data
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        self.size += len(data)

    def seal(self) -> str:
        """Every byte has been written: sync them to disk; returns the SHA-256 (hex). `is_text` is final now."""
        if self.is_text:
            try:
                self._text.decode(b"", final=True)  # a multi-byte character cut off at the end is no text
            except UnicodeDecodeError:
                self.is_text = False
        os.fsync(self._fd)
        os.close(self._fd)
        self._fd = -1
        self.sha256 = self._hash.hexdigest()
        return self.sha256

    def place(self) -> Path:
        """Put the sealed bytes in their content's place (replacing the same bytes if they were there)."""
        final = self.store.path(self.sha256)
        final.parent.mkdir(mode=0o700, exist_ok=True)
        os.replace(self.temp, final)
        _sync_folder(final.parent)
        _sync_folder(self.store.root)
        return final

    def discard(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        with contextlib.suppress(FileNotFoundError):
            self.temp.unlink()


def _sync_folder(folder: Path) -> None:
    """The rename itself survives a power loss only once its folder is synced (POSIX; Windows has no such call)."""
    if os.name == "nt":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


PAGE = 1000


def stored_blobs(conn: sqlite3.Connection) -> Iterator[tuple[str, int]]:
    """Every blob the `files` rows name, (sha256, size), a page at a time."""
    after = ""
    while page := file_rows.blobs_after(conn, after, PAGE):
        yield from page
        after = page[-1][0]


def missing_blobs(conn: sqlite3.Connection, store: BlobStore) -> list[tuple[str, int]]:
    """The blobs rows name that are not on disk with their size (`lineup db check`)."""
    return [(sha, size) for sha, size in stored_blobs(conn) if not store.has(sha, size)]


def copy_blob(store: BlobStore, sha256: str, folder: Path) -> int:
    """Copy one blob into `folder` in the same layout (`lineup export --files`), checking its SHA-256 on the way;
    returns its size. Raises ValueError when the bytes on disk are not what the name says."""
    source = store.path(sha256)
    target = BlobStore(folder).path(sha256)
    target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    digest = hashlib.sha256()
    size = 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
    with source.open("rb") as reader, os.fdopen(fd, "wb") as writer:
        while block := reader.read(1024 * 1024):
            digest.update(block)
            writer.write(block)
            size += len(block)
    if digest.hexdigest() != sha256:
        target.unlink()
        raise ValueError(f"the bytes of {source} do not match their SHA-256")
    return size
