"""Behind the MCP tools: validates each call, then asks the person, reports to the task or calls a hub tool."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import mcp_types as types
from jsonschema import Draft202012Validator

from hub.domain.links import DATA_TYPES
from hub.mcp.catalog import OWN_TOOLS, ToolSpec
from hub.mcp.hubtools import HubAction, to_mcp
from hub.mcp.questions import (
    QUESTION_TOOLS,
    build_interaction,
    describe,
    interaction_id,
    outcome_from_dict,
    outcome_to_dict,
)
from hub.mcp.session import GONE, Session
from hub.mcp.state import SessionState
from hub.mcp.waiting import Progress, shared, wait_with_progress, waited
from hub.sdk import AgentClient, HubError, Outcome, SdkError, ToolCallError

log = logging.getLogger("lineup.mcp")

MAX_INLINE_BYTES = 2900  # artifact urls hold at most 4000 characters; base64 grows content by a third


class CallError(Exception):
    """A call the bridge refuses or the hub refused: the MCP caller gets it as an error result to act on."""


def _text_result(text: str, structured: dict[str, Any] | None = None, *, error: bool = False) -> types.CallToolResult:
    content: list[types.ContentBlock] = [types.TextContent(text=text)]
    if structured is not None:  # the JSON as text too, for clients that read only `content`
        content.append(types.TextContent(text=json.dumps(structured, ensure_ascii=False)))
    return types.CallToolResult(content=content, structured_content=structured, is_error=error)


def _definition(spec: ToolSpec) -> types.Tool:
    return types.Tool(name=spec.name, title=spec.title, description=spec.description,
                      input_schema=spec.input_schema, output_schema=spec.output_schema,
                      annotations=types.ToolAnnotations(
                          title=spec.title, read_only_hint=spec.read_only, destructive_hint=spec.destructive,
                          idempotent_hint=spec.idempotent, open_world_hint=spec.open_world))


class Bridge:
    def __init__(self, client: AgentClient, state: SessionState, *, progress_interval_s: float = 10.0,
                 list_timeout_s: float = 5.0, folder: Path | None = None) -> None:
        self.client = client
        self.state = state
        self.progress_interval_s = progress_interval_s
        self.list_timeout_s = list_timeout_s
        self.folder = (folder or Path.cwd()).name or "/"
        self.client_label = "MCP client"
        self.session = Session(client, state, lambda: f"{self.client_label} in {self.folder}")
        self.hub_tools: dict[str, HubAction] = {}
        self.fatal: str | None = None       # set when the agent cannot connect any more (revoked credential)
        self._waits: dict[str, asyncio.Future[Any]] = {}
        self._validators = {name: Draft202012Validator(spec.input_schema) for name, spec in OWN_TOOLS.items()}
        client.on("interaction.resolved")(self._on_resolved)

    def rewind(self) -> None:
        """Before connecting: have the hub replay from before the oldest question of the task still without an
        outcome here. The SDK saves its cursor as soon as an event arrives, before handlers run, so a bridge
        killed in between would otherwise never hear that answer again; events already handled are skipped."""
        self.session.replay_floor = self.client.last_sequence
        floors = [int(q.get("after", 0)) for iid, q in self.state.questions.items()
                  if q["taskId"] == self.state.task_id and iid not in self.state.outcomes]
        if floors and min(floors) < self.client.last_sequence:
            log.info("replaying from %d: %d question(s) of this task have no answer here yet", min(floors),
                     len(floors))
            self.client.last_sequence = min(floors)

    def agent_stopped(self, runner: asyncio.Task[None]) -> None:
        """The agent's connection loop ended for good: every later call says why."""
        if runner.cancelled() or runner.exception() is None:
            return  # closed on purpose: the MCP client went away
        from hub.cli_invocation import program

        self.fatal = (f"LineUp refused this MCP bridge's credential ({runner.exception()}). Pair it again: delete "
                      f"the credential file and start `{program()} mcp` with a new --code.")
        log.error("%s", self.fatal)

    def note_client(self, ctx: Any) -> None:
        params = getattr(ctx.session, "client_params", None)
        info = getattr(params, "client_info", None)
        if info is not None:
            self.client_label = info.title or info.name or self.client_label

    # ---- tools/list --------------------------------------------------------------------------------------

    async def refresh_hub_tools(self) -> None:
        try:
            async with asyncio.timeout(self.list_timeout_s):
                offered = await self.client.list_tools()
        except (TimeoutError, SdkError) as exc:
            log.warning("could not list the hub's tools (%s); offering the ones known so far",
                        str(exc) or f"no answer within {self.list_timeout_s:.0f} s")
            return
        self.hub_tools = to_mcp(offered, set(OWN_TOOLS))

    async def list_tools(self) -> list[types.Tool]:
        await self.refresh_hub_tools()
        return [_definition(spec) for spec in OWN_TOOLS.values()] + [a.definition for a in self.hub_tools.values()]

    # ---- tools/call --------------------------------------------------------------------------------------

    async def call(self, ctx: Any, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        self.note_client(ctx)
        if self.fatal:
            return _text_result(self.fatal, error=True)
        try:
            if name in OWN_TOOLS:
                problems = [f"{'/'.join(map(str, e.absolute_path)) or '(arguments)'}: {e.message}"
                            for e in self._validators[name].iter_errors(arguments)]
                if problems:
                    raise CallError(f"Invalid arguments for {name}: " + "; ".join(problems))
                if name in QUESTION_TOOLS:
                    return await self.ask(ctx, name, arguments)
                own: Callable[[Any, dict[str, Any]], Awaitable[types.CallToolResult]] = getattr(self, name)
                return await own(ctx, arguments)
            action = self.hub_tools.get(name)
            if action is None:
                await self.refresh_hub_tools()
                action = self.hub_tools.get(name)
            if action is None:
                raise CallError(f"No tool named {name!r} here; list the tools again.")
            return await self.call_hub_tool(ctx, action, arguments)
        except CallError as exc:
            return _text_result(str(exc), error=True)
        except HubError as exc:
            return _text_result(f"LineUp refused this: {exc.code}: {exc.message} {exc.hint}".strip(), error=True)

    def _cancel_notice(self) -> types.CallToolResult | None:
        notice = self.session.take_cancel_notice()
        if notice is None:
            return None
        reason = f" (reason: {notice['reason']})" if notice.get("reason") else ""
        return _text_result(f"Not done: the person cancelled this task in LineUp{reason}. Stop this work; a new "
                            "call starts a new task.", {"cancelled": True, **notice}, error=True)

    async def _retrying(self, work: Any, title: str | None = None) -> Any:
        """Run `work(task_id)`; if the hub no longer takes our task (ended meanwhile), start a new one once."""
        task_id = await self.session.task(title)
        try:
            return await work(task_id)
        except HubError as exc:
            if exc.code not in GONE or self.state.task_id != task_id:
                raise
            self.session.forget_task(exc.code)
            return await work(await self.session.task(title))

    # ---- questions ---------------------------------------------------------------------------------------

    async def ask(self, ctx: Any, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if notice := self._cancel_notice():
            return notice
        known = {k: v for k, v in arguments.items() if k in OWN_TOOLS[tool].input_schema["properties"]}
        spec_of_call = build_interaction(tool, known)  # checked before a task is made for it

        async def ask_in(task_id: str) -> tuple[str, dict[str, Any], Outcome, bool]:
            iid = interaction_id(self.client.credential.agent_id, task_id, tool, known)
            record = self.state.questions.get(iid)
            if record is None:
                # `after`: the cursor before asking; the answer is a later event (see rewind()).
                record = self.state.questions[iid] = {"tool": tool, "taskId": task_id,
                                                      "conversationId": self.state.conversation_id,
                                                      "after": self.client.last_sequence,
                                                      "interaction": {**spec_of_call, "id": iid}}
                self.state.save()  # before it is sent: a restarted bridge re-sends exactly this
            if iid in self.state.outcomes:
                return iid, record, outcome_from_dict(iid, self.state.outcomes[iid]), True
            wait = shared(self._waits, iid, lambda: self._ask(record))
            progress = Progress(ctx)
            title = record["interaction"]["title"]
            outcome = await wait_with_progress(wait, progress, self.progress_interval_s,
                                               lambda s: self._waiting_text(title, s))
            return iid, record, outcome, False

        _, record, outcome, repeated = await self._retrying(ask_in)
        if outcome.outcome == "cancelled":
            self.session.told_cancel(record["taskId"])  # this answer already says so
        sentence, result = describe(record["interaction"], outcome, record["taskId"], repeated)
        return _text_result(sentence, result)

    async def _ask(self, record: dict[str, Any]) -> Outcome:
        outcome = await self.client.ask(record["interaction"], task_id=record["taskId"],
                                        conversation_id=record["conversationId"])
        self._remember(outcome)
        return outcome

    def _waiting_text(self, title: str, seconds: float) -> str:
        if not self.client.connected:
            return f"Waiting for the LineUp hub at {self.client.credential.hub_url} (reconnecting; {waited(seconds)})"
        return f"Waiting for the person to answer in LineUp: {title} ({waited(seconds)})"

    def _remember(self, outcome: Outcome) -> None:
        if outcome.interaction_id in self.state.questions and outcome.interaction_id not in self.state.outcomes:
            self.state.outcomes[outcome.interaction_id] = outcome_to_dict(outcome)
            self.state.save()

    async def _on_resolved(self, envelope: dict[str, Any]) -> None:
        payload = envelope.get("payload") or {}
        self._remember(Outcome(payload["interactionId"], payload["outcome"], payload.get("response") or {},
                               payload.get("respondedBy")))

    # ---- the session's task ------------------------------------------------------------------------------

    def _session_result(self, text: str, **extra: Any) -> types.CallToolResult:
        result = {"taskId": self.state.task_id, "conversationId": self.state.conversation_id, **extra,
                  "messages": self.session.take_messages()}
        if result["messages"]:
            text += " The person wrote to you: " + " | ".join(m["text"] for m in result["messages"])
        return _text_result(text, result)

    async def report_progress(self, ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
        if notice := self._cancel_notice():
            return notice

        async def report(task_id: str) -> list[dict[str, Any]]:
            await self.session.progress(arguments.get("percent"), arguments.get("summary"))
            return await self.session.steps(arguments.get("steps") or [])

        steps = await self._retrying(report, arguments.get("title"))
        done = f"{arguments['percent']}% " if arguments.get("percent") is not None else ""
        return self._session_result(f"Reported {done}on the task “{self.state.title}”.", steps=steps,
                                    percent=arguments.get("percent"))

    async def send_message(self, ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
        if notice := self._cancel_notice():
            return notice
        await self.session.conversation()
        if self.state.task_id is not None:
            await self.session.task()
        message_id = await self.session.message(arguments["text"])
        return self._session_result("Sent.", messageId=message_id)

    async def publish_artifact(self, ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
        if notice := self._cancel_notice():
            return notice
        url, content = arguments.get("url"), arguments.get("content")
        if bool(url) == bool(content):
            raise CallError("Give either `url` or `content` (not both, not neither).")
        mime = arguments.get("mime_type")
        if content is not None:
            data = content.encode()
            if len(data) > MAX_INLINE_BYTES:
                raise CallError(f"`content` is {len(data)} bytes; at most {MAX_INLINE_BYTES} fit in an artifact. "
                                "Write it to a file or a page and publish its `url`, or send it with send_message.")
            mime = mime or "text/plain"
            # Text the hub would not store as a data: link of its own type (text/x-python, ...) is kept as plain
            # text, which the app shows as text (hub/domain/links.py DATA_TYPES); the artifact keeps its real type.
            kind = mime if mime.split(";")[0].strip().lower() in DATA_TYPES else "text/plain;charset=utf-8"
            url = f"data:{kind};base64,{base64.b64encode(data).decode()}"

        assert url is not None  # given, or made from `content` just above

        async def publish(task_id: str) -> str:
            return await self.session.artifact(arguments["name"], url, mime, arguments.get("summary"))

        artifact_id = await self._retrying(publish)
        return self._session_result(f"Published {arguments['name']} on the task.", artifactId=artifact_id)

    async def finish_task(self, ctx: Any, arguments: dict[str, Any]) -> types.CallToolResult:
        notice = self.session.take_cancel_notice()
        if notice is not None:
            result = {"taskId": notice["taskId"], "status": "cancelled", "summary": notice.get("reason")}
            return _text_result("The person had already cancelled this task.", result)
        status = arguments.get("status", "succeeded")
        try:
            result = await self.session.finish(status, arguments.get("summary"), arguments.get("error"))
        except HubError as exc:
            if exc.code != "illegal_transition":
                raise
            task_id = self.state.task_id
            questions = self.state.questions.items()
            if any(q["taskId"] == task_id and iid not in self.state.outcomes for iid, q in questions):
                raise CallError("A question to the person is still waiting: call it again to get the answer, "
                                "then finish.") from None
            self.session.forget_task(exc.message)
            return _text_result(f"The task had already ended: {exc.message}", {"taskId": None, "status": "ended",
                                                                                "summary": exc.message})
        if result.pop("already", False):
            last = f"; the last one ended {result['status']}" if result["status"] != "none" else ""
            return _text_result(f"No task in progress{last}.", result)
        return _text_result(f"The task ended {status}.", result)

    # ---- the hub's tools ---------------------------------------------------------------------------------

    async def call_hub_tool(self, ctx: Any, action: HubAction, arguments: dict[str, Any]) -> types.CallToolResult:
        ready = self.state.ready and self.state.task_id is not None
        call = shared(self._waits, f"call-{uuid.uuid4().hex}", lambda: self.client.call_tool(
            action.tool, arguments, action=action.action, task_id=self.state.task_id if ready else None,
            conversation_id=self.state.conversation_id if ready else None))
        label = f"{action.tool}.{action.action}" if action.action else action.tool
        try:
            result = await wait_with_progress(call, Progress(ctx), self.progress_interval_s,
                                              lambda s: f"Waiting for {label} ({waited(s)})")
        except ToolCallError as exc:
            return _text_result(f"{label} failed: {exc.code}: {exc.message}",
                                {"error": {"code": exc.code, "message": exc.message}}, error=True)
        return types.CallToolResult(content=[types.TextContent(text=json.dumps(result, ensure_ascii=False))],
                                    structured_content=result)
