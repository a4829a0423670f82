"""Claude Code's settings files: merging LineUp's hooks in and out, and reading and adding permission rules."""

# Only entries whose command carries MARKER are ours: --remove deletes those and leaves every other hook, rule
# and key exactly as it was (a file we created and left empty is deleted).

from __future__ import annotations

import fnmatch
import json
import os
import re
from pathlib import Path
from typing import Any

MARKER = "hook claude-code"

# The tools that ask for permission in Claude Code (what PreToolUse asks about in print mode).
PERMISSION_TOOLS = "Bash|Edit|Write|MultiEdit|NotebookEdit|WebFetch"
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})


def read_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    text = path.read_text()
    if not text.strip():
        return {}
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError(f"{path} does not hold a JSON object.")
    return data


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def hook_entries(command: str, timeout_s: int) -> dict[str, list[dict[str, Any]]]:
    """The hooks LineUp adds, by event: the approval ones wait for the person, the others are quick."""
    def one(matcher: str | None, timeout: int) -> dict[str, Any]:
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": timeout}]}
        if matcher is not None:
            group["matcher"] = matcher
        return group

    return {
        "UserPromptSubmit": [one(None, 15)],
        "PreToolUse": [one(PERMISSION_TOOLS, timeout_s)],
        "PermissionRequest": [one("*", timeout_s)],
        "PostToolUse": [one("*", 15)],
        "Notification": [one(None, 15)],
        "Stop": [one(None, 15)],
        "SessionEnd": [one(None, 15)],
    }


def _is_ours(hook: Any) -> bool:
    return isinstance(hook, dict) and MARKER in str(hook.get("command", ""))


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """The settings with LineUp's hooks taken out (other hooks, and the order of everything, kept)."""
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return settings
    cleaned: dict[str, Any] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            cleaned[event] = groups
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not _is_ours(h)]
                if not inner and group["hooks"]:
                    continue  # the group held only our hook
                kept.append({**group, "hooks": inner})
            else:
                kept.append(group)
        if kept or not groups:
            cleaned[event] = kept
    result = dict(settings)
    if cleaned:
        result["hooks"] = cleaned
    else:
        result.pop("hooks")
    return result


def install(path: Path, command: str, timeout_s: int) -> None:
    """Add LineUp's hooks to the settings file at `path` (replacing an earlier LineUp entry, keeping the rest)."""
    settings = without_ours(read_json(path))
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ValueError(f"`hooks` in {path} is not an object; fix it by hand first.")
    for event, groups in hook_entries(command, timeout_s).items():
        existing = hooks.setdefault(event, [])
        if not isinstance(existing, list):
            raise ValueError(f"`hooks.{event}` in {path} is not a list; fix it by hand first.")
        existing.extend(groups)
    if not path.exists():  # remembered so that --remove deletes a file only LineUp ever wrote
        path.parent.mkdir(parents=True, exist_ok=True)
        path.with_name(path.name + ".lineup-created").write_text("LineUp created the file beside this one.\n")
    write_json(path, settings)


def remove(path: Path) -> bool:
    """Take LineUp's hooks out of the settings file; True if there were any."""
    if not path.exists():
        return False
    before = read_json(path)
    after = without_ours(before)
    if after == before:
        return False
    marker = path.with_name(path.name + ".lineup-created")
    if not after and marker.exists():
        path.unlink()
    else:
        write_json(path, after)
    marker.unlink(missing_ok=True)
    return True


# ---- permission rules (print mode: LineUp decides whether Claude Code would have asked) ----------------------
# Claude Code's rule syntax (code.claude.com/docs/en/permissions): `Tool` or `Tool(content)`, where `\\`, `(` and `)`
# in the content are escaped with a backslash. Read and Edit contents are gitignore-style paths: `//abs` from the
# filesystem root, `~/p` from the home folder, `/p` from the settings file's root (the project, or ~/.claude for the
# user's settings), `p` or `./p` from the current folder; names are compared ignoring case. Only `Edit(...)` rules
# are checked for the tools that change files (a `Write(...)` rule is never consulted).

