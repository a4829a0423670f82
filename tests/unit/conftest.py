"""Unit-test fixtures: a migrated SQLite file in tmp_path and a running Writer on it (no mocks of SQLite)."""

from __future__ import annotations

import sqlite3
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiosqlite
import pytest

from hub.store import database
from hub.store.events import StoredEvent
from hub.store.migrations import migrate
from hub.store.writer import Writer
from tests.unit.scenario import World, WriterRig, executor, populate

# When a Hypothesis test fails, Hypothesis imports its patch writer, which imports libcst, which trips a
# DeprecationWarning from mypy_extensions; with warnings as errors that turns the real failure into an
# INTERNALERROR. Import it once here, warnings silenced, so a failing property test reports its example.
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    try:  # noqa: SIM105 - an import, kept as the plain try it reads as
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:
        pass


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "lineup.db"


@pytest.fixture
async def write_conn(db_path: Path) -> AsyncIterator[aiosqlite.Connection]:
    conn = await database.connect(db_path)
    await database.run(conn, migrate)
    yield conn
    await conn.close()


@pytest.fixture
async def rig(db_path: Path, write_conn: aiosqlite.Connection) -> AsyncIterator[WriterRig]:
    published: list[list[StoredEvent]] = []
    writer = Writer(write_conn, lambda events: published.append(list(events)))
    await writer.start()
    yield WriterRig(db_path, write_conn, writer, published)
    await writer.stop()


@pytest.fixture
def reader(db_path: Path, write_conn: aiosqlite.Connection) -> Iterator[sqlite3.Connection]:
    conn = database.connect_sync(db_path)
    yield conn
    conn.close()


@pytest.fixture
async def populated(db_path: Path) -> AsyncIterator[tuple[Path, World]]:
    """A database file holding the scenario's log; every connection to it is closed again."""
    conn = await database.connect(db_path)
    await database.run(conn, migrate)
    writer = Writer(conn, lambda events: None)
    await writer.start()
    try:
        world = await populate(executor(writer))
    finally:
        await writer.stop()
        await conn.close()
    yield db_path, world
