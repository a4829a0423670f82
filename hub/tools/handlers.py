"""Tool calls as stored events (docs/protocol.md#tools): registering tools, routing a call, recording its result.

A `tool.call` is always stored, and always answered by a `tool.result`: at once when it cannot be routed
(unknown tool or action, invalid arguments, unknown or closed instance), later when the hub's handler, the
person (through an interaction), an app or an agent answers, or when nobody does in time.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from hub.domain.collaboration import get_task, request_interaction
from hub.protocol import payloads as P
from hub.protocol.actors import Actor
from hub.protocol.envelope import Envelope, new_id
from hub.protocol.errors import LapError
from hub.store.queries import tools as tool_rows
from hub.store.queries.records import ToolCallRecord
from hub.store.writer import Command, Tx
from hub.tools.definitions import ToolDefinitionError, parse_tool
from hub.tools.registry import ToolRegistry


def caller_of(actor: Actor) -> tuple[str, str]:
    """Tools are offered and answered per agent, or per app (a signed-in device)."""
    return ("agent", actor.id) if actor.kind == "agent" else ("app", actor.device_id or actor.id)


def tool_list(registry: ToolRegistry, tx: Tx, actor: Actor, env: Envelope, p: P.ToolList) -> None:
    """Register the sender's tools, replacing what it registered before."""
    if p.tools is None:
        raise LapError("invalid_payload", "tool.list without `tools` is a question; the hub answers it directly.")
    try:
        parsed = [parse_tool(tool) for tool in p.tools]
    except ToolDefinitionError as exc:
        raise LapError("invalid_payload", f"Invalid tool definition: {exc}") from None
    names = [tool.name for tool in parsed]
    if len(set(names)) != len(names):
        raise LapError("invalid_payload", "Two tools in the list have the same name.")
    kind, owner_id = caller_of(actor)
    current = tool_rows.registered_tools_json(tx.conn, kind, owner_id)
    if current is not None and json.loads(current) == [t.raw for t in parsed]:
        return  # the same tools again (an agent reconnecting): nothing changes, nothing is stored
    tx.append("tools.registered", {"owner": {"kind": kind, "id": owner_id}, "tools": [t.raw for t in parsed]},
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, correlation_id=env.correlationId,
              occurred_at=env.occurredAt)


def tool_call(registry: ToolRegistry, tx: Tx, actor: Actor, env: Envelope, p: P.ToolCall) -> None:
    caller_kind, caller_id = caller_of(actor)
    if env.taskId is not None:
        get_task(tx, actor, env.taskId)  # a call made for a task must name one the caller may see
    if tool_rows.call_id_used(tx.conn, caller_id, p.call_id, actor.workspace_id):
        raise LapError("conflict", f"call_id {p.call_id!r} was already used for another call; use a new one.")
    target = registry.resolve(tx.conn, actor.workspace_id, caller_kind, p.name, p.targetAgentId)
    error: tuple[str, str] | None = None
    if target is None:
        error = ("unknown_tool", f"No tool named {p.name!r} is offered to you here.")
    else:
        action = target.tool.action(p.action)
        if action is None:
            known = ", ".join(sorted(target.tool.actions))
            error = ("unknown_action", f"Tool {p.name!r} has no action {p.action!r}; its actions: {known}."
                     if p.action else f"Tool {p.name!r} needs `action`: one of {known}.")
        elif problems := action.errors(p.arguments):
            called = f"{p.name}.{p.action}" if p.action else p.name
            error = ("invalid_arguments", f"Invalid arguments for {called}: {problems[0]}")
    if (error is None and target is not None and target.tool.type == "app" and target.kind == "hub"
            and p.action != "open"):
        instance = tool_rows.tool_instance(tx.conn, str(p.arguments.get("instance_id", "")), actor.workspace_id)
        if instance is None or instance.tool != p.name:
            error = ("unknown_instance", f"No {p.name} instance {p.arguments.get('instance_id')!r}; open one first.")
        elif instance.status != "open":
            error = ("instance_closed", f"The {p.name} instance {instance.id!r} is closed.")
    if error is None and target is not None and target.kind == "interaction" and actor.kind != "agent":
        error = ("forbidden", f"{p.name!r} asks the person; only agents call it.")
    target_kind = "none" if error is not None or target is None else target.kind
    target_id = None if target_kind == "none" or target is None else target.owner_id
    interaction_id = new_id("int") if target_kind == "interaction" else None
    if interaction_id:
        target_id = interaction_id
    tx.append("tool.call", {**env.payload, "caller": {"kind": caller_kind, "id": caller_id},
                            "target": {"kind": target_kind, "id": target_id}},
              id=env.id, workspace_id=actor.workspace_id, actor=actor.ref, task_id=env.taskId,
              conversation_id=env.conversationId, correlation_id=env.correlationId, occurred_at=env.occurredAt,
              recipients=(target_id,) if target_kind == "agent" and target_id else ())
    if error is not None:
        append_result(tx, call_of(tx, actor.workspace_id, env.id), error={"code": error[0], "message": error[1]})
        return
    assert target is not None
    if target_kind == "interaction":
        assert target.hub_tool is not None and target.hub_tool.interaction is not None
        try:
            request = msgspec.convert({**target.hub_tool.interaction(p.action, p.arguments), "id": interaction_id},
                                      P.InteractionSpec)
        except Exception as exc:  # noqa: BLE001 - a plugin's bug becomes this call's error, not the hub's
            append_result(tx, call_of(tx, actor.workspace_id, env.id),
                          error={"code": "tool_failed", "message": str(exc)[:500]})
            return
        request_interaction(tx, actor, request, task_id=env.taskId, conversation_id=env.conversationId,
                            envelope_id=None, correlation_id=env.id,
                            tool_call={"callEventId": env.id, "call_id": p.call_id, "name": p.name,
                                       "action": p.action})


