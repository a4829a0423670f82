"""SQL lives in hub/store/: a module outside it that is not on the allow-list may not gain SQL,
and the allow-list of modules not yet moved can only shrink."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HUB = Path(__file__).resolve().parents[2] / "hub"

# Modules outside hub/store/ that still hold SQL: none any more. Never add one: put a new
# statement in hub/store/ (hub/store/queries/ for reads).
NOT_YET_MOVED: frozenset[str] = frozenset()

# A statement's shape, upper-case as this codebase writes SQL: a string literal (or an f-string's literal part)
# that matches is SQL. Prose in docstrings says "select" or "the tasks table", not "SELECT ... FROM".
_SQL = re.compile(
    r"\b(?:SELECT\s+(?:\S.*?\s)?FROM|SELECT\s+(?:1|COUNT|MAX|MIN|changes|last_insert_rowid)\b"
    r"|INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|REPLACE\s+INTO"
    r"|CREATE\s+(?:UNIQUE\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)|DROP\s+(?:TABLE|INDEX|TRIGGER|VIEW)"
    r"|ALTER\s+TABLE|PRAGMA\s+\w+)\b", re.S)


def sql_lines(source: str) -> list[int]:
    """The line of every string literal in `source` that holds SQL."""
    return [node.lineno for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _SQL.search(node.value)]


def modules_with_sql() -> dict[str, list[int]]:
    """Every module under hub/ but outside hub/store/ that holds SQL, with the lines."""
    found = {}
    for path in sorted(HUB.rglob("*.py")):
        rel = path.relative_to(HUB.parent).as_posix()
        if rel.startswith("hub/store/"):
            continue
        lines = sql_lines(path.read_text(encoding="utf-8"))
        if lines:
            found[rel] = lines
    return found


@pytest.mark.parametrize("source", [
    'x = "SELECT * FROM tasks WHERE id = ?"',
    'x = ("SELECT id FROM users "\n     "WHERE username = ?")',
    'x = f"SELECT 1 FROM {table} WHERE id = ?"',
    'x = "SELECT COUNT(*) FROM interactions"',
    "c.execute('INSERT OR IGNORE INTO relay_people (uid) VALUES (?)')",
    'x = "UPDATE meta SET value = ? WHERE key = ?"',
    'x = "DELETE FROM relay_state WHERE key = ?"',
    'x = """\nCREATE TABLE IF NOT EXISTS t (a)"""',
    'x = "PRAGMA data_version"',
])
def test_the_detector_sees_sql(source: str) -> None:
    assert sql_lines(source), source


@pytest.mark.parametrize("source", [
    '"""Select the newest tasks from the projection and update the inbox."""',
    'x = "Select a task from the list"',
    'x = "Delete this device?"',
    "await hub.execute(command)",
])
def test_the_detector_leaves_prose_and_calls_alone(source: str) -> None:
    assert not sql_lines(source), source


def test_no_module_outside_the_store_gains_sql() -> None:
    gained = {rel: lines for rel, lines in modules_with_sql().items() if rel not in NOT_YET_MOVED}
    assert not gained, (f"SQL outside hub/store/ (module: lines): {gained}. Put the statement in hub/store/ "
                        "(a typed function in hub/store/queries/ for a read) and call it.")


def test_the_allow_list_only_shrinks() -> None:
    """A module whose SQL has moved leaves the list, so it cannot gain SQL again unnoticed."""
    stale = sorted(NOT_YET_MOVED - set(modules_with_sql()))  # a module deleted or renamed counts too
    assert not stale, f"These modules hold no SQL any more (or are gone): remove them from NOT_YET_MOVED: {stale}"
