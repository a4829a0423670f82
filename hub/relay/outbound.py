"""What a stored event becomes for one person: a LineUp envelope message and, when it concerns them, IM text."""

from __future__ import annotations

import json

from hub.relay import textreply, wire
from hub.relay.config import Person
from hub.store.events import StoredEvent
from hub.store.queries import agents, interactions, tasks
from hub.store.queries import relay as store
from hub.store.writer import Tx

ANSWER_PREFIX = "rly-"   # envelope ids of answers and chat that arrived as IM text: `rly-<WuKongIM message id>`
FINISHED = {"succeeded": "✅", "failed": "❌", "cancelled": "⏹"}


def client_msg_no(tag: str, person: str, *parts: object) -> str:
    """A clientMsgNo derived from what the message carries, so re-deriving it finds the same one."""
    return "-".join([tag, person, *map(str, parts)])


def compose(tx: Tx, tag: str, person: Person, event: StoredEvent) -> None:
    """Queue what `event` means for `person` (called in the writer, with the cursor moved in the same step)."""
    if person.lap:
        store.enqueue(tx, person.uid, client_msg_no(tag, person.uid, event.sequence, "l"), wire.lap(event.as_dict()),
                      red_dot=False, event_sequence=event.sequence)
    if person.text:
        content = text_for(tx, person, event)
        if content:
            store.enqueue(tx, person.uid, client_msg_no(tag, person.uid, event.sequence, "t"), wire.text(content),
                          red_dot=True, event_sequence=event.sequence)


def _agent_name(tx: Tx, agent_id: str) -> str:
    row = agents.agent_by_id(tx.conn, agent_id)
    return row.name if row else "agent"


def text_for(tx: Tx, person: Person, event: StoredEvent) -> str | None:
    """The IM text for the events a person cares about: agent messages, questions, answers, task results."""
    payload = event.payload
    if event.type == "message.created" and payload.get("author", {}).get("kind") == "agent":
        if event.conversation_id:
            store.set_conversation(tx, person.uid, event.conversation_id)
        body = payload.get("content") or "[rich content: open LineUp to see it / 请在 LineUp 中查看]"
        return f"{_agent_name(tx, payload['author']['id'])}: {body}"
    if event.type == "interaction.requested":
        spec = payload["interaction"]
        number = store.open_question(tx, person.uid, spec["id"])
        several = len(store.open_questions(tx.conn, person.uid, event.workspace_id or "")) > 1
        if event.conversation_id:
            store.set_conversation(tx, person.uid, event.conversation_id)
        return textreply.render_question(spec, number, several)
    if event.type in ("interaction.resolved", "interaction.expired"):
        closed = store.close_question(tx, person.uid, payload["interactionId"])
        interaction = interactions.interaction(tx.conn, payload["interactionId"], event.workspace_id or "")
        if closed is None or interaction is None:
            return None
        spec = json.loads(interaction.spec)
        outcome = "expired" if event.type == "interaction.expired" else payload.get("outcome", "answered")
        answer = textreply.describe_answer(spec, payload.get("response"), outcome)
        if event.id.startswith(ANSWER_PREFIX):
            return f"✓ #{closed} {textreply.title_of(spec)}: {answer} — recorded / 已记录"
        return f"#{closed} {textreply.title_of(spec)}: {answer} (answered elsewhere / 已在别处回答)"
    if event.type == "task.status_changed" and payload.get("status") in FINISHED:
        task = tasks.task(tx.conn, event.task_id or "", event.workspace_id or "")
        title = task.title if task else event.task_id
        status = payload["status"]
        detail = payload.get("summary") or (payload.get("error") or {}).get("message") or ""
        return f"{FINISHED[status]} “{title}” {status}" + (f": {detail}" if detail else "")
    return None