def call_of(tx: Tx, workspace_id: str, call_event_id: str) -> ToolCallRecord:
    """A call by its event id: the envelope id, unique within the workspace."""
    row = tool_rows.tool_call(tx.conn, call_event_id, workspace_id)
    if row is None:
        raise LapError("not_found", f"No tool call {call_event_id!r}.")
    return row


def append_result(tx: Tx, call: ToolCallRecord, *, result: dict[str, Any] | None = None,
                  error: dict[str, str] | None = None, instance: dict[str, Any] | None = None, actor: str = "hub",
                  envelope_id: str | None = None, extra: dict[str, Any] | None = None) -> None:
    """Store the one tool.result of a call; the calling agent receives it."""
    payload: dict[str, Any] = {**(extra or {}), "call_id": call.call_id, "name": call.name,
                               "action": call.action, "callEventId": call.id}
    if error is not None:
        payload["error"] = error
    else:
        payload["result"] = result or {}
    if instance is not None:
        payload["instance"] = instance
    tx.append("tool.result", payload, id=envelope_id, workspace_id=call.workspace_id, actor=actor,
              correlation_id=call.id, recipients=(call.caller_id,) if call.caller_kind == "agent" else ())


def tool_result(registry: ToolRegistry, tx: Tx, actor: Actor, env: Envelope, p: P.ToolResult) -> None:
    """An app or agent answers a call that was routed to it."""
    kind, owner_id = caller_of(actor)
    call = tool_rows.pending_call_for(tx.conn, actor.workspace_id, p.call_id, kind, owner_id, env.correlationId)
    if call is None:
        raise LapError("not_found", f"No pending call {p.call_id!r} is waiting for your answer.")
    if (p.result is None) == (p.error is None):
        raise LapError("invalid_payload", "A tool.result carries exactly one of `result` and `error`.")
    append_result(tx, call, result=p.result, error=msgspec.to_builtins(p.error) if p.error else None,
                  actor=actor.ref, envelope_id=env.id,
                  extra={k: v for k, v in env.payload.items() if k not in ("result", "error")})


def complete_call(workspace_id: str, call_event_id: str, *, result: dict[str, Any] | None = None,
                  error: dict[str, str] | None = None, instance: dict[str, Any] | None = None) -> Command:
    """The router's answer for a hub-handled, human-answered or timed-out call (no-op if already answered)."""
    def run(tx: Tx) -> None:
        call = tool_rows.tool_call(tx.conn, call_event_id, workspace_id)
        if call is None or call.status != "pending":
            return
        append_result(tx, call, result=result, error=error, instance=instance)

    return Command(run=run)


def decode(value: str | None) -> Any:
    return None if value is None else json.loads(value)
