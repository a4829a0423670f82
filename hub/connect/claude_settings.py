"""Claude Code's settings files: merging LineUp's hooks in and out, and reading and adding permission rules."""

# Only entries whose command carries MARKER are ours: --remove deletes those and leaves every other hook, rule
# and key exactly as it was (a file we created and left empty is deleted).

from __future__ import annotations

import fnmatch
import json
import os
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

def settings_files(project_dir: Path, home: Path) -> list[Path]:
    return [home / ".claude" / "settings.json", home / ".claude" / "settings.local.json",
            project_dir / ".claude" / "settings.json", project_dir / ".claude" / "settings.local.json"]


def rules(paths: list[Path], kind: str) -> list[str]:
    found: list[str] = []
    for path in paths:
        try:
            permissions = read_json(path).get("permissions") or {}
        except (OSError, ValueError):
            continue
        listed = permissions.get(kind) if isinstance(permissions, dict) else None
        if isinstance(listed, list):
            found.extend(r for r in listed if isinstance(r, str))
    return found


def _parse(rule: str) -> tuple[str, str | None]:
    rule = rule.strip()
    if rule.endswith(")") and "(" in rule:
        name, _, content = rule[:-1].partition("(")
        return name.strip(), content
    return rule, None


def matches(rule: str, tool: str, tool_input: dict[str, Any]) -> bool:
    """Whether a Claude Code permission rule (`Bash`, `Bash(npm test:*)`, `Edit(src/**)`, ...) covers this call."""
    name, content = _parse(rule)
    if name != tool:
        return False
    if content is None or content in ("", "*"):
        return True
    if tool == "Bash":
        command = str(tool_input.get("command", "")).strip()
        if content.endswith(":*"):
            return command == content[:-2] or command.startswith(content[:-2] + " ") \
                or command.startswith(content[:-2])
        return command == content or ("*" in content and fnmatch.fnmatchcase(command, content))
    if tool == "WebFetch":
        url = str(tool_input.get("url", ""))
        if content.startswith("domain:"):
            from urllib.parse import urlparse
            return (urlparse(url).hostname or "") == content[len("domain:"):]
        return url == content
    target = str(tool_input.get("file_path") or tool_input.get("notebook_path") or tool_input.get("path") or "")
    return bool(target) and (fnmatch.fnmatchcase(target, content) or fnmatch.fnmatchcase(target, "*/" + content)
                             or target.endswith("/" + content.lstrip("/")))


def rule_for(tool: str, tool_input: dict[str, Any]) -> str:
    """The rule "allow always" adds in print mode: this exact command, this site, or the tool."""
    if tool == "Bash" and tool_input.get("command"):
        return f"Bash({tool_input['command']})"
    if tool == "WebFetch" and tool_input.get("url"):
        from urllib.parse import urlparse
        host = urlparse(str(tool_input["url"])).hostname
        if host:
            return f"WebFetch(domain:{host})"
    return tool


def add_allow_rule(path: Path, rule: str) -> None:
    settings = read_json(path)
    permissions = settings.setdefault("permissions", {})
    allow = permissions.setdefault("allow", [])
    if rule not in allow:
        allow.append(rule)
    write_json(path, settings)
