"""What an agent does with a task: accept, report progress, ask the person, stream, finish."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hub.sdk.errors import HubError

if TYPE_CHECKING:
    from hub.sdk.client import AgentClient


@dataclass(frozen=True)
class Outcome:
    """How an interaction ended: answered, declined, expired or cancelled — never a silent timeout."""

    interaction_id: str
    outcome: str
    response: dict[str, Any] = field(default_factory=dict)
    responded_by: dict[str, str] | None = None

    @property
    def answered(self) -> bool:
        return self.outcome == "answered"

    @property
    def approved(self) -> bool:
        """For approvals: the person chose an approving option."""
        return self.outcome == "answered" and bool(self.response.get("approved", True))

    @property
    def option_id(self) -> str | None:
        return self.response.get("optionId")

    @property
    def option_ids(self) -> list[str]:
        return list(self.response.get("optionIds") or ([self.option_id] if self.option_id else []))

    @property
    def text(self) -> str | None:
        return self.response.get("text")

    @property
    def decision(self) -> str | None:
        return self.response.get("decision")

    @property
    def comment(self) -> str | None:
        return self.response.get("comment")


def _options(options: list[str] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accept plain labels (ids are made from their position) or full option objects."""
    return [o if isinstance(o, dict) else {"id": f"o{i + 1}", "label": o} for i, o in enumerate(options)]


TERMINAL = ("succeeded", "failed", "cancelled")


class TaskHandle:
    """One task assigned to this agent. Every method waits for the hub's ack and raises HubError on refusal.

    `resumed` is True when a previous run of this agent was handed the task and stopped (killed, restarted)
    before finishing it: the handler runs again from the start. `accept()` is then a no-op, and asking again
    with the same `interaction_id` waits for the same interaction's outcome instead of asking twice.
    """

    def __init__(self, client: AgentClient, task_id: str, conversation_id: str | None, payload: dict[str, Any],
                 *, resumed: bool = False) -> None:
        self.client = client
        self.id = task_id
        self.conversation_id = conversation_id
        self.title: str = payload.get("title", "")
        self.description: str = payload.get("description", "")
        self.payload = payload
        self.resumed = resumed
        self.cancel_requested = asyncio.Event()
        self.cancel_reason: str | None = None
        self.ended_status: str | None = None  # set when the hub or the person ended the task, not this agent

    def ended_by_hub(self, status: str) -> None:
        """Someone else ended the task (cancelled while queued or waiting, cancel timeout, agent_unreachable):
        the handler should stop; finishing it afterwards is a no-op."""
        self.ended_status = status
        self.cancel_requested.set()

    def __repr__(self) -> str:
        return f"TaskHandle({self.id!r}, {self.title!r})"

    async def _send(self, type_: str, payload: dict[str, Any], task_id: str | None = None) -> dict[str, Any]:
        return await self.client.send(type_, payload, taskId=task_id or self.id, conversationId=self.conversation_id)

    async def accept(self) -> None:
        """Accept the task; accepting a task that already runs (a restarted agent) is not an error."""
        try:
            await self._send("task.accepted", {})
        except HubError as exc:
            if exc.code != "illegal_transition" or "running" not in exc.message and "waiting" not in exc.message:
                raise

    async def progress(self, percent: int | None = None, summary: str | None = None) -> None:
        payload: dict[str, Any] = {}
        if percent is not None:
            payload["progress"] = max(0, min(100, int(percent)))
        if summary is not None:
            payload["summary"] = summary
        await self._send("task.status_changed", payload)

    async def child(self, title: str, status: str = "running") -> "ChildTask":
        child_id = f"task_{uuid.uuid4().hex}"
        await self._send("task.child_created", {"parentTaskId": self.id, "title": title, "status": status,
                                                "taskId": child_id})
        return ChildTask(self, child_id, status)

    async def artifact(self, name: str, url: str, *, mime_type: str | None = None, summary: str | None = None) -> str:
        artifact_id = f"art_{uuid.uuid4().hex}"
        payload: dict[str, Any] = {"name": name, "url": url, "artifactId": artifact_id}
        if mime_type:
            payload["mimeType"] = mime_type
        if summary:
            payload["summary"] = summary
        await self._send("artifact.created", payload)
        return artifact_id

    async def message(self, text: str, **extra: Any) -> str:
        """Post a message in the task's conversation."""
        if self.conversation_id is None:
            raise ValueError("This task has no conversation to post in.")
        message_id = f"msg_{uuid.uuid4().hex}"
        await self._send("message.create", {"content": text, "messageId": message_id, **extra})
        return message_id

    def stream(self) -> "MessageStream":
        """`async with task.stream() as s: await s.write("...")` — streamed text, stored whole at the end."""
        if self.conversation_id is None:
            raise ValueError("This task has no conversation to stream into.")
        return MessageStream(self.client, self.conversation_id, self.id)

    async def succeed(self, summary: str | None = None) -> None:
        await self._finish("succeeded", summary=summary)

    async def fail(self, code: str, message: str = "", summary: str | None = None) -> None:
        await self._finish("failed", summary=summary, error={"code": code, "message": message})

    async def cancelled(self, summary: str | None = None) -> None:
        """Confirm a cancel request: the task becomes cancelled (seed 002 §6.2)."""
        await self._finish("cancelled", summary=summary)

    async def _finish(self, status: str, **fields: Any) -> None:
        if self.ended_status is not None:
            return  # already ended by the hub or the person: there is nothing left to report
        payload = {"status": status, "progress": 100 if status == "succeeded" else None,
                   **{k: v for k, v in fields.items() if v is not None}}
        await self._send("task.status_changed", {k: v for k, v in payload.items() if v is not None})
        self.client.task_finished(self.id)

    # ---- asking the person -------------------------------------------------------------------------

    async def ask(self, interaction: dict[str, Any]) -> Outcome:
        """Ask with a full interaction object; waits until the person answers or it ends otherwise."""
        return await self.client.ask(interaction, task_id=self.id, conversation_id=self.conversation_id)

    async def ask_approval(self, title: str, description: str = "", *, risk: str = "medium", impact: str = "",
                           details: dict[str, Any] | None = None, expires_at: str | None = None,
                           interaction_id: str | None = None) -> Outcome:
        return await self.ask(_spec("approval", title, description, risk=risk, impact=impact, details=details,
                                    expiresAt=expires_at, id=interaction_id))

    async def ask_choice(self, title: str, options: list[str] | list[dict[str, Any]], *, multiple: bool = False,
                         description: str = "", expires_at: str | None = None,
                         interaction_id: str | None = None) -> Outcome:
        return await self.ask(_spec("choice", title, description, options=_options(options), multiple=multiple,
                                    expiresAt=expires_at, id=interaction_id))

    async def ask_input(self, title: str, *, description: str = "", format: str = "text", pattern: str | None = None,
                        placeholder: str | None = None, expires_at: str | None = None,
                        interaction_id: str | None = None) -> Outcome:
        return await self.ask(_spec("input", title, description, format=format, pattern=pattern,
                                    placeholder=placeholder, expiresAt=expires_at, id=interaction_id))

    async def ask_review(self, title: str, content: str, *, description: str = "",
                         attachments: list[dict[str, Any]] | None = None, expires_at: str | None = None,
                         interaction_id: str | None = None) -> Outcome:
        return await self.ask(_spec("review", title, description, content=content, attachments=attachments,
                                    expiresAt=expires_at, id=interaction_id))