PATH_TOOLS = frozenset({"Read", "Edit"})
# Characters a gitignore pattern treats as more than themselves; a path with any of them gets no rule of its own.
_GLOB_CHARS = frozenset("*?[]\\{}!#")


def settings_files(project_dir: Path, home: Path) -> list[Path]:
    """The settings files whose permission rules Claude Code applies here: the user's, and the project's own only
    in a trusted workspace."""
    user = [home / ".claude" / "settings.json", home / ".claude" / "settings.local.json"]
    if not trusted(project_dir, home):
        return user
    return [*user, project_dir / ".claude" / "settings.json", local_settings(project_dir)]


def trusted(project_dir: Path, home: Path) -> bool:
    """Whether Claude Code takes the permission rules of the project's own settings files: only in a trusted
    workspace (the folder, or one above it, accepted in its trust dialog: `projects[<path>].hasTrustDialogAccepted`
    in ~/.claude.json; or CLAUDE_CODE_SANDBOXED). In any other folder it drops them ("workspace not yet trusted"),
    so LineUp must not count them either: a cloned repository's `.claude/settings.json` allows nothing."""
    if os.environ.get("CLAUDE_CODE_SANDBOXED", "").strip().lower() in ("1", "true", "yes"):
        return True
    folder = Path(os.environ["CLAUDE_CONFIG_DIR"]) if os.environ.get("CLAUDE_CONFIG_DIR") else home
    try:
        projects = read_json(folder / ".claude.json").get("projects") or {}
    except (OSError, ValueError):
        return False
    if not isinstance(projects, dict):
        return False
    here = Path(os.path.normpath(os.path.abspath(project_dir)))
    for place in (here, *here.parents):
        entry = projects.get(str(place))
        if isinstance(entry, dict) and entry.get("hasTrustDialogAccepted") is True:
            return True
    return False


def local_settings(project_dir: Path) -> Path:
    """Where Claude Code keeps what "allow always" remembers for this project (its `localSettings`)."""
    return project_dir / ".claude" / "settings.local.json"


def _root_of(settings: Path, home: Path) -> Path:
    """What `/p` in a rule is relative to: the project for its settings, ~/.claude for the user's."""
    folder = settings.parent
    return folder if folder == home / ".claude" else folder.parent


def rules(paths: list[Path], kind: str) -> list[str]:
    return [rule for rule, _ in rules_with_roots(paths, kind, Path.home())]


def rules_with_roots(paths: list[Path], kind: str, home: Path) -> list[tuple[str, Path]]:
    """The `kind` ("allow", "deny") rules of the settings files, each with the folder `/p` patterns start from."""
    found: list[tuple[str, Path]] = []
    for path in paths:
        try:
            permissions = read_json(path).get("permissions") or {}
        except (OSError, ValueError):
            continue
        listed = permissions.get(kind) if isinstance(permissions, dict) else None
        if isinstance(listed, list):
            found.extend((r, _root_of(path, home)) for r in listed if isinstance(r, str))
    return found


def escape(content: str) -> str:
    """A rule's content as Claude Code writes it in a settings file."""
    return content.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def unescape(content: str) -> str:
    return content.replace("\\(", "(").replace("\\)", ")").replace("\\\\", "\\")


def rule_text(tool: str, content: str | None) -> str:
    """The rule as a string in a settings file's `permissions.allow`."""
    return tool if content is None else f"{tool}({escape(content)})"


def parse(rule: str) -> tuple[str, str | None]:
    """(tool, content) of a rule string; content None for the whole tool (`Bash`, `Bash()`, `Bash(*)`)."""
    rule = rule.strip()
    if rule.endswith(")") and "(" in rule:
        name, _, content = rule[:-1].partition("(")
        content = unescape(content)
        return name.strip(), (content if content not in ("", "*") else None)
    return rule, None


def _file_of(tool_input: dict[str, Any], cwd: str | None) -> str | None:
    raw = tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path")
    if not isinstance(raw, str) or not raw:
        return None
    if not os.path.isabs(raw):
        if not cwd:
            return None
        raw = os.path.join(cwd, raw)
    return os.path.normpath(raw)


