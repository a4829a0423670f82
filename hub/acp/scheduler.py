"""Turns one at a time per session: tasks and people's messages become prompts, stop reasons end the task."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import TYPE_CHECKING, Any, Protocol

import acp
from acp.schema import PromptResponse

from hub.acp.attachments import prompt_blocks
from hub.acp.errors import TurnError
from hub.acp.process import wait_event
from hub.acp.sessions import Session
from hub.acp.text import clip, last_line
from hub.acp.turn import Turn
from hub.sdk import HubError, TaskHandle

if TYPE_CHECKING:
    from pathlib import Path

    from hub.acp.config import AcpOptions
    from hub.acp.observer import SessionObserver
    from hub.acp.process import AgentProcess
    from hub.acp.sessions import SessionMap
    from hub.sdk import AgentClient

log = logging.getLogger("lineup.runtimes.acp")

STOP_FAILURES = {
    "refusal": "The agent refused to continue (ACP stop reason `refusal`).",
    "max_tokens": "The agent reached its token limit before it finished (ACP stop reason `max_tokens`).",
    "max_turn_requests": "The agent reached its limit of model requests for one turn "
                         "(ACP stop reason `max_turn_requests`).",
}


def unanswered_message(denied: dict[str, str]) -> str:
    """Why a turn whose requests the agent denied for want of an answer failed: each request and how it ended."""
    listed = "; ".join(f"“{title}”: {reason}" for title, reason in denied.items())
    what, it = ("this request", "it") if len(denied) == 1 else ("these requests", "them")
    return clip(f"Nobody answered in time, so the agent denied {what} and did not run {it}: {listed}", 4000)


# What an ACP bridge answers a prompt with when the service behind it is gone (OpenClaw's `openclaw acp` and its
# Gateway; docs/agents.md "OpenClaw as an ACP preset"). The prompt never left the bridge: after a Gateway restart the
# bridge reconnects only seconds later, and a task sent meanwhile failed ("gateway not connected"). Or it left, and
# the link dropped before the turn's end ("Gateway disconnected: 1006"): what became of it is unknown, and an
# approval it asked may wait in the Gateway with no one relaying it. Either way the bridge is replaced (a fresh one
# connects as it starts, or fails saying the Gateway is down); a prompt that never left is sent again on it, once.
# A session whose turn was cut so is not loaded again (SessionMap.abandon).
NOT_SENT = ("gateway not connected",)
LINK_LOST = ("gateway disconnected",)
CANCEL_TIMEOUT_S = 5.0


def bridge_words(exc: acp.RequestError) -> str:
    """What the bridge said went wrong: the error's `details` (OpenClaw's), else its message."""
    details = exc.data.get("details") if isinstance(exc.data, dict) else exc.data
    return str(details).strip() if details else str(exc)


def bridge_error(exc: acp.RequestError, markers: tuple[str, ...]) -> bool:
    text = f"{exc} {bridge_words(exc)}".lower()
    return any(marker in text for marker in markers)


class SchedulerRuntime(Protocol):
    """What the scheduler uses of its AcpRuntime (runtime.py), which it is made by: named here, so this module does
    not import the runtime back."""

    @property
    def options(self) -> AcpOptions: ...

    @property
    def client(self) -> AgentClient: ...

    @property
    def sessions(self) -> SessionMap: ...

    @property
    def session_cwd(self) -> Path: ...

    @property
    def stopping(self) -> bool: ...

    @property
    def observer(self) -> SessionObserver | None: ...

    async def ensure_agent(self) -> AgentProcess: ...


class TurnScheduler:
    """Queues each session's turns behind its lock, runs one prompt per turn and reports how it ended."""

    def __init__(self, runtime: SchedulerRuntime) -> None:
        self.runtime = runtime
        self.sessions = runtime.sessions
        self.waiting: dict[str, TaskHandle] = {}  # tasks queued behind another turn of their session

    async def prompt(self, session: Session, turn: Turn, text: str,
                     attachments: list[dict[str, Any]] | None = None, *, again: bool = True) -> str:
        """Run one prompt in the session; returns the stop reason. A cancel request sends session/cancel. A bridge
        that lost the service behind it is replaced (`NOT_SENT`, `LINK_LOST`); `again`: a prompt it never sent is
        sent once more, on the new one."""
        runtime = self.runtime
        asked = text
        agent = await runtime.ensure_agent()
        acp_id = await self.sessions.open(agent, session, str(runtime.session_cwd), runtime.options.init_timeout_s)
        if (turn.task is not None and turn.task.cancel_requested.is_set()) or turn.stop.is_set():
            return "cancelled"  # asked to stop before the prompt was sent
        blocks: list[Any] = []
        if attachments:
            blocks, notes = await prompt_blocks(runtime.client, agent.info, attachments)
            text = "\n\n".join([text, *notes]).strip()
        blocks.insert(0, acp.text_block(text or "(files attached)"))
        session.turn = turn
        turn.agent = agent
        retry = False
        observer = runtime.observer
        if observer is not None:
            observer.turn_started(session.key)
        prompt = asyncio.ensure_future(agent.conn.prompt(session_id=acp_id, prompt=blocks))
        cancel = asyncio.ensure_future(turn.task.cancel_requested.wait()) if turn.task is not None else None
        stop = asyncio.ensure_future(turn.stop.wait())
        try:
            await asyncio.wait({f for f in (prompt, cancel, stop) if f is not None},
                               return_when=asyncio.FIRST_COMPLETED)
            if not prompt.done():  # the person asked to stop
                turn.cancelling.set()
                with contextlib.suppress(ConnectionError):
                    await agent.conn.cancel(session_id=acp_id)
                grace_s = runtime.options.cancel_grace_s
                await asyncio.wait({prompt}, timeout=grace_s)
                if not prompt.done():  # the agent ignores the cancel: leave that session behind
                    log.warning("the agent did not end its turn within %s s of session/cancel", grace_s)
                    self.sessions.by_acp_id.pop(acp_id, None)  # its late updates go nowhere
                    session.acp_id = None
                    return "cancelled"
            response: PromptResponse = prompt.result()
            if observer is not None and response.usage is not None:
                observer.usage(session.key, {**response.usage.model_dump(by_alias=True, exclude_none=True,
                                                                          exclude={"field_meta"}), "turn": True})
            return str(response.stop_reason)
        except ConnectionError:
            agent.broken = True
            await wait_event(agent.exited, 2.0)  # for the exit code
            raise TurnError("agent_exited", agent.describe_exit(
                " It is started again for the next task or message.")) from None
        except acp.RequestError as exc:
            if bridge_error(exc, NOT_SENT) and again:
                log.info("the agent's bridge was not connected to its service (%s); starting it again and sending the "
                         "prompt once more", bridge_words(exc))
                agent.broken = True
                retry = True
            elif bridge_error(exc, LINK_LOST):
                # Stop what the service may still run of it (and the approval it may wait on), then a fresh bridge.
                with contextlib.suppress(ConnectionError, acp.RequestError, TimeoutError):
                    async with asyncio.timeout(CANCEL_TIMEOUT_S):
                        await agent.conn.cancel(session_id=acp_id)
                agent.broken = True
                self.sessions.abandon(session)
                hint = runtime.options.unavailable_hint
                raise TurnError("agent_disconnected", "The agent lost its link to the service it runs on while this "
                                f"task ran ({bridge_words(exc)}), so whether it finished is unknown; what it still ran "
                                "there was stopped. Send the task again once the service is back."
                                + (f"\n{hint}" if hint else "")) from None
            else:
                raise TurnError("acp_error", f"The agent answered session/prompt with an error: {exc} "
                                             f"{exc.data or ''}".strip()) from None
        finally:
            for future in (prompt, cancel, stop):
                if future is not None and not future.done():
                    future.cancel()
            session.turn = None
            if observer is not None:
                observer.turn_ended(session.key)
        assert retry
        return await self.prompt(session, turn, asked, attachments, again=False)

    # ---- tasks and messages ----------------------------------------------------------------------------

    async def run_task(self, task: TaskHandle) -> None:
        if task.cancel_requested.is_set():
            return  # cancelled while queued: the hub has ended it already
        key = task.conversation_id or f"task:{task.id}"
        session = self.sessions.get(key)
        self.waiting[task.id] = task
        try:
            async with session.lock:  # one turn at a time per session; the task stays queued meanwhile
                self.waiting.pop(task.id, None)
                if task.cancel_requested.is_set() or self.runtime.stopping:
                    return
                try:
                    await task.accept()
                except HubError as exc:
                    log.info("task %s not accepted: %s", task.id, exc)
                    return
                await self._run_turn(session, task)
        finally:
            self.waiting.pop(task.id, None)
            if task.conversation_id is None:
                self.sessions.forget(session)

    async def _run_turn(self, session: Session, task: TaskHandle) -> None:
        turn = Turn(self.runtime, task, task.conversation_id)
        text = task.title if not task.description else f"{task.title}\n\n{task.description}"
        try:
            stop_reason = await self.prompt(session, turn, text)
        except TurnError as exc:
            await self._close(session, turn, succeeded=False)
            self._failed(session, exc)
            if self.runtime.stopping:
                return  # reported by stop()
            if task.cancel_requested.is_set():
                await _report(task, task.cancelled("Stopped on request"))
            else:
                await _report(task, task.fail(exc.code, clip(exc.message, 4000)))
            return
        except Exception as exc:
            log.exception("the ACP turn of task %s failed", task.id)
            await self._close(session, turn, succeeded=False)
            await _report(task, task.fail("runtime_error", clip(f"{type(exc).__name__}: {exc}", 4000)))
            return
        await self._close(session, turn, succeeded=stop_reason == "end_turn" and not turn.unanswered)
        if stop_reason == "end_turn" and turn.unanswered:
            # The agent ended its turn after denying, by itself, what nobody answered in time (Hermes after 60 s):
            # what the task asked for was not done, so it is not shown as succeeded.
            await _report(task, task.fail("approval_timed_out", unanswered_message(turn.unanswered)))
        elif stop_reason == "end_turn":
            await _report(task, task.succeed(last_line(turn.text) or "Finished"))
        elif stop_reason == "cancelled":
            # Without a cancel request it was the agent's own choice: codex-acp ends the turn this way when the
            # person picks "No, and tell Codex what to do differently".
            await _report(task, task.cancelled("Stopped on request" if task.cancel_requested.is_set() else
                                         "The agent stopped this turn by itself (ACP stop reason `cancelled`), "
                                         "as some agents do after a refused permission"))
        else:
            await _report(task, task.fail(stop_reason, STOP_FAILURES.get(stop_reason,
                                                                    f"The agent stopped: {stop_reason}.")))
        await self._notes(session, turn)

    def _failed(self, session: Session, error: TurnError) -> None:
        observer = self.runtime.observer
        if observer is not None and not self.runtime.stopping:
            observer.turn_failed(session.key, error)

    async def _close(self, session: Session, turn: Turn, succeeded: bool) -> None:
        await turn.close(succeeded)
        if turn.text:  # what the agent said last: its history ends with it (see replay.py)
            self.sessions.remember_reply(session, turn.text)

    async def on_message(self, envelope: dict[str, Any]) -> None:
        """A person's message in a conversation: a prompt in that conversation's session, the reply streamed."""
        payload = envelope.get("payload") or {}
        conversation_id = envelope.get("conversationId")
        if not conversation_id or (payload.get("author") or {}).get("kind") != "user":
            return
        text = payload.get("content") or ""
        attachments = [a for a in payload.get("attachments") or [] if isinstance(a, dict)]
        if not text.strip() and not attachments:
            return
        message_id = payload.get("messageId")
        task_id = envelope.get("taskId")
        reply_task_id = task_id if task_id in self.runtime.client.tasks else None  # only a timeline of our own task
        session = self.sessions.get(conversation_id)
        async with session.lock:
            if message_id in self.sessions.prompted:
                return  # delivered again after a crash: it was prompted (and most likely answered) before
            if isinstance(message_id, str):
                self.sessions.prompted.append(message_id)
                self.sessions.save()
            turn = Turn(self.runtime, None, conversation_id, reply_task_id)
            try:
                stop_reason = await self.prompt(session, turn, text, attachments)
            except TurnError as exc:
                await self._close(session, turn, succeeded=False)
                self._failed(session, exc)
                if not self.runtime.stopping:
                    await self._say(conversation_id, reply_task_id, f"I could not answer ({exc.code}): {exc.message}")
                return
            await self._close(session, turn, succeeded=True)
            if stop_reason not in ("end_turn", "cancelled"):
                await self._say(conversation_id, reply_task_id,
                                STOP_FAILURES.get(stop_reason, f"The agent stopped: {stop_reason}."))
            await self._notes(session, turn)

    async def _notes(self, session: Session, turn: Turn) -> None:
        """The notes the person added to answers during the turn, each the session's next prompt (still under its
        lock: before any message that waits), its reply shown as a message's is. ACP's permission answer has no
        field for a note (the card says `notes: next_message`)."""
        notes = turn.notes
        while notes and not self.runtime.stopping:
            follow = Turn(self.runtime, None, turn.conversation_id, None if turn.task is not None
                          else turn.reply_task_id)
            try:
                stop_reason = await self.prompt(session, follow, notes.pop(0))
            except TurnError as exc:
                await self._close(session, follow, succeeded=False)
                self._failed(session, exc)
                if turn.conversation_id is not None and not self.runtime.stopping:
                    await self._say(turn.conversation_id, follow.reply_task_id,
                                    f"Your note could not be passed on ({exc.code}): {exc.message}")
                return
            await self._close(session, follow, succeeded=True)
            if stop_reason not in ("end_turn", "cancelled") and turn.conversation_id is not None:
                await self._say(turn.conversation_id, follow.reply_task_id,
                                STOP_FAILURES.get(stop_reason, f"The agent stopped: {stop_reason}."))
            notes.extend(follow.notes)

    async def _say(self, conversation_id: str, task_id: str | None, text: str) -> None:
        try:
            await self.runtime.client.send("message.create", {"content": clip(text, 8000),
                                                              "messageId": f"msg_{uuid.uuid4().hex}"},
                                           conversationId=conversation_id, taskId=task_id)
        except HubError as exc:
            log.warning("could not post in %s: %s", conversation_id, exc)

    async def report_stopped(self) -> None:
        """On stop: running tasks fail, queued ones are cancelled (nothing would start them after a restart)."""
        for session in list(self.sessions.by_key.values()):
            turn = session.turn
            if turn is not None and turn.task is not None:
                try:  # the session ends with the process: say so instead of leaving the task running
                    async with asyncio.timeout(2.0):
                        await turn.task.fail("runtime_stopped", "The hub stopped while the agent "
                                                                "was working; the ACP session ended with it.")
                except (TimeoutError, HubError) as exc:
                    log.info("could not report task %s as stopped: %s", turn.task.id, exc)
        for task in list(self.waiting.values()):  # not started: nothing would start them after a restart
            try:
                async with asyncio.timeout(2.0):
                    await task.cancelled("The hub stopped before the agent could start this task; "
                                         "create it again.")
            except (TimeoutError, HubError) as exc:
                log.info("could not report task %s as not started: %s", task.id, exc)


async def _report(task: TaskHandle, finishing: Any) -> None:
    """Finish a task; the hub may have ended it already (a cancel while waiting for the person). Any other refusal
    is raised: the SDK then fails the task with it (handler_error) rather than leave it running."""
    try:
        await finishing
    except HubError as exc:
        if not task.finished:
            raise
        log.info("the task's end was not recorded: %s", exc)
