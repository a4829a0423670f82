"""One message from a person: a LineUp envelope takes the socket path; text answers a question or chats."""

from __future__ import annotations

import functools
import json
import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from hub.domain.collaboration import command_for
from hub.domain.visible import mark
from hub.protocol import payloads as P
from hub.protocol.actors import Actor
from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, decode_envelope, now_iso, system_frame
from hub.protocol.errors import LapError
from hub.relay import textreply, wire
from hub.relay.config import Person
from hub.relay.outbound import ANSWER_PREFIX, client_msg_no
from hub.relay.transport import Inbound
from hub.store.events import read_workspace_after
from hub.store.queries import conversations
from hub.store.queries import relay as store
from hub.store.queries.records import RelayQuestionRecord
from hub.store.writer import Command, Tx

if TYPE_CHECKING:
    from hub.ports import HubCore
    from hub.tools.registry import ToolRegistry

    class RelayHub(HubCore, Protocol):
        """What the relay uses of the hub: the core, the handlers of what an app may send, the tools offered."""

        @property
        def handlers(self) -> dict[str, dict[str, Any]]: ...

        @property
        def tools(self) -> ToolRegistry: ...

log = logging.getLogger("lineup.relay")
NOT_TEXT = "Only text reaches the agents here. / 这里只能发送文字。"
NO_LAP = ("LineUp app messages are not accepted from this account: the hub serves it as plain IM text only "
          "(`lap = false` in its [relay] people). Nothing was done. / 此账号只收发文字（lap = false），"
          "LineUp 应用消息未被接受。")
TEXT_OFF = ("IM text is off for this account: its LineUp app seals what the relay carries, and text would not be "
            "sealed. Nothing was done; use the LineUp app, or ask the hub's owner to set text = true for you. "
            "/ 此账号的文字消息已关闭（LineUp 应用的内容是加密的），未做任何操作，请使用 LineUp 应用。")
RESUME_BATCH = 50  # envelopes per replay message (WuKongIM messages stay well under the SDK's 1 MiB frames)


def control(op: str, **fields: Any) -> dict[str, Any]:
    return {"type": wire.CONTROL, "op": op, **fields}


@dataclass
class Handled:
    outcome: str
    replies: list[tuple[dict[str, Any], bool, bool]] = field(default_factory=list)   # (payload, red dot, no persist)

    def say(self, content: str) -> Handled:
        self.replies.append((wire.text(content), True, False))
        return self

    def answer(self, type_: str, payload: dict[str, Any], workspace_id: str, correlation_id: str | None) -> Handled:
        frame = json.loads(system_frame(type_, payload, workspace_id=workspace_id, correlation_id=correlation_id))
        self.replies.append((wire.lap(frame), False, False))
        return self


class PendingConfirmations:
    """High-risk approvals given by text, waiting for "confirm N" (textreply.CONFIRM_WINDOW_S). Kept in memory
    only: after a restart the person is asked to choose again, which fails safe (nothing is approved)."""

    def __init__(self, window_s: float = textreply.CONFIRM_WINDOW_S) -> None:
        self.window_s = window_s
        self._waiting: dict[tuple[str, int], tuple[str, dict[str, Any], float]] = {}

    def ask(self, person: str, number: int, interaction_id: str, response: dict[str, Any]) -> None:
        now = time.monotonic()
        self._waiting = {k: v for k, v in self._waiting.items() if v[2] > now}  # bounded by the open questions
        self._waiting[(person, number)] = (interaction_id, response, now + self.window_s)

    def take(self, person: str, number: int, interaction_id: str | None) -> dict[str, Any] | None:
        """The response waiting for this confirmation, once; None if there is none, it expired, or the number
        now names another interaction."""
        waiting = self._waiting.pop((person, number), None)
        if waiting is None or waiting[2] <= time.monotonic() or waiting[0] != interaction_id:
            return None
        return waiting[1]


