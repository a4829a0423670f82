"""HTTP reads for the app: conversations, messages, tasks, a task's detail, the inbox, events (seed 002 §6)."""

from __future__ import annotations

import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.protocol.errors import LapError
from hub.store import events as event_log
from hub.web import views
from hub.web.auth import require_user

TASK_STATUSES = {"queued", "running", "waiting_for_human", "succeeded", "failed", "cancelled"}


def _int_param(request: Request, name: str, default: int, *, low: int = 0, high: int = 1 << 62) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise LapError("invalid_payload", f"Query parameter {name!r} must be a whole number.") from None
    if not low <= value <= high:
        raise LapError("invalid_payload", f"Query parameter {name!r} must be between {low} and {high}.")
    return value


async def state(request: Request) -> JSONResponse:
    """Where the log stands: the app loads state over HTTP, then connects with lastSequence = headSequence."""
    await require_user(request)
    hub = request.app.state.hub
    return JSONResponse({"epoch": hub.epoch, "headSequence": hub.writer.head})


async def list_conversations(request: Request) -> JSONResponse:
    actor = await require_user(request)
    rows = await request.app.state.hub.read(lambda c: c.execute(
        "SELECT * FROM conversations WHERE workspace_id = ? ORDER BY last_sequence DESC", (actor.workspace_id,)
    ).fetchall())
    return JSONResponse({"conversations": [views.conversation(r) for r in rows]})


async def list_messages(request: Request) -> JSONResponse:
    """Newest page first by `before` (a message's sequence); each page is returned oldest to newest."""
    actor = await require_user(request)
    conversation_id = request.path_params["conversation_id"]
    before = _int_param(request, "before", 1 << 62)
    limit = _int_param(request, "limit", 50, low=1, high=500)

    def read(c: sqlite3.Connection) -> list[sqlite3.Row] | None:
        if c.execute("SELECT 1 FROM conversations WHERE id = ? AND workspace_id = ?",
                     (conversation_id, actor.workspace_id)).fetchone() is None:
            return None
        return c.execute("SELECT * FROM messages WHERE conversation_id = ? AND workspace_id = ? AND first_sequence < ? "
                         "ORDER BY first_sequence DESC LIMIT ?",
                         (conversation_id, actor.workspace_id, before, limit)).fetchall()

    rows = await request.app.state.hub.read(read)
    if rows is None:
        raise LapError("not_found", f"No conversation {conversation_id!r} in this workspace.")
    rows.reverse()
    return JSONResponse({"messages": [views.message(r) for r in rows],
                         "nextBefore": rows[0]["first_sequence"] if len(rows) == limit else None})


async def list_tasks(request: Request) -> JSONResponse:
    actor = await require_user(request)
    statuses = [s for s in request.query_params.get("status", "").split(",") if s]
    unknown = set(statuses) - TASK_STATUSES
    if unknown:
        raise LapError("invalid_payload", f"Unknown task status {sorted(unknown)}; use {sorted(TASK_STATUSES)}.")
    limit = _int_param(request, "limit", 100, low=1, high=1000)
    sql, params = "SELECT * FROM tasks WHERE workspace_id = ?", [actor.workspace_id]
    if statuses:
        sql += f" AND status IN ({','.join('?' * len(statuses))})"
        params += statuses
    conversation_id = request.query_params.get("conversationId")
    if conversation_id:
        sql += " AND conversation_id = ?"
        params.append(conversation_id)
    sql += " ORDER BY last_sequence DESC LIMIT ?"
    params.append(limit)
    rows = await request.app.state.hub.read(lambda c: c.execute(sql, params).fetchall())
    return JSONResponse({"tasks": [views.task(r) for r in rows]})


