"""HTTP reads for the app: conversations, messages, tasks, a task's detail, the inbox, events
(docs/design.md#inbox-and-task-lists)."""

from __future__ import annotations

import sqlite3
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from hub.protocol.errors import LapError
from hub.protocol.vocabulary import TASK_STATUSES
from hub.store import events as event_log
from hub.store.queries import conversations, interactions, tasks
from hub.store.queries.records import MessageRecord
from hub.web import views
from hub.web.auth import require_user
from hub.web.port import hub_of

# Every list is bounded (a flood of questions once made the inbox 102 MB: docs/security.md#agents); a task's parts
# beyond this are left out of its detail, and the inbox says how many questions wait in all.
DETAIL_PART_LIMIT = 500
TASK_CARD_FILES = 6  # files named on a task's card in the task list (the rest counted; the detail lists them all)


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
    hub = hub_of(request)
    return JSONResponse({"epoch": hub.epoch, "headSequence": hub.writer.head})


async def list_conversations(request: Request) -> JSONResponse:
    """The most recently active conversations first, `limit` of them (500 by default)."""
    actor = await require_user(request)
    limit = _int_param(request, "limit", 500, low=1, high=2000)
    rows = await hub_of(request).read(lambda c: conversations.recent_conversations(c, actor.workspace_id, limit))
    return JSONResponse({"conversations": [views.conversation(r) for r in rows]})


async def list_messages(request: Request) -> JSONResponse:
    """Newest page first by `before` (a message's sequence); each page is returned oldest to newest."""
    actor = await require_user(request)
    conversation_id = request.path_params["conversation_id"]
    before = _int_param(request, "before", 1 << 62)
    limit = _int_param(request, "limit", 50, low=1, high=500)

    def read(c: sqlite3.Connection) -> list[MessageRecord] | None:
        if not conversations.conversation_exists(c, conversation_id, actor.workspace_id):
            return None
        return conversations.messages_before(c, conversation_id, actor.workspace_id, before, limit)

    rows = await hub_of(request).read(read)
    if rows is None:
        raise LapError("not_found", f"No conversation {conversation_id!r} in this workspace.")
    rows.reverse()
    return JSONResponse({"messages": [views.message(r) for r in rows],
                         "nextBefore": rows[0].first_sequence if len(rows) == limit else None})


async def list_tasks(request: Request) -> JSONResponse:
    actor = await require_user(request)
    statuses = [s for s in request.query_params.get("status", "").split(",") if s]
    unknown = set(statuses).difference(TASK_STATUSES)
    if unknown:
        raise LapError("invalid_payload", f"Unknown task status {sorted(unknown)}; use {sorted(TASK_STATUSES)}.")
    limit = _int_param(request, "limit", 100, low=1, high=1000)
    conversation_id = request.query_params.get("conversationId")

    def read(c: sqlite3.Connection) -> list[dict[str, Any]]:
        rows = tasks.latest_tasks(c, actor.workspace_id, statuses, conversation_id, limit)
        # An agent's files on its task's card in the conversation: the first few of each, and how many in all.
        files = tasks.files_of_tasks(c, actor.workspace_id, [r.id for r in rows if not r.parent_task_id],
                                     TASK_CARD_FILES)
        return [{**views.task(r), **views.task_files(*files.get(r.id, ([], 0)))} for r in rows]

    return JSONResponse({"tasks": await hub_of(request).read(read)})


async def task_detail(request: Request) -> JSONResponse:
    actor = await require_user(request)
    task_id = request.path_params["task_id"]
    ws = actor.workspace_id  # ids are unique within a workspace: every read names both

    def read(c: sqlite3.Connection) -> dict[str, Any] | None:
        task = tasks.task(c, task_id, ws)
        if task is None:
            return None
        children = tasks.children(c, task_id, ws, DETAIL_PART_LIMIT)
        artifacts = tasks.artifacts(c, task_id, ws, DETAIL_PART_LIMIT)
        asked = interactions.interactions_of_task(c, task_id, ws, DETAIL_PART_LIMIT)
        timeline = tasks.timeline(c, task_id, ws)
        return {"task": views.task(task), "children": [views.task(r) for r in children],
                "artifacts": [views.artifact(r) for r in artifacts],
                "interactions": [views.interaction(r) for r in asked],
                "timeline": [dict(e.as_dict(), actor=e.actor) for e in timeline]}

    detail = await hub_of(request).read(read)
    if detail is None:
        raise LapError("not_found", f"No task {task_id!r} in this workspace.")
    return JSONResponse(detail)


async def inbox(request: Request) -> JSONResponse:
    """docs/design.md#inbox-and-task-lists: waiting for me (the oldest `limit`, 50 by default, and how many in all),
    failed / needs attention, recently completed. Child tasks show inside their parent, not here."""
    actor = await require_user(request)
    ws = actor.workspace_id
    limit = _int_param(request, "limit", 50, low=1, high=200)
    after = _int_param(request, "after", 0)  # paging on: the previous page's `waitingForMeNextAfter`

    def read(c: sqlite3.Connection) -> dict[str, Any]:
        waiting = interactions.oldest_pending(c, ws, limit, after)
        total = interactions.pending_count(c, ws)
        failed = tasks.needing_attention(c, ws)
        done = tasks.recently_completed(c, ws)
        # Each question names its task: the card shows it before the task list (read after the inbox) arrives.
        titles = tasks.titles(c, ws, [r.task_id for r in waiting if r.task_id])
        return {"waitingForMe": [{**views.interaction(r), "taskTitle": titles.get(r.task_id or "")} for r in waiting],
                "waitingForMeTotal": total,
                "waitingForMeNextAfter": waiting[-1].last_sequence if len(waiting) == limit else None,
                "needsAttention": [views.task(r) for r in failed],
                "recentlyCompleted": [views.task(r) for r in done]}

    return JSONResponse(await hub_of(request).read(read))


async def list_interactions(request: Request) -> JSONResponse:
    actor = await require_user(request)
    status = request.query_params.get("status")
    limit = _int_param(request, "limit", 200, low=1, high=200)
    before = _int_param(request, "before", 1 << 62)
    rows = await hub_of(request).read(
        lambda c: interactions.latest_interactions(c, actor.workspace_id, status, limit, before))
    return JSONResponse({"interactions": [views.interaction(r) for r in rows],
                         "nextBefore": rows[-1].page_cursor if len(rows) == limit else None})


async def list_events(request: Request) -> JSONResponse:
    """The workspace's events after a sequence, a page at a time: `nextAfter` until it is null."""
    actor = await require_user(request)
    hub = hub_of(request)
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
