"""The corpus of malformed frames a hub might send an agent, shared by both SDKs' tests: tests/support/bad_frames.json.

Made from the hub's own schema (`frames.hubToAgent` of hub/protocol/schema.py): a valid frame of every type the hub
sends an agent, then each of its fields (the envelope's and the payload's, nested objects too) given values of other
types and left out, keeping every variant the schema refuses; and by hand what no schema says: text that is not JSON,
arrays and scalars, unknown types, nesting deeper than a parser recurses, numbers past what JavaScript counts exactly,
NaN, UTF-8 cut in the middle of a character, a binary frame. Entries:

- `{"name", "json": value}`: sent as that value's JSON; `{"name", "text": "..."}`: sent as it is written;
- `{"name", "utf8Hex": "..."}`: these bytes in a text frame (not UTF-8: the client's WebSocket library closes the
  connection, 1007, so `reconnects` is true); `{"name", "binary": "..."}`: a binary frame of that text.

`frames` come after the welcome and caught_up: the client logs each, stays connected (or connects again where
`reconnects`) and still handles a good task sent afterwards. `welcomes` answer the hello: each is a failed connection,
and the client connects again. `python -m tests.support.bad_frames` writes the file; tests/unit/sdk/test_bad_frames.py
checks it is what this module makes and that every frame entry breaks the schema or one of the SDKs' own checks.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).with_name("bad_frames.json")
WORKSPACE = "ws_fake"
AGENT = "agt_fake"
GOOD_TASK_SEQUENCE = 1000  # the good task after the corpus: above every sequence a bad frame carries but the huge ones


def _frame(type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"id": f"evt_{type_.replace('.', '_')}", "type": type_, "version": "0.1",
            "occurredAt": "2026-01-01T00:00:00.000Z", "workspaceId": WORKSPACE, "payload": payload, **fields}


def valid_frames() -> list[dict[str, Any]]:
    """One valid frame of every type the hub sends an agent (each checked against the schema by the unit test)."""
    user = {"kind": "user", "id": "usr_1"}
    return [
        _frame("system.welcome", {"workspaceId": WORKSPACE, "heartbeatIntervalMs": 25000, "epoch": "e1",
                                  "headSequence": 0, "agentId": AGENT, "openTasks": []}),
        _frame("system.ack", {"id": "env_1", "sequence": 7, "duplicate": False}),
        _frame("system.error", {"code": "invalid_payload", "message": "No.", "hint": "", "id": "env_2"}),
        _frame("system.resync_required", {"reason": "epoch_changed", "epoch": "e2", "headSequence": 3}),
        _frame("system.caught_up", {"sequence": 0}),
        _frame("system.pong", {}, correlationId="ping_1"),
        _frame("task.assigned", {"title": "A task", "description": "", "agentId": AGENT, "status": "queued",
                                 "createdBy": user}, sequence=11, taskId="tsk_1", conversationId="cnv_1"),
        _frame("message.delivered", {"content": "hello", "messageId": "msg_1", "author": user,
                                     "attachments": [{"fileId": "fil_1", "name": "a.txt", "mimeType": "text/plain",
                                                      "size": 3}]},
               sequence=12, conversationId="cnv_1"),
        _frame("interaction.resolved", {"interactionId": "int_1", "outcome": "answered",
                                        "response": {"optionId": "approve", "approved": True},
                                        "respondedBy": {**user, "displayName": "Ann"}}, sequence=13, taskId="tsk_1"),
        _frame("task.cancel_requested", {"reason": "stop", "requestedBy": user}, sequence=14, taskId="tsk_1"),
        _frame("task.status_changed", {"status": "failed", "previousStatus": "running", "progress": 50,
                                       "summary": "s", "error": {"code": "x", "message": "y"}},
               sequence=15, taskId="tsk_1"),
        _frame("tool.call", {"call_id": "call_1", "name": "lookup", "arguments": {"q": 1},
                             "caller": {"kind": "app", "id": "dev_1"}, "target": {"kind": "agent", "id": AGENT}},
               sequence=16),
        _frame("tool.result", {"call_id": "call_2", "callEventId": "evt_9", "error": {"code": "nope", "message": ""}},
               sequence=17),
        _frame("tool.list", {"tools": [{"name": "lookup"}]}, correlationId="env_3"),
    ]


def _wrong_values(value: Any) -> list[Any]:
    """Values of other types than `value`'s (and, for a string, one no enum holds)."""
    if isinstance(value, bool):
        return ["yes", 1, None]
    if isinstance(value, int):
        return ["abc", 1.5, None, [value]]
    if isinstance(value, str):
        return [42, None, [value], {"v": value}, "zz-not-one-of-them"]
    if isinstance(value, dict):
        return [[1, 2, 3], "x", None]
    if isinstance(value, list):
        return [{}, "x", None, [[[]]]]
    return [42, {}]