async def task_detail(request: Request) -> JSONResponse:
    actor = await require_user(request)
    task_id = request.path_params["task_id"]
    scope = (task_id, actor.workspace_id)  # ids are unique within a workspace: every read names both

    def read(c: sqlite3.Connection) -> dict[str, Any] | None:
        task = c.execute("SELECT * FROM tasks WHERE id = ? AND workspace_id = ?", scope).fetchone()
        if task is None:
            return None
        children = c.execute("SELECT * FROM tasks WHERE parent_task_id = ? AND workspace_id = ? ORDER BY created_at",
                             scope).fetchall()
        artifacts = c.execute("SELECT * FROM artifacts WHERE task_id = ? AND workspace_id = ? ORDER BY created_at",
                              scope).fetchall()
        interactions = c.execute("SELECT * FROM interactions WHERE task_id = ? AND workspace_id = ? "
                                 "ORDER BY created_at", scope).fetchall()
        timeline = c.execute("SELECT sequence, id, type, workspace_id, conversation_id, task_id, correlation_id, actor, "
                             "occurred_at, recorded_at, payload FROM events WHERE task_id = ? AND workspace_id = ? "
                             "ORDER BY sequence LIMIT 5000", scope).fetchall()
        return {"task": views.task(task), "children": [views.task(r) for r in children],
                "artifacts": [views.artifact(r) for r in artifacts],
                "interactions": [views.interaction(r) for r in interactions],
                "timeline": [dict(event_log.row_to_event(r).as_dict(), actor=r["actor"]) for r in timeline]}

    detail = await request.app.state.hub.read(read)
    if detail is None:
        raise LapError("not_found", f"No task {task_id!r} in this workspace.")
    return JSONResponse(detail)


async def inbox(request: Request) -> JSONResponse:
    """Seed 002 §6: waiting for me, failed / needs attention, recently completed."""
    actor = await require_user(request)
    ws = actor.workspace_id

    def read(c: sqlite3.Connection) -> dict[str, Any]:
        waiting = c.execute("SELECT * FROM interactions WHERE workspace_id = ? AND status = 'pending' "
                            "ORDER BY created_at", (ws,)).fetchall()
        failed = c.execute("SELECT * FROM tasks WHERE workspace_id = ? AND (status = 'failed' OR "
                           "(connection_lost_at IS NOT NULL AND status IN ('running', 'waiting_for_human'))) "
                           "ORDER BY last_sequence DESC LIMIT 50", (ws,)).fetchall()
        done = c.execute("SELECT * FROM tasks WHERE workspace_id = ? AND status IN ('succeeded', 'cancelled') "
                         "ORDER BY last_sequence DESC LIMIT 20", (ws,)).fetchall()
        return {"waitingForMe": [views.interaction(r) for r in waiting],
                "needsAttention": [views.task(r) for r in failed],
                "recentlyCompleted": [views.task(r) for r in done]}

    return JSONResponse(await request.app.state.hub.read(read))


async def list_interactions(request: Request) -> JSONResponse:
    actor = await require_user(request)
    status = request.query_params.get("status")
    sql, params = "SELECT * FROM interactions WHERE workspace_id = ?", [actor.workspace_id]
    if status:
        sql += " AND status = ?"
        params.append(status)
    rows = await request.app.state.hub.read(lambda c: c.execute(sql + " ORDER BY created_at DESC LIMIT 200",
                                                               params).fetchall())
    return JSONResponse({"interactions": [views.interaction(r) for r in rows]})


async def list_events(request: Request) -> JSONResponse:
    """The workspace's events after a sequence, a page at a time: `nextAfter` until it is null."""
    actor = await require_user(request)
    hub = request.app.state.hub
    after = _int_param(request, "after", 0)
    limit = _int_param(request, "limit", event_log.PAGE_SIZE, low=1, high=event_log.PAGE_SIZE)
    head = hub.writer.head
    page = await hub.read(lambda c: event_log.read_workspace_after(c, actor.workspace_id, after, head, limit))
    return JSONResponse({"events": [e.as_dict() for e in page], "headSequence": head, "epoch": hub.epoch,
                         "nextAfter": page[-1].sequence if len(page) == limit else None})


routes = [
    Route("/api/state", state),
    Route("/api/conversations", list_conversations),
    Route("/api/conversations/{conversation_id}/messages", list_messages),
    Route("/api/tasks", list_tasks),
    Route("/api/tasks/{task_id}", task_detail),
    Route("/api/inbox", inbox),
    Route("/api/interactions", list_interactions),
    Route("/api/events", list_events),
]
