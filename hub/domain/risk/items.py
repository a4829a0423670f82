"""The three things an approval's items are judged as: a shell command, a file change (by where it goes), and a
tool's JSON input (the SQL, commands, paths and URLs in it)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

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
_SQL_START = re.compile(r"\s*(SELECT|WITH|INSERT|UPDATE|DELETE|DROP|CREATE|ALTER|TRUNCATE|GRANT|REVOKE|COPY|CALL"
                        r"|EXEC|EXECUTE|MERGE|REPLACE|PRAGMA|ATTACH|DETACH|VACUUM|SET|SHOW|USE|BEGIN|COMMIT|\\\\)\b",
                        re.IGNORECASE)
_COMMAND_KEYS = re.compile(r"^(command|cmd|script|shell|bash|sh|commandline|command_line)$", re.IGNORECASE)
_SHELL_TOOLS = re.compile(r"(^|[_.:-])(bash|shell|terminal|exec|run_command|execute_command|run_shell|command)$",
                          re.IGNORECASE)
_PATH_KEYS = re.compile(r"^(path|paths|file_path|filepath|file|files|filename|target|destination|dest|source|src"
                        r"|dir|directory|folder|notebook_path|old_path|new_path|from|to|uri|location)$", re.IGNORECASE)
_CONTENT_KEYS = re.compile(r"^(content|contents|text|data|new_string|new_str|body|patch|diff|edits|new_source)$",
                           re.IGNORECASE)
_SECRET_KEYS = re.compile(r"(token|password|passwd|secret|api_?key|authorization|credential|private_?key|cookie)",
                          re.IGNORECASE)
# A tool's name says what it does with the paths it is given.
_WRITES = re.compile(r"(write|edit|create|put|save|upload|append|patch|replace|insert|update|move|rename|copy|mkdir"
                     r"|push|commit|set|store)", re.IGNORECASE)
_DELETES = re.compile(r"(delete|remove|(^|[_.:-])rm($|[_.:-])|unlink|trash|destroy)", re.IGNORECASE)
_BRANCH_TOOLS = re.compile(r"(push|merge|delete|remove|update|commit|force|reset|write|put|upload|rewrite)",
                           re.IGNORECASE)
_MERGE_TOOLS = re.compile(r"merge", re.IGNORECASE)
_BRANCH_KEYS = re.compile(r"^(branch|branch_name|ref|refs|head|target_branch|base_branch)$", re.IGNORECASE)
_DEFAULT_BRANCHES = frozenset({"main", "master", "trunk", "production", "prod", "release", "default", "HEAD"})
# Keys beside a URL that carry data to it (a body, a form, headers) rather than describe the fetch.
_BODY_KEYS = re.compile(r"^(body|data|json|payload|form|params|fields|headers|files|content|message)$", re.IGNORECASE)
_LOOKS_LIKE_PATH = re.compile(r"^(/|~/|~$|\./|\.\./)|(^|/)\.(ssh|aws|gnupg|netrc|env|kube|docker|config/gh)(/|$|\.)")
MAX_STRINGS = 2_000


def _strings(value: Any, key: str = "", parent: dict[str, Any] | None = None, depth: int = 0
             ) -> list[tuple[str, str, dict[str, Any]]]:
    """Every string in a JSON value with the key it is under (a list's items under the list's key) and the object
    that holds it, depth-first."""
    if depth > 64:
        return []
    if isinstance(value, str):
        return [(key, value, parent or {})]
    if isinstance(value, dict):
        return [found for k, v in value.items() for found in _strings(v, str(k), value, depth + 1)]
    if isinstance(value, list):
        return [found for v in value for found in _strings(v, key, parent, depth + 1)]
    return []


def _objects(value: Any, depth: int = 0) -> list[dict[str, Any]]:
    """Every object in a JSON value, depth-first."""
    if depth > 64:
        return []
    if isinstance(value, dict):
        return [value, *(o for v in value.values() for o in _objects(v, depth + 1))]
    if isinstance(value, list):
        return [o for v in value for o in _objects(v, depth + 1)]
    return []


def assess_tool_input(tool: str, value: Any, cwd: str | None = None) -> Assessment:
    """A tool's input (an MCP tool, a web fetch, a file tool): medium, and every string of it judged. SQL that drops,
    empties or changes every row, a command that would be high, a file written by where it goes, a secret read (keys,
    credentials, .env), a URL (the host named; high when it carries data), a main branch pushed, merged or deleted, a
    secret sent over plain http: each as it would be in a command."""
    found = Assessment(level="medium")
    scope = Scope(found, Folders.of(cwd), Shell())
    shell_tool = _SHELL_TOOLS.search(tool) is not None
    writes = _WRITES.search(tool) is not None
    deletes = _DELETES.search(tool) is not None
    for key, text, holder in _strings(value)[:MAX_STRINGS]:
        if _SQL_TEXT.search(text) or (_SQL_KEYS.search(key) and (_SQL_START.match(text) or not re.search(
                r"quer", key, re.IGNORECASE))):  # a search tool's `query` in words is not SQL
            probe = Assessment(level="low")
            judge_sql("sql", text, Scope(probe, scope.folders, scope.runner))
            if probe.level == "high":
                found.raise_to("high", "tool_sql", clip(tool, 60))
                found.merge(probe)
        if _COMMAND_KEYS.match(key) or (shell_tool and key in ("", "input", "args", "code")):
            found.merge(assess_command(text, cwd))
        if host_of(text) is not None and re.match(r"^[a-z][\w+.-]*://", text, re.IGNORECASE):
            _url(tool, text, holder, found)
        elif _PATH_KEYS.match(key) or _LOOKS_LIKE_PATH.search(text):
            _path(text, holder, scope, writes=writes or any(_CONTENT_KEYS.match(k) for k in holder), deletes=deletes)
        if _BRANCH_KEYS.match(key) and _BRANCH_TOOLS.search(tool) and re.sub(r"^refs/heads/", "", text) in \
                _DEFAULT_BRANCHES:
            branch = re.sub(r"^refs/heads/", "", text)
            shown = f"{clip(tool, 40)}: {branch}"
            if deletes:
                found.raise_to("high", "push_delete", shown)
            elif holder.get("force") is True:
                found.raise_to("high", "force_push", shown)
            else:
                found.raise_to("high", "push_main", shown)
    if _MERGE_TOOLS.search(tool) and not any(_BRANCH_KEYS.match(k) for o in _objects(value) for k in o):
        found.raise_to("high", "push_main", f"{clip(tool, 40)}: the branch it merges into")
    for item in _objects(value)[:MAX_STRINGS]:
        urls = [t for t in item.values() if isinstance(t, str) and t.startswith("http://")]
        secrets = [k for k, v in item.items() if _SECRET_KEYS.search(str(k)) and v]
        for url in urls:
            host = host_of(url)
            if secrets and host is not None and not loopback(host):
                found.raise_to("high", "secret_plain", host)
    found.sort()
    return found


def _url(tool: str, url: str, holder: dict[str, Any], found: Assessment) -> None:
    """A URL the tool reaches: the host named (medium); high when it carries data: a query, credentials in it, a
    body, form or headers beside it, or a method that sends."""
    host = host_of(url)
    if host is None or loopback(host):
        return
    parts = urlsplit(url)
    method = str(holder.get("method", "GET")).upper()
    carries = bool(parts.query) or "@" in parts.netloc or method not in ("GET", "HEAD") or any(
        _BODY_KEYS.match(str(k)) and v not in (None, "", {}, []) for k, v in holder.items()) or bool(
        re.search(r"(post|send|upload|submit|webhook)", tool, re.IGNORECASE))
    if carries:
        found.raise_to("high", "sends_data", host)
    else:
        found.raise_to("medium", "downloads", host)


def _path(text: str, holder: dict[str, Any], scope: Scope, *, writes: bool, deletes: bool) -> None:
    """A path a tool is given: written (by where it goes), deleted, or read (keys, credentials and secrets: high)."""
    normalized = text.replace("\\", "/")
    word = Word(normalized, normalized, False, False)
    if deletes:
        scope.delete(word)
    elif writes:
        scope.write(word)
    place = scope.place(word)
    if place is not None and place.kind == "sensitive" and not normalized.endswith(".pub"):
        if place.category in ("keys", "authorized_keys"):
            scope.raise_to("high", "read_keys", place.shown)
        elif place.category == "secrets":
            scope.raise_to("high", "read_secrets", place.shown)
