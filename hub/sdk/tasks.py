"""What an agent does with a task: accept, report progress, ask the person, stream, finish."""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import json
import logging
import os
import uuid
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from hub.protocol.vocabulary import ACTIVE_TASK_STATUSES, TERMINAL_TASK_STATUSES
from hub.sdk import approvals
from hub.sdk.errors import HubError

log = logging.getLogger("lineup.sdk")


@dataclass(frozen=True)
class Outcome:
    """How an interaction ended: answered, declined, expired or cancelled — never a silent timeout."""

    interaction_id: str
    outcome: str
    response: dict[str, Any] = field(default_factory=dict)
    responded_by: dict[str, str] | None = None
    # The options the question offered ({id, label, ...}), when this process asked it: for `option_label`.
    options: tuple[dict[str, Any], ...] = field(default=(), compare=False, repr=False)

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
    def option_label(self) -> str | None:
        """The label of the option the person chose (`option_id` is its id: `o1`, `o2`, ... for plain labels)."""
        return self._label(self.option_id) if self.option_id is not None else None

    @property
    def option_labels(self) -> list[str]:
        """The labels of the options chosen (a `multiple` choice), in the order of `option_ids`."""
        return [self._label(option_id) for option_id in self.option_ids]

    def _label(self, option_id: str) -> str:
        for option in self.options or _DEFAULT_OPTIONS:
            if option.get("id") == option_id:
                return str(option.get("label", option_id))
        return option_id

    def with_options(self, interaction: dict[str, Any]) -> Outcome:
        """This outcome knowing the options of the question it answers (an approval without any: the hub's)."""
        options = tuple(o for o in interaction.get("options") or () if isinstance(o, dict))
        return self if options == self.options else replace(self, options=options)

    @property
    def text(self) -> str | None:
        return self.response.get("text")

    @property
    def decision(self) -> str | None:
        return self.response.get("decision")

    @property
    def comment(self) -> str | None:
        return self.response.get("comment")

    @property
    def cause(self) -> str | None:
        """Why a cancelled question ended: task_cancelled, task_ended, withdrawn, agent_revoked."""
        return self.response.get("cause") if self.outcome == "cancelled" else None


# An approval asked without options gets these from the hub (hub/domain/interactions.py).
_DEFAULT_OPTIONS = ({"id": "approve", "label": "Approve"}, {"id": "reject", "label": "Reject"})