def _path_regex(pattern: str) -> re.Pattern[str]:
    """A gitignore pattern (relative to its root) as a regular expression over a relative POSIX path."""
    anchored = pattern.startswith("/") or "/" in pattern.rstrip("/")
    pattern = pattern.strip("/")
    out = "" if anchored else "(?:.*/)?"
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif c == "*":
            out, i = out + "[^/]*", i + 1
        elif c == "?":
            out, i = out + "[^/]", i + 1
        elif c == "\\" and i + 1 < len(pattern):
            out, i = out + re.escape(pattern[i + 1]), i + 2
        elif c == "[" and "]" in pattern[i + 1:]:
            end = pattern.index("]", i + 1)
            out, i = out + "[" + pattern[i + 1:end].replace("!", "^", 1) + "]", end + 1
        else:
            out, i = out + re.escape(c), i + 1
    return re.compile(out + "(?:/.*)?", re.IGNORECASE | re.DOTALL)  # a folder's pattern covers what is inside


def path_matches(content: str, target: str, root: Path, cwd: str | None, home: Path) -> bool:
    """Whether a Read/Edit rule's path pattern covers the file `target` (absolute), as Claude Code reads it."""
    if content.startswith("//"):
        base, pattern = Path("/"), content[1:]
    elif content.startswith("~/"):
        base, pattern = home, content[1:]
    elif content.startswith("/"):
        base, pattern = root, content
    else:
        base, pattern = Path(cwd or "."), content[2:] if content.startswith("./") else content
    relative = os.path.relpath(target, base)
    if relative == ".." or relative.startswith("../"):
        return False
    return _path_regex(pattern).fullmatch(relative.replace(os.sep, "/")) is not None


def matches(rule: str, tool: str, tool_input: dict[str, Any], *, root: Path | None = None,
            cwd: str | None = None, home: Path | None = None) -> bool:
    """Whether a Claude Code permission rule (`Bash`, `Bash(npm test:*)`, `Edit(//abs/file)`, ...) covers this call
    (`root`: the folder the rule's settings file counts `/p` from)."""
    name, content = parse(rule)
    checked = "Edit" if tool in EDIT_TOOLS and name == "Edit" else tool
    if name != checked:
        return False
    if content is None:
        return True
    if tool == "Bash":
        command = str(tool_input.get("command", "")).strip()
        if content.endswith(":*"):
            return command == content[:-2] or command.startswith(content[:-2] + " ")
        return command == content or ("*" in content and fnmatch.fnmatchcase(command, content))
    if tool == "WebFetch":
        url = str(tool_input.get("url", ""))
        if content.startswith("domain:"):
            from urllib.parse import urlparse
            return (urlparse(url).hostname or "") == content[len("domain:"):]
        return False
    target = _file_of(tool_input, cwd)
    if target is None or name not in PATH_TOOLS:
        return False
    return path_matches(content, target, root or Path(cwd or "."), cwd, home or Path.home())


def rule_for(tool: str, tool_input: dict[str, Any], cwd: str | None = None) -> tuple[str, str] | None:
    """The narrowest rule Claude Code has for exactly this call, as (tool, content), or None when every rule it
    has would allow more than this call: `Bash(<this exact command>)`; `Edit(//<this file>)` for a file change
    (Edit rules cover every tool that edits files); nothing for MCP tools, WebFetch (its narrowest rule is a
    whole site), the others."""
    if tool == "Bash":
        command = str(tool_input.get("command") or "").strip()
        # Claude Code reads `*` in a Bash rule as "anything": the rule would allow more than this command.
        if not command or "*" in command:
            return None
        return "Bash", command
    if tool in EDIT_TOOLS:
        target = _file_of(tool_input, cwd)
        if target is None or any(c in _GLOB_CHARS or ord(c) < 32 or c == "\x7f" for c in target) \
                or any(part != part.strip() for part in target.split("/")):
            return None  # a name gitignore would read as a pattern, or trim: no rule names only this file
        return "Edit", "/" + target
    return None


def add_allow_rule(path: Path, rule: str) -> None:
    settings = read_json(path)
    permissions = settings.setdefault("permissions", {})
    allow = permissions.setdefault("allow", [])
    if rule not in allow:
        allow.append(rule)
    write_json(path, settings)
