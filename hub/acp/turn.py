"""One prompt's turn: session updates become the streamed reply, plan children and tool-call progress."""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp.schema import (
    AgentMessageChunk,
    AgentPlanUpdate,
    PermissionOption,
    PlanEntry,
    RequestPermissionResponse,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
)

from hub.acp.activity import ToolCall, ToolCalls, block
from hub.acp.permission import TooLarge, answer, approval_card, cancelled
from hub.acp.text import clip, content_text, plain_title
from hub.sdk import ChildTask, HubError, MessageStream, Outcome, TaskHandle, activity, stable_id

if TYPE_CHECKING:
    from hub.acp.config import AcpOptions
    from hub.acp.process import AgentProcess
    from hub.sdk import AgentClient

log = logging.getLogger("lineup.runtimes.acp")

WITHDRAW_TIMEOUT_S = 5.0  # a card withdrawn after the turn moved on: waited for at most this long
PROCESS_ENDED = ("The agent's process ended before the answer, so it can no longer act on it: it will ask again if "
                 "it still needs this.")
MAX_NOTE_CHARS = 8000
PLAN_STATUS = {"pending": "queued", "in_progress": "running", "completed": "succeeded"}
CHILD_ORDER = {"queued": 0, "running": 1, "succeeded": 2}


class TurnRuntime(Protocol):
    """What a turn uses of its AcpRuntime (runtime.py): named here, so this module does not import the runtime
    back (the package's imports run one way: runtime → scheduler → turn)."""

    @property
    def options(self) -> AcpOptions: ...

    @property
    def client(self) -> AgentClient: ...

    @property
    def session_cwd(self) -> Path: ...

    @property
    def stopping(self) -> bool: ...