class InboundHandler:
    def __init__(self, hub: RelayHub, tag: str) -> None:
        self.hub = hub
        self.tag = tag
        self._confirmations = PendingConfirmations()

    async def handle(self, person: Person, actor: Actor, message: Inbound) -> bool:
        """Handle a message once (by its WuKongIM message id); False when it was handled before."""
        if await self.hub.read(lambda c: store.seen(c, message.message_id)):
            return False
        kind = wire.content_type(message.payload)
        payload = message.payload or {}
        if kind in (wire.LAP, wire.CONTROL) and not person.lap:
            # lap = false: this uid gets text only, so it may not act as the LineUp app either (no envelope runs,
            # no replay of the workspace is sent); said in text, the only kind it reads.
            log.warning("relay: refused a LineUp %s message from %s (lap = false)",
                        "envelope" if kind == wire.LAP else "control", person.uid)
            handled = Handled("forbidden").say(NO_LAP)
        elif kind == wire.LAP:
            handled = await self._envelope(actor, payload.get("envelope"))
        elif kind == wire.TEXT and not person.text:
            # Text is not sealed: with it off (by default for a person whose app seals), a text in their name is
            # not acted on, whoever sent it through WuKongIM.
            handled = Handled("text_off").say(TEXT_OFF)
        elif kind == wire.TEXT and isinstance(payload.get("content"), str):
            handled = await self._text(person, actor, message, payload["content"])
        elif kind == wire.CONTROL and payload.get("op") == "request":
            from hub.relay.requests import for_hub  # the app's HTTP reads, answered by the hub's own routes
            handled = Handled(for_hub(self.hub, self.tag).accept(person, actor, message.message_id, payload))
        elif kind == wire.CONTROL and payload.get("op") == "resume":
            handled = await self._resume(actor, payload.get("lastSequence"))
        elif kind is None or kind == wire.CMD or kind >= 1000:
            handled = Handled("ignored")  # system notices, commands, LineUp control: nothing to answer
        else:
            handled = Handled("unsupported").say(NOT_TEXT)
        return await self._record(person, message, handled)

    async def _record(self, person: Person, message: Inbound, handled: Handled) -> bool:
        def run(tx: Tx) -> bool:
            if not store.record_inbound(tx, message.message_id, person.uid, message.message_seq, handled.outcome):
                return False
            for index, (payload, red_dot, no_persist) in enumerate(handled.replies):
                store.enqueue(tx, person.uid, client_msg_no(self.tag, person.uid, "r", message.message_id, index),
                              payload, red_dot=red_dot, no_persist=no_persist)
            return True
        return bool(await self.hub.execute(Command(run=run)))

    # ---- LineUp envelopes: the same checks, idempotency and answers as /ws/app (hub/gateway/sockets.py) ----

    async def _envelope(self, actor: Actor, data: Any) -> Handled:
        ws = actor.workspace_id
        if not isinstance(data, dict):
            return Handled("invalid").answer("system.error", LapError(
                "invalid_envelope", "A LineUp message carries `envelope`: one LAP/0.1 envelope.").as_payload(None),
                ws, None)
        try:
            env = decode_envelope(json.dumps(data))
        except LapError as exc:
            guess = data.get("id") if isinstance(data.get("id"), str) else None
            return Handled(exc.code).answer("system.error", exc.as_payload(guess), ws, None)
        if env.type == "system.ping":
            return Handled("ping").answer("system.pong", {}, ws, env.id)
        try:
            if env.workspaceId != ws:
                raise LapError("forbidden", "The envelope names another workspace than yours.",
                               hint=f"Set workspaceId to {ws!r}.")
            handler = self.hub.handlers["app"].get(env.type)
            if handler is None:
                if env.type in P.HANDSHAKES:
                    raise LapError("invalid_envelope", "No hello over the relay: the hub knows who you are.")
                if env.type in P.AGENT_INBOUND:
                    raise LapError("forbidden", f"{env.type} is sent by agents, not by apps.")
                return Handled("unknown_type").answer("system.ack", {"id": env.id, "sequence": None,
                                                                     "duplicate": False, "warning": "unknown_type"},
                                                      ws, None)
            parsed = P.parse_payload(P.APP_INBOUND[env.type], env.payload)
            if env.type == "tool.list" and parsed.tools is None:
                tools = await self.hub.read(lambda c: self.hub.tools.offered_to(c, ws, "app"))
                return (Handled("tool.list").answer("system.ack", {"id": env.id, "sequence": None,
                                                                   "duplicate": False}, ws, None)
                        .answer("tool.list", {"tools": tools}, ws, env.id))
        except LapError as exc:
            return Handled(exc.code).answer("system.error", exc.as_payload(env.id), ws, None)
        outcome = await self.hub.writer.execute(command_for(actor, env, handler, parsed))
        if outcome.error is not None:
            return Handled(outcome.error.code).answer("system.error", outcome.error.as_payload(env.id), ws, None)
        return Handled("ack").answer("system.ack", {"id": env.id, "sequence": outcome.sequence,
                                                    "duplicate": outcome.duplicate}, ws, None)

    # ---- control: the LineUp app catching up ------------------------------------------------------------

    async def _resume(self, actor: Actor, last_sequence: Any) -> Handled:
        """Every event of the workspace after `lastSequence`, in batches, then `caught_up` (like /ws/app resume).
        Not stored by WuKongIM (noPersist): an app that misses part of it asks again."""
        handled = Handled("resume")
        cursor = last_sequence if type(last_sequence) is int and last_sequence >= 0 else 0
        head = self.hub.writer.head
        while cursor < head:
            page = await self.hub.read_replay(
                functools.partial(read_workspace_after, workspace_id=actor.workspace_id, after=cursor, upto=head,
                                  limit=RESUME_BATCH))
            if not page:
                break
            handled.replies.append((control("replay", events=[e.as_dict() for e in page]), False, True))
            cursor = page[-1].sequence
        handled.replies.append((control("caught_up", sequence=head, epoch=self.hub.epoch), False, True))
        return handled

    # ---- plain text ------------------------------------------------------------------------------------

    async def _execute(self, actor: Actor, message: Inbound, type_: str, payload: dict[str, Any],
                       conversation_id: str | None = None) -> LapError | None:
        env = Envelope(id=f"{ANSWER_PREFIX}{message.message_id}", type=type_, version=PROTOCOL_VERSION,
                       occurredAt=now_iso(), payload=payload, workspaceId=actor.workspace_id,
                       conversationId=conversation_id)
        parsed = P.parse_payload(P.APP_INBOUND[type_], payload)
        outcome = await self.hub.writer.execute(command_for(actor, env, self.hub.handlers["app"][type_], parsed))
        if outcome.error is not None and outcome.error.code != "conflict":  # conflict: handled before a crash
            return outcome.error
        return None

    async def _text(self, person: Person, actor: Actor, message: Inbound, text: str) -> Handled:
        """Only an explicit reply answers a question (textreply.parse); anything else is chat, and while questions
        are open the person is told how to answer. A high-risk approval waits for "confirm N"."""
        form = textreply.read(text)
        if form.confirm is not None:
            return await self._confirm(person, actor, message, form.confirm)
        questions = await self.hub.read(lambda c: store.open_questions(c, person.uid, actor.workspace_id))
        several = len(questions) > 1
        if form.number is not None:
            number = form.number
            target = await self.hub.read(lambda c: store.question(c, person.uid, actor.workspace_id, number))
            # "3 approve" names question 3 only when "approve" answers it; "#3 …" always names it.
            if form.explicit or (target is not None and json.loads(target.spec)["type"] != "input"
                                 and textreply.answers(textreply.parse(json.loads(target.spec), form.rest))):
                if target is None:
                    return Handled("no_such_question").say(
                        f"There is no question #{number}. / 没有 #{number} 这个问题。")
                if target.status != "pending":
                    return Handled("already_closed").say(
                        f"#{number} is already {target.status}. / #{number} 已经结束（{target.status}）。")
                return await self._answer(person, actor, message, target, form.rest, several=several)
        readable = [q for q in questions if json.loads(q.spec)["type"] != "input"
                    and self._is_answer_like(textreply.parse(json.loads(q.spec), text))]
        if len(questions) == 1 and readable:  # "1", "approve", "3" (out of range: said why, not sent as chat)
            return await self._answer(person, actor, message, questions[0], text, several=False)
        if readable:
            listing = "\n".join(f"#{q.number} {mark(q.title)}" for q in questions)
            return Handled("ambiguous").say(
                f"Several questions are open:\n{listing}\nReply like “#{questions[-1].number} 1”. "
                f"/ 有多个问题待回答，请带上编号回复。")
        handled = await self._chat(person, actor, message, text)
        if questions:
            handled.say(self._reminder(questions, delivered=handled.outcome == "chat"))
        return handled

    @staticmethod
    def _is_answer_like(reply: textreply.Reply) -> bool:
        """An answer, a yes given only in the app, or a number out of range (said why rather than sent to the agent
        as chat)."""
        return textreply.answers(reply) or reply.problem == "out_of_range"

    @staticmethod
    def _reminder(questions: list[RelayQuestionRecord], *, delivered: bool) -> str:
        """Said after a chat message while questions are open: it did not answer them, and how to."""
        several = len(questions) > 1
        lines = ["(I could not read that as an answer, so it went to the agent as a message. "
                 "/ 没看懂这个回答，已作为消息发给智能体。)" if delivered else
                 "(I could not read that as an answer. / 没看懂这个回答。)"]
        for q in questions[-3:]:
            lines.append(f"#{q.number} {mark(q.title)}: "
                         + textreply.how_to_answer(json.loads(q.spec), q.number, several))
        return "\n".join(lines)

    async def _answer(self, person: Person, actor: Actor, message: Inbound, question: RelayQuestionRecord, text: str, *,
                      several: bool) -> Handled:
        spec = json.loads(question.spec)
        number = question.number
        reply = textreply.parse(spec, text)
        if reply.problem == "in_the_app":  # a yes to an approval that carries a command, a file change, a tool's input
            return Handled("only_in_the_app").say(textreply.in_the_app(spec, number))
        if reply.response is None:
            return Handled("asked_again").say(
                f"#{number} {textreply.title_of(spec)}: I could not read that as an answer. / 没看懂这个回答。\n"
                + textreply.how_to_answer(spec, number, several))
        if textreply.needs_confirmation(spec, reply.response):
            self._confirmations.ask(person.uid, number, question.id, reply.response)
            return Handled("confirm_asked").say(textreply.ask_to_confirm(spec, number, reply.response["optionId"]))
        return await self._respond(actor, message, question, spec, reply.response, several=several)

    async def _confirm(self, person: Person, actor: Actor, message: Inbound, number: int) -> Handled:
        """The second step of a high-risk approval by text: "confirm N" within the window, for what was chosen."""
        target = await self.hub.read(lambda c: store.question(c, person.uid, actor.workspace_id, number))
        response = self._confirmations.take(person.uid, number, target.id if target is not None else None)
        if target is not None and target.status != "pending":
            return Handled("already_closed").say(
                f"#{number} is already {target.status}. / #{number} 已经结束（{target.status}）。")
        if target is None or response is None:
            return Handled("nothing_to_confirm").say(
                f"Nothing to confirm for #{number}: first reply with your choice, e.g. “#{number} approve”. "
                f"/ #{number} 没有待确认的批准，请先回复选择。")
        return await self._respond(actor, message, target, json.loads(target.spec), response, several=False)

    async def _respond(self, actor: Actor, message: Inbound, question: RelayQuestionRecord, spec: dict[str, Any],
                       response: dict[str, Any], *, several: bool) -> Handled:
        number = question.number
        if textreply.not_by_text(spec, response):  # never let through, whatever path led here
            return Handled("only_in_the_app").say(textreply.in_the_app(spec, number))
        error = await self._execute(actor, message, "interaction.respond",
                                    {"interactionId": question.id, "response": response})
        if error is None:
            return Handled("answer")  # the confirmation comes from the stored interaction.resolved (outbound.py)
        again = "\n" + textreply.how_to_answer(spec, number, several) if error.code == "invalid_payload" else ""
        title = textreply.title_of(spec)
        return Handled(error.code).say(f"#{number} {title}: {error.message} {error.hint or ''}".rstrip() + again)

    async def _chat(self, person: Person, actor: Actor, message: Inbound, text: str) -> Handled:
        def conversation(c: Any) -> str | None:
            row = store.person_row(c, person.uid)
            if row is not None and row.conversation_id:
                return row.conversation_id
            latest = conversations.recent_conversations(c, actor.workspace_id, 1)
            return latest[0].id if latest else None
        conversation_id = await self.hub.read(conversation)
        if conversation_id is None:
            return Handled("no_conversation").say(
                "No conversation with an agent yet: start one in LineUp, or wait for an agent to write. "
                "/ 还没有与智能体的会话。")
        error = await self._execute(actor, message, "message.create", {"content": text}, conversation_id)
        if error is not None:
            return Handled(error.code).say(f"Not delivered: {error.message} {error.hint or ''}".rstrip())
        return Handled("chat")
