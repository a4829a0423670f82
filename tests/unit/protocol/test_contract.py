"""`lineup schema` is the contract: every frame the hub sends has a schema, and the hub and schema agree.

The list of what the hub emits is read from the code (every `tx.append`, every system frame it builds), so a
new event type without a schema fails here rather than going stale in a hand-written list.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

import hub
from hub.cli import main
from hub.protocol.errors import LapError
from hub.protocol.stored import AGENT_VIEW_TYPES
from hub.store import projections
from tests.support import contract
from tests.unit.scenario import World, WriterRig, command, executor, populate

HUB = Path(hub.__file__).parent
SENDS_FRAME = {"send_system", "_send_raw", "system_frame", "answer"}  # (type_, payload, ...) of a hub frame


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.output)
    return document


def frame_validator(document: dict[str, Any], direction: str) -> Draft202012Validator:
    return Draft202012Validator({**document, "anyOf": [{"$ref": f"#/frames/{direction}"}]})


def _literals(node: ast.AST, function: ast.AST | None) -> set[str]:
    """The event type strings an argument can be: a literal, a conditional of literals, or a local assigned so."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.IfExp):
        return _literals(node.body, function) | _literals(node.orelse, function)
    if isinstance(node, ast.Name) and function is not None:
        found: set[str] = set()
        for sub in ast.walk(function):
            if isinstance(sub, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in sub.targets):
                found |= _literals(sub.value, None)
        return found
    return set()


def emitted_by_the_code() -> tuple[set[str], set[str], set[str]]:
    """(stored event types, those stored with recipients, system/live frame types) found in hub/'s source."""
    stored: set[str] = set()
    addressed: set[str] = set()
    frames: set[str] = set()
    for path in HUB.rglob("*.py"):
        if {"sdk", "mcp", "connect"} & set(path.relative_to(HUB).parts):
            continue  # clients of the hub, not the hub
        tree = ast.parse(path.read_text(encoding="utf-8"))
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for function in functions:
            for call in ast.walk(function):
                if not (isinstance(call, ast.Call) and call.args):
                    continue
                name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
                types = {t for t in _literals(call.args[0], function) if "." in t}
                if name == "append" and isinstance(call.func, ast.Attribute) and \
                        getattr(call.func.value, "id", "") == "tx":
                    stored |= types
                    if any(k.arg == "recipients" for k in call.keywords):
                        addressed |= types
                elif name in SENDS_FRAME:
                    frames |= types
            for call in ast.walk(function):  # Envelope(type="message.delta", ...) built for the wire
                if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Envelope":
                    for keyword in call.keywords:
                        if keyword.arg == "type":
                            frames |= _literals(keyword.value, function)
    return stored, addressed, frames


def test_the_source_scan_finds_what_the_hub_emits() -> None:
    stored, addressed, frames = emitted_by_the_code()
    # The scan itself works: a few types it must see, from each kind of call it reads.
    assert {"task.status_changed", "interaction.expired", "agent.paired", "notification.created"} <= stored
    assert {"task.created", "interaction.resolved", "tool.call"} <= addressed
    assert {"system.welcome", "system.pong", "system.caught_up", "tool.list", "message.delta"} <= frames


def test_every_event_type_the_hub_emits_has_a_schema(published: dict[str, Any]) -> None:
    stored, addressed, frames = emitted_by_the_code()
    frames -= {"interaction.respond"}  # hub/notify/actions.py builds one to answer for a person: inbound
    to_apps = set(published["frames"]["hubToApp"]["properties"]["type"]["enum"])
    to_agents = set(published["frames"]["hubToAgent"]["properties"]["type"]["enum"])
    assert stored - to_apps == set(), "stored event types without a payload schema (hub/protocol/stored.py)"
    assert stored <= set(published["events"]["hubToApp"])
    system = {t for t in frames if t.startswith("system.")}
    assert system - set(published["events"]["hubToClient"]) == set()
    assert frames - to_apps == set()
    agent_view = {AGENT_VIEW_TYPES.get(t, t) for t in addressed}
    assert agent_view - to_agents == set(), "event types agents are sent without a schema"
    # Whatever the projector knows is stored, so described too.
    assert set(projections.PROJECTORS) <= to_apps