class Turn:
    """One prompt and everything the agent sends during it, reported to the hub in the order it arrived."""

    def __init__(self, runtime: TurnRuntime, task: TaskHandle | None, conversation_id: str | None,
                 reply_task_id: str | None = None) -> None:
        self.runtime = runtime
        self.task = task
        self.conversation_id = conversation_id
        self.reply_task_id = task.id if task is not None else reply_task_id
        self.lock = asyncio.Lock()        # FIFO: notifications are handled concurrently by the ACP library
        self.cancelling = asyncio.Event()  # session/cancel sent: pending permission requests answer cancelled
        self.stop = asyncio.Event()       # the person asked to stop this turn (a message's turn: no task to cancel)
        self.stream: MessageStream | None = None
        self.message_key: str | None = None
        self.text = ""                    # the reply so far (the tail, when nothing is streamed)
        self.shown = 0                    # characters streamed, against max_reply_chars
        self.cut = False
        self.children: dict[str, ChildTask] = {}
        self.tools: dict[str, str] = {}   # tool call id → title
        # Each tool call as the agent reported it: told as a message of its own, between the text before and after
        # it (hub/acp/activity.py); a call the person denied on its card shows as denied.
        self.calls = ToolCalls()
        self.denied: set[str] = set()
        # Permission requests still on a card, by tool call id: set when the agent went on without the answer (the
        # tool call finished or failed, the turn ended), e.g. Hermes denying by itself after 60 s.
        self.gave_up: dict[str, asyncio.Event] = {}
        self.failed_tools: set[str] = set()  # tool calls the agent reported failed while their card waited
        # What the agent denied by itself because nobody answered in time (its own deadline, Hermes's 60 s): the
        # task did not do what it was asked, so it does not end as succeeded (scheduler.py). Title -> the reason.
        self.unanswered: dict[str, str] = {}
        self.asking: set[asyncio.Task[Any]] = set()  # permission requests on a card now (their handlers' tasks)
        self.agent: AgentProcess | None = None  # the process the prompt went to (set by the scheduler)
        # Notes the person added to an answer: ACP's answer has no field for them, so each becomes the session's
        # next prompt once this turn is over (scheduler.py).
        self.notes: list[str] = []

    async def update(self, update: Any) -> None:
        async with self.lock:
            try:
                await self._update(update)
            except HubError as exc:  # one refused report must not end the turn
                log.warning("reporting an ACP %s update failed: %s", type(update).__name__, exc)

    async def _update(self, update: Any) -> None:
        if isinstance(update, AgentMessageChunk):
            if update.message_id and self.message_key and update.message_id != self.message_key:
                await self._close_stream()  # a new message starts
            self.message_key = update.message_id or self.message_key
            await self._write(content_text(update.content))
        elif isinstance(update, AgentPlanUpdate):
            await self._plan(update.entries)
        elif isinstance(update, ToolCallStart):
            self.tools[update.tool_call_id] = update.title
            await self._close_stream()  # text after the tool call is a message of its own, below the call
            call = self.calls.seen(update)
            await self._progress(f"Tool: {plain_title(update.title)}")
            if self.calls.ended(call):
                await self._tell(call)
        elif isinstance(update, ToolCallProgress):
            if update.status in ("completed", "failed") and update.tool_call_id in self.gave_up:
                if update.status == "failed":  # denied without the answer (Hermes and its own timeout)
                    self.failed_tools.add(update.tool_call_id)
                self.gave_up[update.tool_call_id].set()  # its card can no longer decide anything
            title = self.tools[update.tool_call_id] = update.title or self.tools.get(update.tool_call_id, "tool call")
            if update.status == "completed":
                await self._progress(f"Done: {plain_title(title)}")
            elif update.status == "failed":
                await self._progress(f"Failed: {plain_title(title)}")
            call = self.calls.seen(update)
            if self.calls.ended(call):
                await self._close_stream()
                await self._tell(call)
        # thoughts, replayed user chunks, commands, modes, usage: not shown

    async def _write(self, text: str) -> None:
        if not text:
            return
        limit = self.runtime.options.max_reply_chars
        if self.conversation_id is None:
            self.text = (self.text + text)[-4000:]
            return
        self.text = (self.text + text)[-limit:]
        if self.cut:
            return
        if self.stream is None:
            self.stream = MessageStream(self.runtime.client, self.conversation_id, self.reply_task_id)
        room = limit - self.shown
        self.shown += len(text)
        await self.stream.write(text[:room])
        if len(text) > room:
            self.cut = True
            await self.stream.write(f"\n\n[reply cut after {limit} characters]")

    async def _close_stream(self, marks: list[dict[str, Any]] | None = None) -> None:
        """The text streamed so far stored as one message (`marks`: blocks it carries, e.g. that Stop cut it)."""
        stream, self.stream, self.message_key = self.stream, None, None
        if self.text and not self.text.endswith("\n"):
            self.text += "\n"  # the next segment starts a line of its own in the turn's text (the task's summary)
        if stream is None:
            return
        if not marks or not stream.text or stream.said_before:
            await stream.__aexit__(None, None, None)
            return
        try:
            await self.runtime.client.send("message.create", {"content": stream.text, "messageId": stream.message_id,
                                                              "blocks": marks},
                                           conversationId=stream.conversation_id, taskId=stream.task_id,
                                           id=f"create-{stream.message_id}")
        except HubError as exc:
            if exc.code != "conflict":
                raise

    async def _tell(self, call: ToolCall, status: str | None = None) -> None:
        """One tool call as a message in the conversation: a line of words and its tool block."""
        call.reported = True
        if self.conversation_id is None:
            return
        if call.tool_call_id in self.denied and status is None and call.status == "failed":
            status = "denied"
        payload = activity.message(block(call, str(self.runtime.session_cwd), status))
        payload["messageId"] = f"msg_{uuid.uuid4().hex}"
        await self.runtime.client.send("message.create", payload, conversationId=self.conversation_id,
                                       taskId=self.reply_task_id)

    async def _progress(self, summary: str | None = None, percent: int | None = None) -> None:
        if self.task is not None:
            await self.task.progress(percent, clip(summary, 2000) if summary else None)

    async def _plan(self, entries: list[PlanEntry]) -> None:
        if self.task is None or not entries:
            return
        for entry in entries:
            status = PLAN_STATUS.get(entry.status, "queued")
            child = self.children.get(entry.content)
            if child is None:
                title = clip(entry.content.strip() or "Plan step", 500)
                self.children[entry.content] = await self.task.child(title, status=status)
            else:
                await _advance(child, status)
        done = sum(1 for e in entries if e.status == "completed")
        current = next((e.content for e in entries if e.status == "in_progress"), None)
        summary = f"Plan: {done} of {len(entries)} done" + (f"; now: {clip(current, 300)}" if current else "")
        await self._progress(summary, done * 100 // len(entries))

    async def ask_permission(self, tool_call: ToolCallUpdate,
                             options: list[PermissionOption]) -> RequestPermissionResponse:
        if self.cancelling.is_set():
            return cancelled()
        async with self.lock:  # what the agent said before it asked is a message above the card
            try:
                await self._close_stream()
            except HubError as exc:
                log.warning("storing the message before a permission request failed: %s", exc)
        title = plain_title(tool_call.title or self.tools.get(tool_call.tool_call_id) or "") or "a tool call"
        try:
            interaction, choices = approval_card(title, tool_call, options, str(self.runtime.session_cwd))
        except TooLarge as exc:
            await self._say(f"The agent asked to run something of {exc.size:,} characters: too long to show whole on "
                            "a card, so it was not offered for approval and the agent was told no.")
            return cancelled()
        interaction["id"] = self.task.question_id(interaction) if self.task is not None \
            else f"int_{stable_id(self.conversation_id, 'permission', tool_call.tool_call_id)}"
        timeout_s = self.runtime.options.permission_timeout_s
        if timeout_s is not None:
            # The agent denies by itself at its deadline and tells the client nothing (Hermes): the card shows the
            # deadline from the start and is withdrawn a moment before it, saying why.
            deadline = datetime.now(UTC) + timedelta(seconds=timeout_s)
            interaction["expiresAt"] = deadline.isoformat(timespec="seconds").replace("+00:00", "Z")
        if self.task is not None:
            asking = asyncio.ensure_future(self.task.ask(interaction))
        else:
            asking = asyncio.ensure_future(self.runtime.client.ask(interaction, conversation_id=self.conversation_id))
        stop = asyncio.ensure_future(self.cancelling.wait())
        gave_up = self.gave_up.setdefault(tool_call.tool_call_id, asyncio.Event())
        moved_on = asyncio.ensure_future(gave_up.wait())
        current = asyncio.current_task()
        if current is not None:
            self.asking.add(current)
        reasons = ["The agent stopped waiting for this answer and went on."]
        ran_out_at: list[bool] = []
        timer: asyncio.TimerHandle | None = None
        if timeout_s is not None:
            def ran_out() -> None:
                reasons[0] = f"The agent stops waiting after {timeout_s:g} s and denies by itself: this card ran out."
                ran_out_at.append(True)
                gave_up.set()
            timer = asyncio.get_running_loop().call_later(max(0.0, timeout_s - 1.0), ran_out)
        try:
            await asyncio.wait({asking, stop, moved_on}, return_when=asyncio.FIRST_COMPLETED)
            if not asking.done():
                if ran_out_at or tool_call.tool_call_id in self.failed_tools:
                    self.unanswered[title] = reasons[0] if ran_out_at else \
                        "The agent stopped waiting for the answer and denied it by itself."
                await self._withdraw(interaction["id"], reasons[0] if gave_up.is_set()
                                     else "The turn was cancelled before anyone answered.")
                return cancelled()
            outcome: Outcome = asking.result()
        except asyncio.CancelledError:
            # The agent stopped waiting (it cancelled the request, gave up on its own timeout, or its process ended):
            # the card ends. When the runtime stops (the hub stops, a session ends), its driver withdraws what was
            # left (the session host at End; hub/runtimes/orphans.py at the next start): the hub's socket may be gone.
            if not self.runtime.stopping:
                agent = self.agent
                gone = agent is not None and not agent.alive
                if not gone and not self.cancelling.is_set():  # it gave up on the request: denied unanswered
                    self.unanswered[title] = reasons[0] if ran_out_at else \
                        "The agent stopped waiting for the answer and denied it by itself."
                await asyncio.shield(self._withdraw(interaction["id"], PROCESS_ENDED if gone
                                                    else "The agent stopped waiting for this answer."))
            raise
        except HubError as exc:  # e.g. the task ended meanwhile
            log.info("the permission request could not be asked: %s", exc)
            return cancelled()
        finally:
            if timer is not None:
                timer.cancel()
            self.gave_up.pop(tool_call.tool_call_id, None)
            self.failed_tools.discard(tool_call.tool_call_id)
            if current is not None:
                self.asking.discard(current)
            for future in (asking, stop, moved_on):
                if not future.done():
                    future.cancel()
        self._keep_note(interaction, title, outcome)
        if not outcome.approved:
            self.denied.add(tool_call.tool_call_id)
        if outcome.approved:
            self.unanswered.pop(title, None)  # asked again and allowed: what was denied before ran after all
        return answer(choices, outcome)

    def _keep_note(self, interaction: dict[str, Any], title: str, outcome: Outcome) -> None:
        """A note the person wrote with the answer, kept for the next prompt (unless the card said it is not sent)."""
        comment = outcome.response.get("comment")
        if not isinstance(comment, str) or not comment.strip() or interaction.get("notes") == "not_sent":
            return
        chosen = outcome.option_label or ("declined" if outcome.outcome == "declined" else outcome.outcome)
        self.notes.append(clip(f"My note on your request “{title}” (I answered: {chosen}):\n\n{comment.strip()}",
                               MAX_NOTE_CHARS))

    async def _withdraw(self, interaction_id: str, reason: str) -> None:
        try:  # bounded: while the hub stops, the agent's socket is gone and nothing would answer
            async with asyncio.timeout(WITHDRAW_TIMEOUT_S):
                await self.runtime.client.withdraw(interaction_id, reason)
        except (HubError, TimeoutError) as exc:
            log.info("withdrawing %s failed: %s", interaction_id, exc or "no answer in time")

    async def _say(self, text: str) -> None:
        if self.conversation_id is not None:
            await self.runtime.client.send("message.create", {"content": text, "attention": True},
                                           conversationId=self.conversation_id, taskId=self.reply_task_id)

    async def close(self, succeeded: bool) -> None:
        """Store the streamed reply and settle the plan's children (unfinished ones are cancelled); a permission
        card still waiting once the turn is over is withdrawn (the agent went on without the answer)."""
        for event in list(self.gave_up.values()):
            event.set()
        if self.asking:  # their cards end first, and what each says counts for how the task ends (`unanswered`)
            await asyncio.wait(set(self.asking), timeout=WITHDRAW_TIMEOUT_S + 1)
        async with self.lock:
            try:
                stopped = self.cancelling.is_set()  # the person's Stop cut the turn short
                cut = self.stream is not None and bool(self.stream.text)
                await self._close_stream([activity.stopped_block()] if stopped else None)
                open_calls = self.calls.left_open()
                for call in open_calls:
                    await self._tell(call, "stopped" if stopped else "unfinished")
                if stopped and not cut and not open_calls and self.conversation_id is not None:
                    await self.runtime.client.send("message.create", {
                        "content": "Stopped.", "blocks": [activity.stopped_block(alone=True)],
                        "messageId": f"msg_{uuid.uuid4().hex}"},
                        conversationId=self.conversation_id, taskId=self.reply_task_id)
                for child in self.children.values():
                    if child.status != "succeeded":
                        await child.set_status("cancelled", "Not finished when the task ended"
                                               if succeeded else "The task ended before this step")
            except HubError as exc:
                log.warning("closing the turn failed: %s", exc)


async def _advance(child: ChildTask, status: str) -> None:
    """Move a plan child forward only (queued → running → succeeded); the hub allows no shortcut."""
    if CHILD_ORDER.get(status, 0) <= CHILD_ORDER.get(child.status, 0):
        return
    if child.status == "queued" and status == "succeeded":
        await child.set_status("running")
    await child.set_status(status)

