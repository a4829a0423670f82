"""What a notification says: composed from a stored event, with no raw details unless opted in
(docs/design.md#no-raw-details-outside-the-hub)."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from typing import Any

from hub.domain.visible import mark
from hub.notify import outside
from hub.protocol.envelope import new_id
from hub.store.events import StoredEvent
from hub.store.queries import notifications, tasks
from hub.store.queries.records import TaskRecord


def kind_of(event: StoredEvent) -> str | None:
    """Which rule an event falls under, if any (hub/notify/config.py KINDS)."""
    if event.type == "interaction.requested":
        return "waiting_for_me"
    if event.type == "task.status_changed" and event.payload.get("status") in ("failed", "succeeded"):
        return str(event.payload["status"])
    if event.type == "agent.status_changed" and event.payload.get("status") == "offline" \
            and event.payload.get("reason") not in ("hub_restarted", "revoked", "signed_off"):
        return "agent_offline"
    if event.type == "message.created" and event.payload.get("attention") is True \
            and event.actor.startswith("agent:"):
        return "agent_waiting"
    return None


def one_line(text: str) -> str:
    """A name or title as one line: control characters and line separators become spaces.

    Agents choose their names and the titles of their questions; a title or subject carries them into mail
    headers and push titles, where a CR/LF would end the header (mail composition refuses it, silently dropping
    the notification) or start another one.
    """
    return "".join(" " if unicodedata.category(ch) in ("Cc", "Zl", "Zp") else ch for ch in text)


def shown(text: str) -> str:
    """One line with every character a person cannot see as a visible mark (`⟨U+2067⟩`): a direction-changing
    character in an agent's title would otherwise reorder the notification's text (hub/domain/visible.py)."""
    return mark(one_line(text))


def _agent_name(conn: sqlite3.Connection, agent_id: str | None) -> str:
    name = notifications.agent_name(conn, agent_id) if agent_id else None
    return shown(name) if name is not None else "An agent"


def _approval(spec: dict[str, Any], include_details: bool) -> dict[str, Any]:
    """What a channel needs to offer buttons by the rule (hub/notify/outside.py): each option marked (`approves`:
    it says yes; `remembers`: "always" or "for this session"), whether the approval carries what it approves, the
    buttons it may offer (Deny always among them) and, when none says yes, where to approve. Without
    `include_details`, the options of an approval that carries items are named without words that may quote them
    (outside.plain_label)."""
    risk = spec.get("risk", "medium")
    plain = outside.carries_items(spec) and not include_details

    def label(text: str, says_yes: bool, remembers: bool) -> str:
        return shown(outside.plain_label(text, says_yes, remembers) if plain else text)

    options = []
    for o in spec.get("options", []):
        says_yes, remembers = outside.approves(spec, {"optionId": o["id"]}), outside.remembers(o)
        options.append({**{k: o[k] for k in ("id", "style") if k in o},
                        "label": label(str(o.get("label") or o["id"]), says_yes, remembers),
                        "approves": says_yes, "remembers": remembers})
    note: dict[str, Any] = {
        "options": options, "carriesItems": outside.carries_items(spec), "itemKinds": outside.item_kinds(spec),
        "buttons": [{**b, "label": label(b["label"], b["approves"], False)} for b in outside.buttons(spec, risk)]}
    approve_in_app = outside.approve_in_app(spec, risk)
    if approve_in_app is not None:
        note["approveInApp"] = approve_in_app
    return note


def _task(conn: sqlite3.Connection, workspace_id: str | None, task_id: str | None) -> TaskRecord | None:
    # An event without a workspace has no task to show (`workspace_id = NULL` matches no row): no read needed.
    if not task_id or workspace_id is None:
        return None
    return tasks.task(conn, task_id, workspace_id)


def compose(conn: sqlite3.Connection, event: StoredEvent, kind: str, base_url: str,
            include_details: bool) -> tuple[str, dict[str, Any]]:
    """(subject key, notification) for one event. The subject key makes a notification happen once; it names
    the workspace, as interaction and task ids are unique only within one."""
    task = _task(conn, event.workspace_id, event.task_id)
    note: dict[str, Any] = {"id": new_id("ntf"), "kind": kind, "workspaceId": event.workspace_id,
                            "taskId": event.task_id, "sequence": event.sequence, "createdAt": event.recorded_at}
    link = f"{base_url}/#/tasks/{event.task_id}" if event.task_id else f"{base_url}/#/inbox"
    if kind == "waiting_for_me":
        spec = event.payload["interaction"]
        agent = _agent_name(conn, event.actor.partition(":")[2])
        # An approval that carries items is named by their kinds: its title is the source's and may hold a command
        # ("Claude wants to run: …"), whose secrets must not reach a topic others may read.
        said = f"{agent} wants to {shown(outside.wants(spec))}" if outside.carries_items(spec) \
            and not include_details else shown(spec["title"])
        note.update(title=f"{agent} needs your decision", body=said, risk=spec.get("risk", "medium"),
                    agent=agent, interactionId=spec["id"], interactionType=spec["type"], options=[])
        if spec["type"] == "approval":  # a channel offers only `buttons` (docs/notifications.md#ntfy-buttons)
            note.update(_approval(spec, include_details))
        if task is not None:
            note["body"] = f"{note['body']} — task: {shown(task.title)}"
        if include_details:
            note["details"] = {k: spec[k] for k in ("description", "impact", "details") if spec.get(k)}
        note["link"] = link
        return f"waiting_for_me:{event.workspace_id}:{spec['id']}", note
    if kind in ("failed", "succeeded"):
        agent = _agent_name(conn, task.agent_id if task is not None else None)
        title = shown(task.title if task is not None else str(event.task_id))
        error = event.payload.get("error") or {}
        note.update(title=f"Task {'failed' if kind == 'failed' else 'done'}: {title}", agent=agent, link=link,
                    body=f"{agent}: {shown(str(error.get('code', 'failed')))}" if kind == "failed"
                    else f"{agent} finished it.")
        if include_details and error.get("message"):
            note["details"] = {"error": error.get("message")}
        return f"{kind}:{event.workspace_id}:{event.task_id}", note
    if kind == "agent_waiting":  # the message is the agent's own words (a line such as "Claude is waiting…")
        agent = _agent_name(conn, event.actor.partition(":")[2])
        note.update(title=f"{agent} is waiting for you", agent=agent, link=link,
                    body=shown(str(event.payload.get("content") or "")[:300]))
        if task is not None:
            note["body"] = f"{note['body']} — task: {shown(task.title)}"
        return f"agent_waiting:{event.workspace_id}:{event.payload['messageId']}", note
    agent_id = event.payload["agentId"]
    agent = _agent_name(conn, agent_id)
    running = notifications.open_task_count_of_agent(conn, agent_id)
    note.update(title=f"{agent} went offline", agent=agent, link=f"{base_url}/#/agents",
                body=f"{running} running task(s) wait for it to come back." if running else "No task was running.")
    return f"agent_offline:{agent_id}:{event.sequence}", note


def as_json(note: dict[str, Any]) -> str:
    return json.dumps(note, ensure_ascii=False, sort_keys=True)
