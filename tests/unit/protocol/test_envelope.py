"""decode_envelope: which refusal a bad frame gets, and the helpers that build hub frames."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hub.protocol.envelope import PROTOCOL_VERSION, Envelope, decode_envelope, new_id, now_iso, system_frame
from hub.protocol.errors import LapError


def frame(**changes: Any) -> str:
    body: dict[str, Any] = {"id": "e1", "type": "task.create", "version": "0.1", "occurredAt": "2026-07-24T12:00:00Z",
                            "workspaceId": "ws1", "payload": {"title": "Tidy"}}
    body.update(changes)
    return json.dumps({k: v for k, v in body.items() if v is not ...})


def refusal(data: str | bytes) -> LapError:
    with pytest.raises(LapError) as info:
        decode_envelope(data)
    return info.value


def test_a_valid_frame_decodes_from_text_and_bytes() -> None:
    for data in (frame(), frame().encode()):
        env = decode_envelope(data)
        assert (env.id, env.type, env.version, env.workspaceId, env.payload) == \
            ("e1", "task.create", "0.1", "ws1", {"title": "Tidy"})
        assert env.sequence is None and env.taskId is None


def test_hello_may_omit_the_workspace_and_unknown_envelope_fields_are_tolerated() -> None:
    env = decode_envelope(frame(type="app.hello", workspaceId=..., payload={"token": "t"}, futureField=1))
    assert env.workspaceId is None and env.type == "app.hello"


@pytest.mark.parametrize("data", ["", "not json", "{", '{"id": "e1",}', b"\xff\xfe", "{'id': 'e1'}", "[1, 2"])
def test_not_json_is_invalid_json(data: str | bytes) -> None:
    error = refusal(data)
    assert error.code == "invalid_json" and error.status == 400
    assert "JSON" in error.message and "one JSON object" in error.hint


@pytest.mark.parametrize(("data", "names"), [
    ("[1, 2]", "object"),
    ("42", "object"),
    ("{}", "`id`"),
    (frame(id=...), "`id`"),
    (frame(id=""), "$.id"),
    (frame(id="x" * 129), "$.id"),
    (frame(type=...), "`type`"),
    (frame(type="t" * 65), "$.type"),
    (frame(payload=...), "`payload`"),
    (frame(payload="text"), "$.payload"),
    (frame(payload=[1]), "$.payload"),
    (frame(version=0.1), "$.version"),
    (frame(occurredAt=...), "`occurredAt`"),
    (frame(workspaceId=""), "$.workspaceId"),
    (frame(taskId=7), "$.taskId"),
])
def test_json_of_the_wrong_shape_is_invalid_envelope_naming_the_field(data: str, names: str) -> None:
    error = refusal(data)
    assert error.code == "invalid_envelope"
    assert names in error.message


@pytest.mark.parametrize("version", ["0.2", "1.0", "", "0.1.0", " 0.1"])
def test_other_versions_are_unsupported(version: str) -> None:
    error = refusal(frame(version=version))
    assert error.code == "unsupported_version"
    assert repr(version) in error.message and "0.1" in error.hint


def test_shape_is_checked_before_version() -> None:
    assert refusal(frame(version="9.9", id=...)).code == "invalid_envelope"


@pytest.mark.parametrize("sequence", [0, 1, 123, None])
def test_a_client_set_sequence_is_refused(sequence: int | None) -> None:
    data = frame(sequence=sequence)
    if sequence is None:  # null is "not set"
        assert decode_envelope(data).sequence is None
        return
    error = refusal(data)
    assert error.code == "invalid_envelope" and "sequence" in error.message


def test_a_string_sequence_is_a_shape_error() -> None:
    error = refusal(frame(sequence="1"))
    assert error.code == "invalid_envelope" and "$.sequence" in error.message


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.text(max_size=200), st.binary(max_size=200)))
def test_arbitrary_input_only_ever_yields_a_protocol_refusal(data: str | bytes) -> None:
    try:
        decode_envelope(data)
    except LapError as exc:
        assert exc.code in ("invalid_json", "invalid_envelope", "unsupported_version")


# Only what JSON can hold: json.dumps would write NaN and Infinity, which are not JSON.
json_scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                | st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=10)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["id", "type", "version", "occurredAt", "payload", "workspaceId", "sequence",
                                        "taskId", "other"]), json_values, max_size=9))
def test_arbitrary_json_objects_are_never_invalid_json(body: dict[str, Any]) -> None:
    try:
        env = decode_envelope(json.dumps(body))
    except LapError as exc:
        assert exc.code in ("invalid_envelope", "unsupported_version")
    else:
        assert env.version == PROTOCOL_VERSION and env.sequence is None and isinstance(env.payload, dict)


def test_now_iso_is_utc_with_milliseconds() -> None:
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", now_iso())


def test_new_ids_are_prefixed_unique_and_time_sortable() -> None:
    ids = [new_id("evt") for _ in range(1000)]
    assert len(set(ids)) == 1000
    assert all(re.fullmatch(r"evt_[0-9a-f]{32}", i) for i in ids)
    assert [i[:16] for i in ids] == sorted(i[:16] for i in ids)  # the millisecond part never goes backwards


def test_system_frame_is_an_envelope_without_sequence() -> None:
    raw = system_frame("system.ack", {"id": "e1", "sequence": 3, "duplicate": False}, workspace_id="ws1",
                       correlation_id="e1")
    env = msgspec.json.decode(raw, type=Envelope)
    assert env.type == "system.ack" and env.version == "0.1" and env.sequence is None
    assert env.workspaceId == "ws1" and env.correlationId == "e1" and env.id.startswith("sys_")
    assert b"conversationId" not in raw  # unset optional fields are omitted