def test_lineup_schema_is_valid_draft_2020_12_and_each_frame_schema_too(published: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(published)  # the document's own anyOf holds every frame schema
    assert {ref["$ref"] for ref in published["anyOf"]} == {f"#/frames/{d}" for d in published["frames"]}
    assert published["$defs"]["Envelope"]["properties"]["version"]["const"] == hub.PROTOCOL_VERSION


def _frame(type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"id": "e1", "type": type_, "version": "0.1", "occurredAt": "2026-07-24T12:00:00Z",
            "workspaceId": "ws1", "payload": payload, **fields}


@pytest.mark.parametrize(("direction", "frame", "complaint"), [
    ("agentToHub", _frame("task.status_changed", {"status": "failed"}, taskId="t1"), "needs `error"),
    ("hubToApp", _frame("task.status_changed", {"status": "failed", "previousStatus": "running"}, taskId="t1",
                        sequence=9), "needs `error"),
    ("appToHub", {k: v for k, v in _frame("task.create", {"title": "x"}).items() if k != "workspaceId"},
     "workspaceId"),
    ("appToHub", _frame("task.create", {"title": "x"}, version="0.2"), "Fixed: the protocol version"),
    ("appToHub", _frame("task.create", {"title": "x"}, sequence=3), "clients never send it"),
    ("agentToHub", _frame("tool.result", {"call_id": "c1", "result": {}, "error": {"code": "x"}}),
     "exactly one of `result` and `error`"),
    ("agentToHub", _frame("message.create", {"content": ""}, conversationId="c1"),
     "`content`, `blocks` or `attachments`"),
    ("agentToHub", _frame("artifact.created", {"name": "x"}, taskId="t1"), "`url` or `fileId`"),
    ("hubToApp", _frame("task.renamed", {}, sequence=4), "task.renamed"),
    ("hubToAgent", _frame("task.created", {"title": "x", "agentId": "a", "status": "queued",
                                           "createdBy": {"kind": "user", "id": "u"}}, sequence=4), "task.created"),
    ("hubToApp", _frame("task.created", {"title": "x", "agentId": "a", "status": "queued",
                                         "createdBy": {"kind": "user", "id": "u"}}), "sequence"),
])
def test_the_schema_refuses_and_says_which_rule(published: dict[str, Any], direction: str, frame: dict[str, Any],
                                                complaint: str) -> None:
    assert not frame_validator(published, direction).is_valid(frame)
    message = contract.problem(direction, frame)
    assert message is not None and complaint in message, message
    assert repr(frame["type"]) in message and "'e1'" in message  # names the frame


def test_a_failed_status_without_error_is_refused_by_the_schema_as_by_the_hub(published: dict[str, Any]) -> None:
    """Today's mismatch: the hub refused it while the schema its hint points at accepted it."""
    payload = published["events"]["agentToHub"]["task.status_changed"]
    schema = Draft202012Validator({"$defs": published["$defs"], **payload})
    assert not schema.is_valid({"status": "failed"})
    assert not schema.is_valid({"status": "failed", "error": None})
    assert schema.is_valid({"status": "failed", "error": {"code": "boom", "message": "it broke"}})
    assert schema.is_valid({"progress": 10})


async def test_the_hub_refuses_failed_without_error_and_points_at_the_schema(rig: WriterRig) -> None:
    world = await populate(executor(rig.writer))
    run = executor(rig.writer)
    await run(command(world.user, "task.create", {"title": "t", "targetAgentId": world.agent.id}, taskId="t9"))
    await run(command(world.agent, "task.accepted", {}, taskId="t9"))
    with pytest.raises(LapError) as info:
        await run(command(world.agent, "task.status_changed", {"status": "failed"}, taskId="t9"))
    assert info.value.code == "invalid_payload" and "lineup schema" in info.value.hint


async def test_every_event_of_a_real_log_matches_the_schema_as_apps_and_agents_receive_it(rig: WriterRig) -> None:
    """The scenario's log (accounts, a task to the end, a question, a cancel) as the hub would send it."""
    world: World = await populate(executor(rig.writer))
    run = executor(rig.writer)
    await run(command(world.user, "task.create", {"title": "t", "targetAgentId": world.agent.id}, taskId="t9"))
    await run(command(world.agent, "task.accepted", {}, taskId="t9"))
    await run(command(world.agent, "task.status_changed", {"status": "failed", "error": {"code": "boom"}},
                      taskId="t9"))
    events = [event for batch in rig.published for event in batch]
    assert len({e.type for e in events}) >= 15
    for event in events:
        assert contract.problem("hubToApp", json.loads(event.app_frame())) is None
        if event.recipients:
            assert contract.problem("hubToAgent", json.loads(event.agent_frame())) is None
