"""The LineUp side of one MCP session: its conversation and task, progress, steps, messages, artifacts, the end."""

# The session opens one conversation (the person sees it in the app under the client's name and folder) and, on
# the first call that needs one, a task in it that this agent creates and accepts. Every id is minted and saved
# before its envelope goes out, with an envelope id derived from it, so a restarted server re-sends rather than
# duplicates.

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from hub.mcp.state import SessionState
from hub.protocol.envelope import new_id
from hub.protocol.vocabulary import TERMINAL_TASK_STATUSES
from hub.sdk import AgentClient, HubError

log = logging.getLogger("lineup.mcp")

TERMINAL = TERMINAL_TASK_STATUSES  # the protocol's finished statuses (hub/protocol/vocabulary.py)
GONE = ("not_found", "illegal_transition", "forbidden")  # the hub no longer has our task as a running one


class Session:
    def __init__(self, client: AgentClient, state: SessionState, label: Callable[[], str]) -> None:
        self.client = client
        self.state = state
        self.label = label
        self.inbox: list[dict[str, Any]] = []   # the person's messages in this conversation, not yet handed on
        self.told_cancelled: set[str] = set()
        self.replay_floor = 0  # events up to this sequence were handled before a restart (Bridge.rewind)
        self._lock = asyncio.Lock()
        client.on("task.cancel_requested")(self._on_cancel_requested)
        client.on("message.delivered")(self._on_message)

    # ---- the conversation and the task -----------------------------------------------------------------

    async def conversation(self) -> str:
        state = self.state
        if state.conversation_id is None:
            state.begin_conversation(new_id("conv"), self.label())
        assert state.conversation_id is not None
        if not state.conversation_ready:
            await self.client.send("conversation.create", {"title": state.conversation_title},
                                   id=f"mcp-{state.conversation_id}", conversationId=state.conversation_id)
            state.conversation_ready = True
            state.save()
        return state.conversation_id

    async def task(self, title: str | None = None) -> str:
        """The session's task, created and accepted on first use (the title is the first call's, or the label)."""
        async with self._lock:
            try:
                return await self._ensure_task(title)
            except HubError as exc:
                if exc.code != "not_found":
                    raise
                # The hub no longer knows our conversation (its data was reset): start both afresh.
                self.state.conversation_id = self.state.task_id = None
                return await self._ensure_task(title)

    async def _ensure_task(self, title: str | None) -> str:
        state = self.state
        conversation_id = await self.conversation()
        if state.task_id is None:
            state.begin_task(new_id("task"), title or self.label())
        assert state.task_id is not None
        if not state.ready:
            fields = {"taskId": state.task_id, "conversationId": conversation_id}
            await self.client.send("task.create", {"title": state.title}, id=f"mcp-{state.task_id}", **fields)
            await self.client.send("task.accepted", {}, id=f"mcp-accept-{state.task_id}", **fields)
            state.ready = True
            state.save()
        return state.task_id

    def forget_task(self, why: str) -> None:
        log.info("the session's task %s is over (%s); the next call starts a new one", self.state.task_id, why)
        self.state.end_task("ended", why)

    async def _send_on_task(self, type_: str, payload: dict[str, Any], task_id: str | None = None) -> dict[str, Any]:
        return await self.client.send(type_, payload, taskId=task_id or self.state.task_id,
                                      conversationId=self.state.conversation_id)

    # ---- what the tools do -----------------------------------------------------------------------------

    async def progress(self, percent: int | None, summary: str | None) -> None:
        payload: dict[str, Any] = {}
        if percent is not None:
            payload["progress"] = percent
        if summary:
            payload["summary"] = summary
        if payload:
            await self._send_on_task("task.status_changed", payload)

    async def steps(self, steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Create or move the child task of each step (by title); returns every step's id and status."""
        assert self.state.task_id is not None
        for step in steps:
            title, status, summary = step["title"], step["status"], step.get("summary")
            child = self.state.children.get(title)
            if child is None:
                child = self.state.children[title] = {"id": new_id("task"), "status": status}
                self.state.save()
                payload: dict[str, Any] = {"parentTaskId": self.state.task_id, "title": title, "status": status,
                                           "taskId": child["id"]}
                await self.client.send("task.child_created", payload, id=f"mcp-{child['id']}",
                                       taskId=self.state.task_id, conversationId=self.state.conversation_id)
                if summary:
                    await self._move_child(child, status, summary)
            elif child["status"] != status or summary:
                await self._move_child(child, status, summary)
        return [{"title": t, "taskId": c["id"], "status": c["status"]} for t, c in self.state.children.items()]

    async def _move_child(self, child: dict[str, str], status: str, summary: str | None) -> None:
        current = child["status"]
        if current in TERMINAL:
            return  # a finished step stays finished (docs/design.md#task-states)
        if current == "queued" and status in ("succeeded", "failed"):
            await self._send_on_task("task.status_changed", {"status": "running"}, child["id"])
        payload: dict[str, Any] = {"status": status}
        if summary:
            payload["summary"] = summary
        if status == "failed":
            payload["error"] = {"code": "step_failed", "message": summary or "This step failed."}
        if status == current:
            payload.pop("status")
        if payload:
            await self._send_on_task("task.status_changed", payload, child["id"])
        child["status"] = status
        self.state.save()

    async def message(self, text: str) -> str:
        message_id = new_id("msg")
        await self._send_on_task("message.create", {"content": text, "messageId": message_id})
        return message_id

    async def artifact(self, name: str, url: str, mime_type: str | None, summary: str | None) -> str:
        artifact_id = new_id("art")
        payload: dict[str, Any] = {"name": name, "url": url, "artifactId": artifact_id}
        if mime_type:
            payload["mimeType"] = mime_type
        if summary:
            payload["summary"] = summary
        await self._send_on_task("artifact.created", payload)
        return artifact_id

    async def finish(self, status: str, summary: str | None, error: str | None) -> dict[str, Any]:
        """End the task (open steps end with it); raises HubError if the hub refuses (e.g. a question waits)."""
        task_id = self.state.task_id
        if task_id is None or not self.state.ready:  # nothing in progress: how the last task ended, if any
            return {"taskId": None, "status": "none", "summary": None, **(self.state.finished or {}),
                    "already": True}
        step_status = "succeeded" if status == "succeeded" else "cancelled"
        payload: dict[str, Any] = {"status": status}
        if status == "succeeded":
            payload["progress"] = 100
        if summary:
            payload["summary"] = summary
        if status == "failed":
            payload["error"] = {"code": "failed", "message": error or summary or "The agent reported a failure."}
        # The steps first, so the task ends last (as in docs/design.md#the-mvp-demo).
        await self._close_steps(step_status)
        await self._send_on_task("task.status_changed", payload)
        self.state.end_task(status, summary)
        return {"taskId": task_id, "status": status, "summary": summary}

    async def _close_steps(self, status: str) -> None:
        for child in self.state.children.values():
            if child["status"] not in TERMINAL:
                try:
                    await self._move_child(child, status, None)
                except HubError as exc:
                    log.info("step %s not closed: %s", child["id"], exc)

    def take_messages(self) -> list[dict[str, Any]]:
        messages, self.inbox = self.inbox, []
        return messages

    def take_cancel_notice(self) -> dict[str, Any] | None:
        notice = self.state.cancelled
        if notice is not None:
            self.state.cancelled = None
            self.state.save()
        return notice

    # ---- what the hub tells us -------------------------------------------------------------------------

    async def _on_cancel_requested(self, envelope: dict[str, Any]) -> None:
        task_id = envelope.get("taskId")
        if task_id is None or task_id != self.state.task_id:
            return  # another session's task, or one this session has already ended
        reason = (envelope.get("payload") or {}).get("reason")
        children = [dict(c) for c in self.state.children.values()]
        # Before any await: no call may use the task any more, and the next one hears why.
        if task_id not in self.told_cancelled:
            self.state.cancelled = {"taskId": task_id, "reason": reason}
        self.state.end_task("cancelled", reason)
        # Confirm at once (docs/design.md#cancel-is-a-request); the MCP caller learns it on its next call. A HubError
        # means it was waiting for the person: the hub has cancelled it already.
        with contextlib.suppress(HubError):
            await self._send_on_task("task.status_changed",
                                     {"status": "cancelled", "summary": "Cancelled by the person"}, task_id)
        for child in children:
            if child["status"] not in TERMINAL:
                try:
                    await self._send_on_task("task.status_changed", {"status": "cancelled"}, child["id"])
                except HubError as exc:
                    log.info("step %s not cancelled: %s", child["id"], exc)

    def told_cancel(self, task_id: str) -> None:
        """A question's `cancelled` outcome already told the caller that this task was cancelled."""
        self.told_cancelled.add(task_id)
        if self.state.cancelled is not None and self.state.cancelled.get("taskId") == task_id:
            self.state.cancelled = None
            self.state.save()

    async def _on_message(self, envelope: dict[str, Any]) -> None:
        payload = envelope.get("payload") or {}
        if envelope.get("conversationId") != self.state.conversation_id:
            return
        if int(envelope.get("sequence") or 0) <= self.replay_floor:
            return  # handed on before a restart
        if (payload.get("author") or {}).get("kind") != "user":
            return
        self.inbox.append({"text": payload.get("content", ""), "at": envelope.get("occurredAt"),
                           "messageId": payload.get("messageId")})
