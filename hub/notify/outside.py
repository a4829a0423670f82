"""What may be answered outside the app (a notification's button, an action link, an IM reply), and what only in it.

The rule (docs/notifications.md#what-a-notification-may-answer): an approval that carries what it approves (a
command, a file change, a tool's input, a commit) is approved only in the app, where all of it is shown; an option
that answers for more than this once ("Allow always", "for this session") is chosen only in the app; a high-risk
question is approved only in the app, which asks twice. Declining is always possible, in one tap or one reply.
"""

from __future__ import annotations

import re
from typing import Any

from hub.domain.approvals import stored_items
from hub.domain.interactions import check_response
from hub.protocol.errors import LapError

# Words of an option's id or label that make it answer for more than this one time: ACP's `allow_always` (and the
# hub's `allow_session`, hub/acp/permission.py), Claude Code's `allow_always`, Hermes's `session` and `always`,
# OpenClaw's `allow-always`. The id decides for every source LineUp knows; the label is a second net only.
REMEMBER_WORDS = frozenset({"always", "session", "sessions", "forever", "permanent", "permanently", "persist",
                            "persistent", "remember", "future", "allowlist", "whitelist"})
REMEMBER_MARKS = ("总是", "始终", "永久", "一直", "会话", "以后", "记住")
# How a notification names what it would approve, by item kind.
WHAT = {"command": "what it would run", "write": "what it would write", "edit": "the change",
        "tool": "the tool's input", "commit": "what it would commit"}
DECLINE = {"label": "Decline", "response": {"declined": True}}


