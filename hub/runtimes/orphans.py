"""What an agent the hub runs left open when its process ended with the hub: questions and streamed messages.

Its process is gone (the hub stopped or crashed), so a question it asked can never reach it and an answer would
change nothing: each is withdrawn everywhere, saying so, and an answer to it is refused with those words. A message
it was streaming would show as unfinished for ever: it is finished with the text the hub stored and a note. The
supervisor does this for `[[agents]]` of the acp runtime and the session host for the agents of sessions, at start,
before anything runs again (docs/sessions.md "Stop, End, and a restart").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING

from hub.domain.collaboration import interaction_withdraw, message_create
from hub.protocol import payloads as P
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, new_id, now_iso
from hub.protocol.errors import LapError
from hub.store.queries import agents as agent_rows
from hub.store.queries import conversations as conversation_rows
from hub.store.queries import interactions as interaction_rows
from hub.store.queries.records import MessageRecord
from hub.store.writer import Command

if TYPE_CHECKING:
    from hub.ports import HubCore

RESTARTED = ("The agent restarted before the answer, so it can no longer act on it: it will ask again if it still "
             "needs this")
CUT_OFF = "\n\n[Cut off: the agent restarted before it finished this message.]"
MESSAGES_LOOKED_AT = 50          # per conversation, the newest: a message still streaming is among them
MAX_CONTENT = 256 * 1024


def _envelope(type_: str, payload: dict[str, object], workspace_id: str, conversation_id: str | None) -> Envelope:
    return Envelope(id=new_id("evt"), type=type_, version=PROTOCOL_VERSION, occurredAt=now_iso(), payload=payload,
                    workspaceId=workspace_id, conversationId=conversation_id)


async def withdraw(hub: HubCore, agent_id: str, workspace_id: str, interaction_id: str, reason: str) -> bool:
    """Withdraw one question as the agent that asked it (as its `interaction.withdraw` would); False when it had
    ended already."""
    actor = Actor("agent", agent_id, workspace_id)
    env = _envelope("interaction.withdraw", {"interactionId": interaction_id, "reason": reason[:500]},
                    workspace_id, None)
    parsed = P.parse_payload(P.InteractionWithdraw, env.payload)
    try:
        await hub.execute(Command(run=lambda tx: interaction_withdraw(tx, actor, env, parsed)))
    except LapError as exc:
        if exc.code in ("already_resolved", "not_found"):
            return False
        raise
    return True


async def withdraw_pending(hub: HubCore, agent_id: str, reason: str = RESTARTED) -> set[str]:
    """Every question of the agent still waiting for an answer, withdrawn; the conversations they were asked in."""
    agent = await hub.read(lambda c: agent_rows.agent_by_id(c, agent_id))
    if agent is None:
        return set()
    workspace_id = agent.workspace_id
    pending = await hub.read(lambda c: interaction_rows.pending_of_agent(c, agent_id, workspace_id))
    conversations: set[str] = set()
    for interaction in pending:
        await withdraw(hub, agent_id, workspace_id, interaction.id, reason)
        if interaction.conversation_id:
            conversations.add(interaction.conversation_id)
    return conversations


async def finish_streams(hub: HubCore, agent_id: str, workspace_id: str, conversation_ids: set[str],
                         note: str = CUT_OFF) -> list[str]:
    """The agent's messages still streaming in these conversations, finished with the text stored so far and
    `note`; their ids."""
    actor = Actor("agent", agent_id, workspace_id)
    finished = []
    for conversation_id in sorted(conversation_ids):
        recent = await hub.read(_recent(conversation_id, workspace_id))
        for message in recent:
            if message.state != "streaming" or message.author_id != agent_id:
                continue
            payload: dict[str, object] = {"messageId": message.id,
                                          "content": message.content[:MAX_CONTENT - len(note)] + note}
            env = _envelope("message.create", payload, workspace_id, conversation_id)
            try:
                await hub.execute(_finish(actor, env))
            except LapError:
                continue  # finished meanwhile, or its conversation is gone
            finished.append(message.id)
    return finished


def _recent(conversation_id: str, workspace_id: str) -> Callable[[sqlite3.Connection], list[MessageRecord]]:
    def read(conn: sqlite3.Connection) -> list[MessageRecord]:
        return conversation_rows.messages_before(conn, conversation_id, workspace_id, 2**62, MESSAGES_LOOKED_AT)
    return read


def _finish(actor: Actor, env: Envelope) -> Command:
    parsed = P.parse_payload(P.MessageCreate, env.payload)
    return Command(run=lambda tx: message_create(tx, actor, env, parsed))
