"""The three things an approval's items are judged as: a shell command, a file change (by where it goes), and a
tool's JSON input (the SQL, commands, paths and URLs in it)."""

from __future__ import annotations

import re
from typing import Any

from hub.domain.risk.network import host_of, loopback
from hub.domain.risk.paths import Folders
from hub.domain.risk.reasons import Assessment, clip
from hub.domain.risk.scope import Scope
from hub.domain.risk.shell import Shell
from hub.domain.risk.sql import judge_sql
from hub.domain.risk.words import Word


def assess_command(command: str, cwd: str | None = None) -> Assessment:
    """The risk of running `command` in a shell whose working folder is `cwd` (the project): the highest of its
    parts, low only when every part is understood and harmless."""
    found = Assessment(level="low")
    shell = Shell()
    scope = Scope(found, Folders.of(cwd), shell)
    try:
        shell.script(command, scope)
    except RecursionError:
        scope.raise_to("high", "nested_too_deep")
    except Exception as error:  # noqa: BLE001 - a fault in a judge must still end "high", never in no card
        scope.cannot_tell(f"{type(error).__name__} while reading it")
    found.sort()
    return found


def assess_file_change(path: str, cwd: str | None) -> Assessment:
    """The risk of writing or editing `path`: medium inside the working folder; high for a start-up file, keys,
    an agent's permissions, git hooks or settings, a system folder, or anywhere else outside the project."""
    found = Assessment(level="medium")
    normalized = path.replace("\\", "/")
    Scope(found, Folders.of(cwd), Shell()).write(Word(normalized, normalized, False, False))
    found.sort()
    return found


_SQL_KEYS = re.compile(r"(^|_)(sql|query|statement|stmt|queries)$", re.IGNORECASE)
_SQL_TEXT = re.compile(r"(^|;)\s*(DROP\s+\w+|TRUNCATE\s|DELETE\s+FROM\s|UPDATE\s+\S+\s+SET\s"
                       r"|ALTER\s+(TABLE|USER|ROLE)\s|INSERT\s+INTO\s|GRANT\s|REVOKE\s|COPY\s+\S+\s+(FROM|TO)\s"
                       r"|CREATE\s+(TABLE|USER|ROLE|FUNCTION)\s|SELECT\s[\s\S]*\sFROM\s)", re.IGNORECASE)
_COMMAND_KEYS = re.compile(r"^(command|cmd|script|shell|bash|sh|commandline|command_line)$", re.IGNORECASE)
_SHELL_TOOLS = re.compile(r"(^|[_.:-])(bash|shell|terminal|exec|run_command|execute_command|run_shell|command)$",
                          re.IGNORECASE)
_PATH_KEYS = re.compile(r"^(path|file_path|filepath|file|filename|target|destination|dest)$", re.IGNORECASE)
_CONTENT_KEYS = re.compile(r"^(content|contents|text|data|new_string|new_str|body|patch|diff|edits)$", re.IGNORECASE)
_SECRET_KEYS = re.compile(r"(token|password|passwd|secret|api_?key|authorization|credential|private_?key|cookie)",
                          re.IGNORECASE)


def _objects(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Every object in a JSON value (with a list of strings as an object of its index), depth-first."""
    if depth > 64:
        return []
    if isinstance(value, dict):
        return [value, *(o for v in value.values() for o in _objects(v, depth + 1))]
    if isinstance(value, list):
        strings = {str(i): v for i, v in enumerate(value) if isinstance(v, str)}
        return ([strings] if strings else []) + [o for v in value for o in _objects(v, depth + 1)]
    if isinstance(value, str):
        return [{"": value}]
    return []


def assess_tool_input(tool: str, value: Any) -> Assessment:
    """A tool's input (an MCP tool, a web fetch): medium; high when SQL in it drops, empties or changes every row,
    a command in it would be high, a file it writes is one a command could not write without being high, or it
    sends a secret to a non-loopback host over plain http."""
    found = Assessment(level="medium")
    scope = Scope(found, Folders.of(None), Shell())
    shell_tool = _SHELL_TOOLS.search(tool) is not None
    for item in _objects(value)[:2_000]:
        strings = {str(k): v for k, v in item.items() if isinstance(v, str)}
        for key, text in strings.items():
            if _SQL_KEYS.search(key) or _SQL_TEXT.search(text):
                probe = Assessment(level="low")
                judge_sql("sql", text, Scope(probe, scope.folders, scope.runner))
                if probe.level == "high":
                    found.raise_to("high", "tool_sql", clip(tool, 60))
                    found.merge(probe)
            if _COMMAND_KEYS.match(key) or (shell_tool and key in ("", "input", "args", "code")):
                probe = assess_command(text)
                if probe.level == "high":
                    found.merge(probe)
            if _PATH_KEYS.match(key) and any(_CONTENT_KEYS.match(k) for k in item):
                probe = assess_file_change(text, None)
                if probe.level == "high":
                    found.merge(probe)
        urls = [t for t in strings.values() if t.startswith("http://")]
        secrets = [k for k, v in item.items() if _SECRET_KEYS.search(str(k)) and v]
        for url in urls:
            host = host_of(url)
            if secrets and host is not None and not loopback(host):
                found.raise_to("high", "secret_plain", host)
    found.sort()
    return found