def _words(text: str) -> set[str]:
    """`allowAlways`, `allow-always`, `allow_always`, `Allow always` → {"allow", "always"}."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    return {word for word in re.split(r"[^0-9a-z]+", spaced.casefold()) if word}


def remembers(option: dict[str, Any]) -> bool:
    """An option that answers for more than this once ("always", "for this session"): its id or its label says so."""
    label = str(option.get("label") or "")
    return bool(REMEMBER_WORDS & (_words(str(option.get("id") or "")) | _words(label))) \
        or any(mark in label for mark in REMEMBER_MARKS)


def declines(option: dict[str, Any]) -> bool:
    """An option that says no: `reject`, or of style `danger` (hub/domain/interactions.py `check_response`)."""
    return option.get("id") == "reject" or option.get("style") == "danger"


def approves(spec: dict[str, Any], response: dict[str, Any]) -> bool:
    """Whether `response` would say yes to the question: anything but declining it. An answer the question would
    refuse counts as approving: it is never let through where a yes is not."""
    try:
        outcome, _ = check_response(spec, response)
    except LapError:
        return True
    return outcome != "declined"


def carries_items(spec: dict[str, Any]) -> bool:
    """An approval that carries what it approves: items in `approves`, or a tool's input in `details.input` (where
    the hooks and the ACP runtime put it before `approves` took tools)."""
    if spec.get("type") != "approval":
        return False
    details = spec.get("details")
    return bool(stored_items(spec)) or (isinstance(details, dict) and "input" in details)


def item_kinds(spec: dict[str, Any]) -> list[str]:
    """The kinds of what the approval carries, each once, in order (`tool` for a `details.input`)."""
    kinds: list[str] = []
    for item in stored_items(spec):
        kind = str(item.get("kind"))
        if kind not in kinds:
            kinds.append(kind)
    return kinds or (["tool"] if carries_items(spec) else [])


TOOL_NAME = re.compile(r"[A-Za-z0-9_.:/@-]{1,80}")  # a tool's name as tools are named (mcp__postgres__execute_sql)


def wants(spec: dict[str, Any]) -> str:
    """What an approval that carries items asks, by their kinds and never their text: "run a command", "change 2
    files", "use mcp__postgres__execute_sql", "commit 3 files", joined ("run a command and change a file"). A tool is
    named only when its name is a plain identifier (an ACP agent may name it with the call's own words)."""
    items = stored_items(spec)
    commands = sum(1 for item in items if item.get("kind") == "command")
    paths = list(dict.fromkeys(str(item.get("path")) for item in items if item.get("kind") in ("write", "edit")))
    tools = list(dict.fromkeys(str(item.get("tool") or "") for item in items if item.get("kind") == "tool"))
    committed = [len(item.get("files") or []) for item in items if item.get("kind") == "commit"]
    parts: list[str] = []
    if commands:
        parts.append("run a command" if commands == 1 else f"run {commands} commands")
    if paths:
        parts.append("change a file" if len(paths) == 1 else f"change {len(paths)} files")
    named = [name for name in tools if TOOL_NAME.fullmatch(name)]
    if tools:
        if len(named) == len(tools) and len(named) <= 3:
            parts.append("use " + " and ".join(named))
        else:
            parts.append("use a tool" if len(tools) == 1 else f"use {len(tools)} tools")
    for count in committed:
        parts.append(f"commit {count} file{'s' if count != 1 else ''}")
    if not parts:  # a tool's input in `details.input` (cards sent before `approves` took tools)
        parts.append("use a tool")
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def plain_label(label: str, option_approves: bool, option_remembers: bool) -> str:
    """An option's label as a notification of an approval that carries items shows it without `include_details`: as
    the agent wrote it, unless it may quote what is approved (a `code span`, as Codex's "don't ask again for commands
    that start with `npm run`", or longer than a button's words): then what the option does."""
    if "`" not in label and len(label) <= 40:
        return label
    if not option_approves:
        return "Deny"
    return "Allow, and remember a rule (the app shows it)" if option_remembers else "Allow"


def _option(spec: dict[str, Any], response: dict[str, Any]) -> dict[str, Any] | None:
    option_id = response.get("optionId")
    return next((o for o in spec.get("options", []) if o.get("id") == option_id), None)


def why_not(spec: dict[str, Any], risk: str | None, response: dict[str, Any]) -> str | None:
    """Why `response` may not be given outside the app, or None: `remembers` (an "always"/"session" option),
    `items` (a yes to an approval that carries what it approves), `high_risk` (a yes to a high-risk question)."""
    option = _option(spec, response) if spec.get("type") == "approval" else None
    if option is not None and remembers(option):
        return "remembers"
    if not approves(spec, response):
        return None
    if carries_items(spec):
        return "items"
    if risk == "high":
        return "high_risk"
    return None


def decline_button(spec: dict[str, Any]) -> dict[str, Any]:
    """The Deny every approval's notification offers: the question's own declining option (one that declines this
    once, never "always"), else a "Decline" that answers `{"declined": true}`."""
    for option in spec.get("options", []):
        if declines(option) and not remembers(option):
            return {"label": str(option.get("label") or option["id"]), "response": {"optionId": option["id"]}}
    return dict(DECLINE)


def buttons(spec: dict[str, Any], risk: str | None) -> list[dict[str, Any]]:
    """The answers a notification of this question may offer as buttons: for an approval, at most one yes (an
    option of style primary or none, never "always", and only where `why_not` allows it), then its Deny. Other
    questions get none: they are answered in the app."""
    if spec.get("type") != "approval":
        return []
    found: list[dict[str, Any]] = []
    for option in spec.get("options", []):
        response = {"optionId": option["id"]}
        if option.get("style") in (None, "primary") and approves(spec, response) \
                and why_not(spec, risk, response) is None:
            found.append({"label": str(option.get("label") or option["id"]), "response": response, "approves": True})
            break
    return [*found, {**decline_button(spec), "approves": False}]


def approve_in_app(spec: dict[str, Any], risk: str | None) -> str | None:
    """What a notification says when it offers no yes: where to approve, and for what."""
    if carries_items(spec):
        what = [WHAT.get(kind, "what it approves") for kind in item_kinds(spec)]
        said = what[0] if len(what) == 1 else ", ".join(what[:-1]) + " and " + what[-1]
        return ("High risk. " if risk == "high" else "") + f"Open LineUp to see {said} and approve there."
    if spec.get("type") == "approval" and risk == "high":
        return "High risk: open LineUp to approve."
    if not any(button["approves"] for button in buttons(spec, risk)) and spec.get("type") == "approval":
        return "Open LineUp to approve."  # its only yes is an "always" option, or of style secondary
    return None