def _paths(value: dict[str, Any], prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for key, inner in value.items():
        yield (*prefix, key)
        if isinstance(inner, dict):
            yield from _paths(inner, (*prefix, key))


def _set(frame: dict[str, Any], path: tuple[str, ...], value: Any, *, delete: bool = False) -> dict[str, Any]:
    changed = copy.deepcopy(frame)
    holder = changed
    for key in path[:-1]:
        holder = holder[key]
    if delete:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return changed


def mutations(refused: Any) -> Iterator[dict[str, Any]]:
    """Every valid frame with one field given each wrong value or left out, where the schema (`refused(frame)`
    true) refuses the result."""
    for frame in valid_frames():
        for path in _paths(frame):
            where = ".".join(path)
            original = frame
            for key in path:
                original = original[key]
            for wrong in _wrong_values(original):
                changed = _set(frame, path, wrong)
                if refused(changed):
                    yield {"name": f"{frame['type']}: {where} = {json.dumps(wrong)[:40]}", "json": changed}
            changed = _set(frame, path, None, delete=True)
            if refused(changed):
                yield {"name": f"{frame['type']}: {where} left out", "json": changed}


def by_hand() -> list[dict[str, Any]]:
    """What no schema says about: not JSON, not an object, past what parsers and JavaScript's numbers take."""
    task = next(f for f in valid_frames() if f["type"] == "task.assigned")
    text = json.dumps(task)
    return [
        {"name": "not JSON", "text": "not json at all"},
        {"name": "empty", "text": ""},
        {"name": "an open brace", "text": "{"},
        {"name": "JSON cut short", "text": text[: len(text) // 2]},
        {"name": "a NUL", "text": "\u0000"},
        {"name": "an array of numbers", "json": [1, 2, 3]},
        {"name": "an empty array", "json": []},
        {"name": "null", "json": None},
        {"name": "a number", "json": 42},
        {"name": "a string", "json": "task.assigned"},
        {"name": "true", "json": True},
        {"name": "an empty object", "json": {}},
        {"name": "only a type", "json": {"type": "task.assigned"}},
        {"name": "an unknown type", "json": {**task, "type": "something.new", "sequence": 20}},
        {"name": "another protocol version", "json": {**task, "version": "0.2", "sequence": 21}},
        {"name": "an agent-to-hub type from the hub", "json": {**task, "type": "task.accepted", "sequence": 22}},
        {"name": "the task's payload an array", "json": {**task, "payload": [task["payload"]], "sequence": 23}},
        {"name": "arrays nested 20,000 deep", "text": "[" * 20_000 + "]" * 20_000},
        {"name": "objects nested 10,000 deep", "text": '{"a":' * 10_000 + "1" + "}" * 10_000},
        {"name": "junk nested 200 deep in a field", "json": {**task, "payload": {"title": [[[]]] * 3, "deep": json.loads(
            "[" * 200 + "]" * 200)}}},
        {"name": "a sequence past 2**53", "text": text.replace('"sequence": 11', '"sequence": 9007199254740993')},
        {"name": "a sequence of 10**30", "text": text.replace('"sequence": 11', '"sequence": 1' + "0" * 30)},
        {"name": "a sequence of 1e400", "text": text.replace('"sequence": 11', '"sequence": 1e400')},
        {"name": "a sequence of -1", "text": text.replace('"sequence": 11', '"sequence": -1')},
        {"name": "a sequence of NaN", "text": text.replace('"sequence": 11', '"sequence": NaN')},
        {"name": "a sequence of Infinity", "text": text.replace('"sequence": 11', '"sequence": Infinity')},
        {"name": "a sequence as text", "text": text.replace('"sequence": 11', '"sequence": "abc"')},
        {"name": "a progress of 1e308", "text": json.dumps({**task, "type": "task.status_changed", "sequence": 24,
                                                            "payload": {"status": "running",
                                                                        "previousStatus": "queued",
                                                                        "progress": 1}}).replace(
            '"progress": 1', '"progress": 1e308')},
        {"name": "a title of 501 characters", "json": {**task, "sequence": 25,
                                                        "payload": {**task["payload"], "title": "x" * 501}}},
        {"name": "a task id of 129 characters", "json": {**task, "sequence": 26, "taskId": "t" * 129}},
        {"name": "a lone surrogate in an unknown type", "text": text.replace('"task.assigned"', '"\\ud800"')},
        {"name": "UTF-8 cut in the middle of a character", "utf8Hex": (text[:-2].encode() + b'\xe2\x82').hex(),
         "reconnects": True},
        {"name": "not UTF-8 at all", "utf8Hex": "c328ffa0", "reconnects": True},
        {"name": "a binary frame", "binary": text},
    ]


def welcomes() -> list[dict[str, Any]]:
    """Answers to the hello that are no welcome: each must be a failed connection, connected again."""
    welcome = valid_frames()[0]
    return [
        {"name": "not JSON", "text": "{{{{"},
        {"name": "an array", "json": [1, 2, 3]},
        {"name": "a heartbeat as text", "json": _set(welcome, ("payload", "heartbeatIntervalMs"), "soon")},
        {"name": "no epoch", "json": _set(welcome, ("payload", "epoch"), None, delete=True)},
        {"name": "a caught_up instead", "json": valid_frames()[4]},
        {"name": "a task instead", "json": valid_frames()[6]},
        {"name": "a heartbeat of 1e400", "text": json.dumps(welcome).replace('"heartbeatIntervalMs": 25000',
                                                                           '"heartbeatIntervalMs": 1e400')},
    ]


def build() -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    from hub.protocol.schema import protocol_schema

    document = protocol_schema()
    validator = Draft202012Validator({"$defs": document["$defs"], **document["frames"]["hubToAgent"]})
    frames = [*by_hand(), *mutations(lambda frame: not validator.is_valid(frame))]
    return {"about": "Malformed frames from a hub, for both SDKs' tests: tests/support/bad_frames.py made this file "
                     "(python -m tests.support.bad_frames); read its docstring.",
            "goodTaskSequence": GOOD_TASK_SEQUENCE, "frames": frames, "welcomes": welcomes()}


def render(corpus: dict[str, Any]) -> str:
    """The file's text: one entry a line, so a change to the corpus reads as lines added and removed."""
    def lines(entries: list[dict[str, Any]]) -> str:
        return ",\n".join(json.dumps(e, ensure_ascii=True, separators=(",", ":")) for e in entries)

    head = {k: v for k, v in corpus.items() if k not in ("frames", "welcomes")}
    return (json.dumps(head, ensure_ascii=True)[:-1] + ',\n"frames": [\n' + lines(corpus["frames"])
            + '\n],\n"welcomes": [\n' + lines(corpus["welcomes"]) + "\n]}\n")


def main() -> None:
    CORPUS.write_text(render(build()))


if __name__ == "__main__":
    main()
