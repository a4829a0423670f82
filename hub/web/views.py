"""How projection rows look in HTTP answers: camelCase objects, JSON columns decoded."""

from __future__ import annotations

import json
from typing import Any

import msgspec

from hub.store.queries.records import (
    AgentRecord,
    ArtifactRecord,
    ConversationRecord,
    DeviceRecord,
    InteractionRecord,
    MessageRecord,
    TaskRecord,
)


def _load(value: str | None) -> Any:
    return None if value is None else json.loads(value)


def agent(row: AgentRecord) -> dict[str, Any]:
    return {"id": row.id, "name": row.name, "runtime": row.runtime, "agentVersion": row.agent_version,
            "capabilities": _load(row.capabilities), "status": row.status, "statusReason": row.status_reason,
            "lastHeartbeatAt": row.last_heartbeat_at, "createdAt": row.created_at, "revokedAt": row.revoked_at}


def conversation(row: ConversationRecord) -> dict[str, Any]:
    return {"id": row.id, "workspaceId": row.workspace_id, "title": row.title,
            "agentIds": _load(row.agent_ids), "createdBy": row.created_by, "createdAt": row.created_at,
            "updatedAt": row.updated_at, "lastSequence": row.last_sequence}


def message(row: MessageRecord) -> dict[str, Any]:
    return {"id": row.id, "conversationId": row.conversation_id,
            "author": {"kind": row.author_kind, "id": row.author_id}, "targetAgentId": row.target_agent_id,
            "content": row.content, "blocks": _load(row.blocks), "state": row.state,
            "createdAt": row.created_at, "updatedAt": row.updated_at, "sequence": row.first_sequence,
            "lastSequence": row.last_sequence, "attachments": _load(row.attachments)}


def task(row: TaskRecord) -> dict[str, Any]:
    return {"id": row.id, "conversationId": row.conversation_id, "parentTaskId": row.parent_task_id,
            "agentId": row.agent_id, "title": row.title, "description": row.description,
            "status": row.status, "progress": row.progress, "summary": row.summary,
            "error": _load(row.error), "cancelRequestedAt": row.cancel_requested_at,
            "cancelReason": row.cancel_reason, "connectionLostAt": row.connection_lost_at,
            "createdBy": row.created_by, "createdAt": row.created_at, "updatedAt": row.updated_at,
            "lastSequence": row.last_sequence}


def task_files(rows: list[ArtifactRecord], total: int) -> dict[str, Any]:
    """A task's files for its card in lists (`files`, the first few; `fileCount`, all of them)."""
    return {"files": [{"fileId": r.url.rsplit("/", 1)[-1], "name": r.name, "mimeType": r.mime_type,
                       "artifactId": r.id} for r in rows], "fileCount": total}


def interaction(row: InteractionRecord) -> dict[str, Any]:
    """The card of hub/protocol/cards.py (`lineup schema`'s `reads.interaction`), as a JSON object."""
    return msgspec.structs.asdict(row.to_view())


def artifact(row: ArtifactRecord) -> dict[str, Any]:
    return {"id": row.id, "taskId": row.task_id, "conversationId": row.conversation_id,
            "agentId": row.agent_id, "name": row.name, "url": row.url, "mimeType": row.mime_type,
            "summary": row.summary, "createdAt": row.created_at}


def device(row: DeviceRecord, current_device_id: str | None) -> dict[str, Any]:
    return {"id": row.id, "userId": row.user_id, "name": row.name, "createdAt": row.created_at,
            "revokedAt": row.revoked_at, "current": row.id == current_device_id}
