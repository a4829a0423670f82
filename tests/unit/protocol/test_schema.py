"""The published JSON Schema (`lineup schema`) is valid Draft 2020-12 and agrees with the hub's own decoding."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from hub.cli import main
from hub.protocol import payloads as P
from hub.protocol.envelope import system_frame
from hub.protocol.schema import protocol_schema
from hub.store.events import StoredEvent
from tests.unit.scenario import envelope


@pytest.fixture(scope="module")
def published() -> dict[str, Any]:
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.output)
    return document


def validator(document: dict[str, Any], subschema: dict[str, Any]) -> Draft202012Validator:
    """A validator for one part of the document, resolving its $refs against the document's $defs."""
    schema = {"$schema": document["$schema"], "$defs": document["$defs"], **subschema}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_cli_prints_the_same_document_the_hub_builds(published: dict[str, Any]) -> None:
    assert published == json.loads(json.dumps(protocol_schema()))


def test_the_document_and_every_part_are_valid_draft_2020_12(published: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(published)
    assert published["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    # `events` and `frames` are not keywords, so the metaschema skips them: check them as $defs, in one pass
    # (one check per part costs seconds each on this document).
    parts = {f"{group}/{direction}/{type_}": schema for group in ("events",)
             for direction, table in published[group].items() for type_, schema in table.items()}
    parts.update({f"frames/{direction}": schema for direction, schema in published["frames"].items()})
    Draft202012Validator.check_schema({"$schema": published["$schema"], "$defs": {**published["$defs"], **parts}})


def test_every_event_type_is_described(published: dict[str, Any]) -> None:
    events = published["events"]
    assert set(events["appToHub"]) == set(P.APP_INBOUND) | {"system.ping"}
    assert set(events["agentToHub"]) == set(P.AGENT_INBOUND) | {"system.ping"}
    assert set(events["handshake"]) == {"agent.hello", "app.hello"}
    assert {"system.welcome", "system.ack", "system.error"} <= set(events["hubToClient"])
    assert events["appToHub"]["task.create"] == {"$ref": "#/$defs/TaskCreate"}


def test_real_envelopes_validate(published: dict[str, Any]) -> None:
    envelope_schema = validator(published, published["envelope"])
    client = msgspec.to_builtins(envelope("task.create", {"title": "Tidy"}, "ws1", taskId="t1"))
    envelope_schema.validate(client)
    stored = StoredEvent(12, "e1", "task.created", "ws1", None, "t1", None, "user:u1", "2026-07-24T12:00:00Z",
                         "2026-07-24T12:00:00.123Z", {"title": "Tidy", "_secret": "x"})
    envelope_schema.validate(json.loads(stored.app_frame()))
    ack = json.loads(system_frame("system.ack", {"id": "e1", "sequence": 12, "duplicate": False}))
    envelope_schema.validate(ack)
    validator(published, published["events"]["hubToClient"]["system.ack"]).validate(ack["payload"])


@pytest.mark.parametrize("bad", [
    {"type": "task.create", "version": "0.1", "occurredAt": "t", "payload": {}},            # no id
    {"id": "", "type": "task.create", "version": "0.1", "occurredAt": "t", "payload": {}},  # empty id
    {"id": "e1", "type": "task.create", "version": "0.1", "occurredAt": "t", "payload": "x"},
    {"id": "e1", "type": "task.create", "version": 0.1, "occurredAt": "t", "payload": {}},
    {"id": "e1", "type": "task.create", "version": "0.1", "occurredAt": "t", "payload": {}, "sequence": "1"},
    ["not", "an", "object"],
])
def test_bad_envelopes_are_rejected(published: dict[str, Any], bad: Any) -> None:
    assert not validator(published, published["envelope"]).is_valid(bad)


@pytest.mark.parametrize(("direction", "type_", "good", "bad"), [
    ("appToHub", "task.create", {"title": "Tidy", "extra": 1}, {"title": ""}),
    ("agentToHub", "task.status_changed", {"status": "running", "progress": 50}, {"progress": 101}),
    ("agentToHub", "interaction.requested", {"interaction": {"type": "approval", "title": "Go?"}},
     {"interaction": {"type": "poll", "title": "Go?"}}),
    ("handshake", "agent.hello", {"credential": "lu_agt_x", "capabilities": ["chat"]}, {"capabilities": []}),
])
def test_payload_schemas_agree_with_the_hub(published: dict[str, Any], direction: str, type_: str,
                                            good: dict[str, Any], bad: dict[str, Any]) -> None:
    schema = validator(published, published["events"][direction][type_])
    kind = {**P.APP_INBOUND, **P.AGENT_INBOUND, **P.HANDSHAKES}[type_]
    assert schema.is_valid(good)
    P.parse_payload(kind, good)
    assert not schema.is_valid(bad)
    with pytest.raises(Exception, match="Invalid payload"):
        P.parse_payload(kind, bad)


def test_the_whole_document_refuses_a_frame_no_direction_allows(published: dict[str, Any]) -> None:
    """`lineup schema` says "this document validates any of them": it must also refuse what no side may send.
    Walking through with jsonschema, a task.status_changed without its workspaceId passed, as a "handshake" frame:
    the handshake's frame took any type, not only the two hellos that are the handshake."""
    document = Draft202012Validator(published)
    status = {"id": "e1", "type": "task.status_changed", "version": "0.1", "occurredAt": "2026-12-04T04:00:00Z",
              "workspaceId": "ws1", "taskId": "t1", "payload": {"status": "running", "progress": 50}}
    assert document.is_valid(status)
    assert not document.is_valid({k: v for k, v in status.items() if k != "workspaceId"})
    hello = {"id": "h1", "type": "agent.hello", "version": "0.1", "occurredAt": "2026-12-04T04:00:00Z",
             "payload": {"credential": "lu_agt_x", "capabilities": ["chat"]}}
    assert document.is_valid(hello)  # the hello itself names no workspace: the credential says which
    handshake = validator(published, published["frames"]["handshake"])
    assert handshake.is_valid(hello)
    assert not handshake.is_valid({**hello, "type": "task.create", "payload": {"title": "Tidy"}})
    # Each side's frame refuses what the hub refuses from it (`forbidden`: the other side's types, a second
    # hello), and still allows a type nobody defines (acked with a warning).
    app, agent = (validator(published, published["frames"][side]) for side in ("appToHub", "agentToHub"))
    assert agent.is_valid(status) and not app.is_valid(status)
    assert not agent.is_valid({**hello, "workspaceId": "ws1"})
    assert app.is_valid({**status, "type": "x.custom", "payload": {}})


def test_the_committed_schema_is_what_lineup_schema_prints() -> None:
    """docs/lap-0.1.schema.json is `lineup schema`'s output, committed so a protocol change shows in review."""
    committed = Path(__file__).resolve().parents[3] / "docs" / "lap-0.1.schema.json"
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0, result.output
    assert committed.read_text() == result.output, (
        "docs/lap-0.1.schema.json differs from `lineup schema`: if the protocol change is meant, regenerate it with "
        "`lineup schema > docs/lap-0.1.schema.json` (or `python -m hub schema > ...`) and commit it")