def _spec(type_: str, title: str, description: str, **fields: Any) -> dict[str, Any]:
    spec = {"type": type_, "title": title, "description": description}
    spec.update({k: v for k, v in fields.items() if v not in (None, "", {})})
    return spec


class ChildTask:
    """A display-only child task (seed 002 §10.2); its status is reported like any task's."""

    def __init__(self, parent: TaskHandle, task_id: str, status: str) -> None:
        self.parent = parent
        self.id = task_id
        self.status = status

    async def set_status(self, status: str, summary: str | None = None) -> None:
        payload: dict[str, Any] = {"status": status}
        if summary:
            payload["summary"] = summary
        if status == "failed":
            payload["error"] = {"code": "child_failed", "message": summary or ""}
        await self.parent._send("task.status_changed", payload, task_id=self.id)
        self.status = status

    async def succeed(self, summary: str | None = None) -> None:
        await self.set_status("succeeded", summary)


class MessageStream:
    """Streamed text: each `write` goes out live as a delta; leaving the block stores the whole message."""

    def __init__(self, client: AgentClient, conversation_id: str, task_id: str | None) -> None:
        self.client = client
        self.conversation_id = conversation_id
        self.task_id = task_id
        self.message_id = f"msg_{uuid.uuid4().hex}"
        self.text = ""
        self.live = True  # False once the hub lost the stream's start (restart): the final message carries all

    async def __aenter__(self) -> "MessageStream":
        return self

    async def write(self, text: str) -> None:
        if not text:
            return
        offset = len(self.text)
        self.text += text
        if not self.live:
            return
        try:
            await self.client.send("message.delta", {"messageId": self.message_id, "offset": offset, "text": text},
                                   conversationId=self.conversation_id, taskId=self.task_id)
        except HubError as exc:
            if exc.code != "invalid_payload":
                raise
            self.live = False

    async def __aexit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if not self.text:
            return
        if exc_type is not None:
            # Left by an error or a cancel: queue the text so far without waiting for the ack. Awaiting here
            # after a cancel would never end while the hub is away (and blocked client.close(), hub shutdown).
            future = self.client.send_nowait("message.create", {"content": self.text, "messageId": self.message_id},
                                             conversationId=self.conversation_id, taskId=self.task_id)
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            return
        await self.client.send("message.create", {"content": self.text, "messageId": self.message_id},
                               conversationId=self.conversation_id, taskId=self.task_id)
