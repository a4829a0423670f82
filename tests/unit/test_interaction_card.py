"""One description of an interaction card: the table's row, its record, the card the reads answer and the schema."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
from jsonschema import Draft202012Validator

from hub.protocol.cards import InteractionCard
from hub.protocol.schema import protocol_schema
from hub.store.queries.records import InteractionRecord
from hub.web import views

ROW = InteractionRecord(
    "ask-1", "ws-1", "task-1", "conv-1", "agent-1", "approval", "Deploy?", "high",
    json.dumps({"id": "ask-1", "type": "approval", "title": "Deploy?", "risk": "high", "sentBy": "an old agent",
                "options": [{"id": "approve", "label": "Approve"}, {"id": "reject", "label": "Reject"}]}),
    "answered", json.dumps({"optionId": "approve", "approved": True}),
    json.dumps({"kind": "user", "id": "u1", "displayName": "Ada"}), "2026-01-02T03:04:06Z", None,
    "2026-01-02T03:04:05Z", 42)


def camel(name: str) -> str:
    return re.sub(r"_(\w)", lambda m: m.group(1).upper(), name)


def test_the_card_is_the_row_in_camel_case_in_the_tables_order() -> None:
    # The record's fields are the table's columns (tests/unit/store/test_records.py); the card's are the record's
    # but the workspace (every read is of one), so a column added to the table is added here or this fails.
    record = [camel(f) for f in InteractionRecord.__struct_fields__ if f != "workspace_id"]
    assert list(InteractionCard.__struct_fields__) == record


def test_the_view_is_the_card_with_the_json_columns_decoded() -> None:
    view = views.interaction(ROW)
    assert view == msgspec.to_builtins(ROW.to_view())
    assert list(view) == list(InteractionCard.__struct_fields__)
    assert view["spec"]["sentBy"] == "an old agent"  # handed on as stored: a sender's own fields stay
    assert view["respondedBy"]["displayName"] == "Ada" and view["response"]["approved"] is True


def card_validator() -> Draft202012Validator:
    document: dict[str, Any] = json.loads(json.dumps(protocol_schema()))
    schema = {"$schema": document["$schema"], "$defs": document["$defs"], **document["reads"]["interaction"]}
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_the_schema_describes_the_card_the_reads_answer() -> None:
    validator = card_validator()
    assert not list(validator.iter_errors(views.interaction(ROW)))
    pending = views.interaction(msgspec.structs.replace(ROW, status="pending", response=None, responded_by=None,
                                                        responded_at=None))
    assert not list(validator.iter_errors(pending))
    assert list(validator.iter_errors({**pending, "status": "maybe"}))
    assert list(validator.iter_errors({k: v for k, v in pending.items() if k != "lastSequence"}))