def _options(options: list[str] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Accept plain labels (ids are made from their position) or full option objects."""
    return [o if isinstance(o, dict) else {"id": f"o{i + 1}", "label": o} for i, o in enumerate(options)]


TERMINAL = TERMINAL_TASK_STATUSES  # a task in one of these is finished (hub/protocol/vocabulary.py)


def stable_id(*parts: object) -> str:
    """An id that a handler run again (after a restart, or in another copy of the agent) makes again."""
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).hexdigest()[:24]


class TaskClient(Protocol):
    """What a task and a message stream use of the client that made them (hub/sdk/client.py's AgentClient):
    named here, so this module does not import the client back."""

    async def send(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]: ...

    def send_nowait(self, type_: str, payload: dict[str, Any], **fields: Any) -> asyncio.Future[dict[str, Any]]: ...

    async def ask(self, interaction: dict[str, Any], *, task_id: str | None = None,
                  conversation_id: str | None = None) -> Outcome: ...

    async def withdraw(self, interaction_id: str, reason: str = "") -> bool: ...

    def outcome(self, interaction_id: str) -> Outcome | None: ...

    def task_finished(self, task_id: str) -> None: ...

    async def upload_file(self, source: str | os.PathLike[str] | bytes, *, name: str | None = None,
                          mime_type: str | None = None) -> dict[str, Any]: ...


class TaskHandle:
    """One task assigned to this agent. Every method waits for the hub's ack and raises HubError on refusal.

    `resumed` is True when the task was started before this process ran it (a previous run was killed or
    restarted, or another copy of the agent was replaced): the handler runs again from the start, and the
    handle makes that safe (docs/sdk.md "Restart-safe handlers"). Child tasks, questions, artifacts and
    messages get ids derived from the task and what they are, so doing them again stores nothing new and a
    question asked again returns the answer already given (or waits for the same one); `accept()` and progress
    the hub already has are skipped; `once(name, fn)` runs a step of your own at most once per task.
    """

    def __init__(self, client: TaskClient, task_id: str, conversation_id: str | None, payload: dict[str, Any],
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
        self.status: str = "running" if resumed else "queued"
        self.checkpoints: dict[str, Any] = {}    # named steps done (once / checkpoint), kept by the hub
        self._progress_floor = -1                # resumed: progress at or below this was reported already
        self._children: dict[str, str] = {}      # child id -> status, as the hub has them
        self._counts: dict[tuple[str, ...], int] = {}
        self._questions: list[str] = []          # ids of the questions asked in this task (their outcome may come)
        self.summary: str | None = None          # the last summary reported (the hub's, for a resumed task)

    def restore(self, info: dict[str, Any]) -> None:
        """Take what the hub has of this task (the welcome's openTasks entry) before the handler runs."""
        self.status = info.get("status") or self.status
        self.resumed = self.status != "queued"
        self.conversation_id = info.get("conversationId") or self.conversation_id
        self.checkpoints = dict(info.get("checkpoints") or {})
        if self.resumed and info.get("progress") is not None:
            self._progress_floor = int(info["progress"])
        self.summary = info.get("summary") or self.summary
        self._questions = [q["interactionId"] for q in info.get("interactions") or [] if q.get("interactionId")]
        self._children = {c["taskId"]: c["status"] for c in info.get("children") or []}
        if info.get("cancelRequested"):
            self.cancel_reason = info.get("cancelReason")
            self.cancel_requested.set()

    def _next_id(self, kind: str, *what: object) -> str:
        """The n-th `kind` of these contents in this task: the same id each time the handler runs."""
        key = (kind, *(str(w) for w in what))
        n = self._counts[key] = self._counts.get(key, 0) + 1
        return stable_id(self.id, *key, n)

    async def _send_once(self, type_: str, payload: dict[str, Any], envelope_id: str,
                         task_id: str | None = None) -> None:
        """Send with an id derived from the object: a re-run is a re-send (acked as a duplicate). `conflict` means
        the object exists with other contents (a step done again differently): the first one stands."""
        try:
            await self.client.send(type_, payload, id=envelope_id, taskId=task_id or self.id,
                                   conversationId=self.conversation_id)
        except HubError as exc:
            if exc.code != "conflict":
                raise
            log.info("%s %s exists already; keeping the first one", type_, envelope_id)

    def ended_by_hub(self, status: str) -> None:
        """Someone else ended the task (cancelled while queued or waiting, cancel timeout, agent_unreachable):
        the handler should stop; finishing it afterwards is a no-op."""
        self.ended_status = status
        self.cancel_requested.set()

    def __repr__(self) -> str:
        return f"TaskHandle({self.id!r}, {self.title!r})"

    @property
    def finished(self) -> bool:
        """The task has a final status: this agent finished it, or the hub or the person ended it."""
        return self.ended_status is not None or self.status in TERMINAL

    def pending_questions(self) -> list[str]:
        """The ids of questions asked in this task whose outcome has not come (yet)."""
        return [q for q in dict.fromkeys(self._questions) if self.client.outcome(q) is None]

    async def _send(self, type_: str, payload: dict[str, Any], task_id: str | None = None) -> dict[str, Any]:
        return await self.client.send(type_, payload, taskId=task_id or self.id, conversationId=self.conversation_id)

    async def accept(self) -> None:
        """Accept the task; accepting a task that already runs (a restarted agent) is not an error."""
        if self.status != "queued":
            return
        try:
            await self._send_once("task.accepted", {}, f"accept-{self.id}")
        except HubError as exc:
            # Already running, or waiting for the person (this agent accepted it before it restarted): fine.
            if exc.code != "illegal_transition" or exc.details.get("from") not in ACTIVE_TASK_STATUSES:
                raise
        self.status = "running"

    async def progress(self, percent: int | None = None, summary: str | None = None) -> None:
        """Report progress; in a resumed task a percentage the hub already passed is not sent again, so the
        app's progress never runs backwards while the handler catches up."""
        payload: dict[str, Any] = {}
        if percent is not None:
            payload["progress"] = max(0, min(100, int(percent)))
            if payload["progress"] <= self._progress_floor:
                return
        if summary is not None:
            payload["summary"] = summary
        await self._send("task.status_changed", payload)
        if summary is not None:
            self.summary = summary

    async def child(self, title: str, status: str = "running") -> ChildTask:
        """A display-only child task; made again by a re-run handler, it is the same child (not a second one)."""
        child_id = f"task_{self._next_id('child', title)}"
        known = self._children.get(child_id)
        if known is None:
            await self._send_once("task.child_created", {"parentTaskId": self.id, "title": title, "status": status,
                                                         "taskId": child_id}, f"child-{child_id}")
            self._children[child_id] = known = status
        return ChildTask(self, child_id, known)

    async def artifact(self, name: str, url: str | None = None, *, file: str | os.PathLike[str] | bytes | None = None,
                       mime_type: str | None = None, summary: str | None = None) -> str:
        """A link (`url`), or a file (`file`: a path or bytes) uploaded to the hub and shown in the app."""
        artifact_id = f"art_{self._next_id('artifact', name)}"
        payload: dict[str, Any] = {"name": name, "artifactId": artifact_id}
        if file is not None:
            payload["fileId"] = (await self.client.upload_file(file, mime_type=mime_type))["fileId"]
        elif url is not None:
            payload["url"] = url
        else:
            raise ValueError("An artifact needs a url or a file.")
        if mime_type:
            payload["mimeType"] = mime_type
        if summary:
            payload["summary"] = summary
        await self._send_once("artifact.created", payload, f"art-{artifact_id}")
        return artifact_id

    async def message(self, text: str, **extra: Any) -> str:
        """Post a message in the task's conversation (posted once, also when the handler runs again)."""
        if self.conversation_id is None:
            raise ValueError("This task has no conversation to post in.")
        message_id = f"msg_{self._next_id('message', text)}"
        await self._send_once("message.create", {"content": text, "messageId": message_id, **extra},
                              f"msg-{message_id}")
        return message_id

    # ---- steps of your own -------------------------------------------------------------------------

    async def checkpoint(self, name: str, data: Any = None) -> None:
        """Tell the hub a named step of this task is done (with a small JSON result); kept for a re-run."""
        encoded = json.dumps(data, sort_keys=True, separators=(",", ":"))
        await self._send_once("task.checkpoint", {"name": name, "data": data},
                              f"cp-{stable_id(self.id, name, encoded)}")
        self.checkpoints[name] = data

    async def once(self, name: str, step: Any, *args: Any, **kwargs: Any) -> Any:
        """Run `step(*args, **kwargs)` (a function or coroutine function) at most once for this task.

        Its result (JSON, at most 16 KiB) is kept by the hub under `name`; a handler run again after a restart
        gets it back without running the step. A process killed during the step runs it again: make the step
        itself safe to repeat, or short enough that this does not matter.
        """
        if name in self.checkpoints:
            return self.checkpoints[name]
        result = step(*args, **kwargs)
        if inspect.isawaitable(result):
            result = await result
        await self.checkpoint(name, result)
        return result

    def stream(self, name: str | None = None) -> MessageStream:
        """`async with task.stream() as s: await s.write("...")` — streamed text, stored whole at the end.

        With a `name` (unique within the task) the stream is restart-safe: a handler run again that streams
        under the same name finds the message complete and says nothing twice."""
        if self.conversation_id is None:
            raise ValueError("This task has no conversation to stream into.")
        message_id = f"msg_{stable_id(self.id, 'stream', name)}" if name is not None else None
        return MessageStream(self.client, self.conversation_id, self.id, message_id)

    async def succeed(self, summary: str | None = None) -> None:
        await self._finish("succeeded", summary=summary)

    async def fail(self, code: str, message: str = "", summary: str | None = None) -> None:
        await self._finish("failed", summary=summary, error={"code": code, "message": message})

    async def cancelled(self, summary: str | None = None) -> None:
        """Confirm a cancel request: the task becomes cancelled (docs/design.md#cancel-is-a-request)."""
        await self._finish("cancelled", summary=summary)

    async def _finish(self, status: str, **fields: Any) -> None:
        if self.ended_status is not None:
            return  # already ended by the hub or the person: there is nothing left to report
        if status == "failed" and self.status == "queued":
            await self.accept()  # a task fails from running (docs/protocol.md#task-states): one it cannot do too
        for question in self.pending_questions():
            # A task waiting for the person cannot be finished by its agent, and a finished task asks nothing:
            # the questions still open end as withdrawn (the card says why), then the task ends.
            await self.client.withdraw(question, f"The agent ended the task ({status}) before this was answered.")
        payload = {"status": status, "progress": 100 if status == "succeeded" else None,
                   **{k: v for k, v in fields.items() if v is not None}}
        await self._send_once("task.status_changed", {k: v for k, v in payload.items() if v is not None},
                              f"end-{self.id}-{status}")
        self.status = status
        self.client.task_finished(self.id)

    # ---- asking the person -------------------------------------------------------------------------

    async def ask(self, interaction: dict[str, Any]) -> Outcome:
        """Ask with a full interaction object; waits until the person answers or it ends otherwise.

        Without an `id`, the question's id derives from the task, its type and title: asked again by a re-run
        handler, it returns the answer already given, or waits for the same pending question."""
        if not interaction.get("id"):
            interaction = {**interaction, "id": self.question_id(interaction)}
        self._questions.append(interaction["id"])
        return await self.client.ask(interaction, task_id=self.id, conversation_id=self.conversation_id)

    def question_id(self, interaction: dict[str, Any]) -> str:
        """The id `ask` gives a question without one (the n-th of its type and title in this task), for a caller
        that needs it before the answer comes (to withdraw it: AgentClient.withdraw)."""
        return f"int_{self._next_id('ask', interaction.get('type'), interaction.get('title'))}"

    async def ask_approval(self, title: str, description: str = "", *, risk: str = "medium", impact: str = "",
                           details: dict[str, Any] | None = None, expires_at: str | None = None,
                           interaction_id: str | None = None, command: str | None = None,
                           approves: dict[str, Any] | list[dict[str, Any]] | None = None,
                           notes: str | None = None) -> Outcome:
        """Ask to approve; the answer's `approved` says yes, `option_id` is `approve` or `reject` (or your option's).

        `command` (the whole command that will run) or `approves` (one item or a list of up to 50: commands, file
        writes and edits, tool inputs, docs/protocol.md#what-an-approval-approves; hub.sdk.approvals builds them)
        puts all of it on the card; the hub's own judgement of each item's risk applies when it is higher than
        `risk`. What cannot be shown whole is refused (`approvals.fits` says so before asking): ask where the agent
        runs instead. `notes`: "next_message" or "not_sent" when the agent cannot take a note with the answer."""
        if command is not None:
            approves = approvals.command_approval(command)
        return await self.ask(_spec("approval", title, description, risk=risk, impact=impact, details=details,
                                    expiresAt=expires_at, id=interaction_id, approves=approves, notes=notes))

    async def ask_choice(self, title: str, options: list[str] | list[dict[str, Any]], *, multiple: bool = False,
                         description: str = "", expires_at: str | None = None,
                         interaction_id: str | None = None) -> Outcome:
        """Ask to pick one option (`multiple`: several). `options` are labels (their ids: `o1`, `o2`, ...) or
        `{"id", "label", ...}` objects. The answer's `option_id` is the chosen option's id, `option_label` its label
        (`option_ids` / `option_labels` for several)."""
        return await self.ask(_spec("choice", title, description, options=_options(options), multiple=multiple,
                                    expiresAt=expires_at, id=interaction_id))

    async def ask_input(self, title: str, *, description: str = "",
                        format: str = "text",  # noqa: A002 - the protocol's field name, part of the SDK's API
                        pattern: str | None = None,
                        placeholder: str | None = None, expires_at: str | None = None,
                        interaction_id: str | None = None) -> Outcome:
        """Ask for a typed answer (`format`: text, url, email, number, integer; `pattern`: RE2, the whole answer
        must match); the answer's `text` is a string."""
        return await self.ask(_spec("input", title, description, format=format, pattern=pattern,
                                    placeholder=placeholder, expiresAt=expires_at, id=interaction_id))

    async def ask_review(self, title: str, content: str, *, description: str = "",
                         attachments: list[dict[str, Any]] | None = None, expires_at: str | None = None,
                         interaction_id: str | None = None) -> Outcome:
        """Ask to review `content`: plain text, or a unified diff (`--- a/x`, `+++ b/x`, `@@` hunks), shown as a diff.
        Content that starts as a diff but is not one is refused (HubError invalid_payload, docs/sdk.md "Asking the
        person"). The answer's `decision` is `approve` or `request_changes`, with an optional `comment`."""
        return await self.ask(_spec("review", title, description, content=content, attachments=attachments,
                                    expiresAt=expires_at, id=interaction_id))


def _spec(type_: str, title: str, description: str, **fields: Any) -> dict[str, Any]:
    spec = {"type": type_, "title": title, "description": description}
    spec.update({k: v for k, v in fields.items() if v not in (None, "", {})})
    return spec


class ChildTask:
    """A display-only child task (docs/design.md#task-states); its status is reported like any task's."""

    def __init__(self, parent: TaskHandle, task_id: str, status: str) -> None:
        self.parent = parent
        self.id = task_id
        self.status = status

    async def set_status(self, status: str, summary: str | None = None) -> None:
        """Report the child's status; a status it already has (a re-run handler) is not sent again."""
        if status == self.status and status != "running":
            return
        payload: dict[str, Any] = {"status": status}
        if summary:
            payload["summary"] = summary
        if status == "failed":
            payload["error"] = {"code": "child_failed", "message": summary or ""}
        # A child is its parent's helper in this module: it sends on the parent's task and updates its children.
        await self.parent._send_once("task.status_changed", payload, f"{self.id}-{status}", task_id=self.id)  # noqa: SLF001
        self.status = status
        self.parent._children[self.id] = status  # noqa: SLF001

    async def succeed(self, summary: str | None = None) -> None:
        await self.set_status("succeeded", summary)


class MessageStream:
    """Streamed text: each `write` goes out live as a delta; leaving the block stores the whole message."""

    def __init__(self, client: TaskClient, conversation_id: str, task_id: str | None,
                 message_id: str | None = None) -> None:
        self.client = client
        self.conversation_id = conversation_id
        self.task_id = task_id
        # A `message_id` derived from what is answered (`stable_id`) makes the reply restart-safe: said again by a
        # handler run again, the hub has the message complete already and nothing is said twice.
        self.message_id = message_id or f"msg_{uuid.uuid4().hex}"
        self.text = ""
        self.live = True  # False once the hub lost the stream's start (restart): the final message carries all
        self.said_before = False  # the hub has this message complete already: the rest is not sent

    async def __aenter__(self) -> MessageStream:
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
            if exc.code == "conflict":  # "already complete": this reply was said before (a handler run again)
                self.live, self.said_before = False, True
                return
            if exc.code != "invalid_payload":
                raise
            self.live = False

    async def __aexit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if not self.text or self.said_before:
            return
        if exc_type is not None:
            # Left by an error or a cancel: queue the text so far without waiting for the ack. Awaiting here
            # after a cancel would never end while the hub is away (and blocked client.close(), hub shutdown).
            future = self.client.send_nowait("message.create", {"content": self.text, "messageId": self.message_id},
                                             conversationId=self.conversation_id, taskId=self.task_id)
            future.add_done_callback(lambda f: f.cancelled() or f.exception())
            return
        try:
            await self.client.send("message.create", {"content": self.text, "messageId": self.message_id},
                                   conversationId=self.conversation_id, taskId=self.task_id,
                                   id=f"create-{self.message_id}")
        except HubError as exc:
            if exc.code != "conflict":  # the same message id stored already: said before
                raise
