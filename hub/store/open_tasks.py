"""An agent's unfinished work as the hub has it: handed to the agent in its welcome, so a restarted agent resumes."""

# An agent that restarts, crashes, or is replaced by a second copy must not trust its own files for what it was
# doing: the state file may be lost, stale, or another process's. The welcome carries the truth instead — every
# task assigned to the agent that has not ended, with its progress, its child tasks, its questions and their
# outcomes, and the named steps the agent marked done (`task.checkpoint`). The SDK resumes from this
# (docs/sdk.md "Restart-safe handlers").

from __future__ import annotations

import json
import sqlite3
from typing import Any

from hub.store.queries.records import (
    ChildTaskRecord,
    OpenTaskRecord,
    TaskQuestionRecord,
    fetch_all,
    select_list,
)

MAX_OPEN_TASKS = 200        # tasks in one welcome; the rest are flagged (`openTasksTruncated`) and come later
MAX_PER_TASK = 500          # child tasks and questions listed per task


def _decode(value: str | None) -> Any:
    return json.loads(value) if value else None


def open_tasks(conn: sqlite3.Connection, workspace_id: str, agent_id: str) -> tuple[list[dict[str, Any]], bool]:
    """The agent's unfinished top-level tasks that someone else gave it (oldest first), and whether more exist."""
    rows = fetch_all(conn, OpenTaskRecord,
                     f"SELECT {select_list(OpenTaskRecord)} FROM tasks WHERE agent_id = ? AND workspace_id = ? "
                     "AND parent_task_id IS NULL AND status NOT IN ('succeeded', 'failed', 'cancelled') "
                     "AND created_by != ? ORDER BY created_at, id LIMIT ?",
                     (agent_id, workspace_id, f"agent:{agent_id}", MAX_OPEN_TASKS + 1))
    truncated = len(rows) > MAX_OPEN_TASKS
    tasks = []
    for row in rows[:MAX_OPEN_TASKS]:
        children = fetch_all(conn, ChildTaskRecord,
                             f"SELECT {select_list(ChildTaskRecord)} FROM tasks WHERE parent_task_id = ? "
                             "AND workspace_id = ? ORDER BY created_at, id LIMIT ?",
                             (row.id, workspace_id, MAX_PER_TASK))
        questions = fetch_all(conn, TaskQuestionRecord,
                              f"SELECT {select_list(TaskQuestionRecord)} FROM interactions WHERE task_id = ? "
                              "AND workspace_id = ? AND agent_id = ? ORDER BY created_at, id LIMIT ?",
                              (row.id, workspace_id, agent_id, MAX_PER_TASK))
        tasks.append({
            "taskId": row.id, "conversationId": row.conversation_id, "title": row.title,
            "description": row.description, "status": row.status, "progress": row.progress,
            "summary": row.summary, "cancelRequested": row.cancel_requested_at is not None,
            "cancelReason": row.cancel_reason, "checkpoints": _decode(row.checkpoints) or {},
            "children": [{"taskId": c.id, "title": c.title, "status": c.status} for c in children],
            "interactions": [{"interactionId": q.id, "status": q.status, "response": _decode(q.response),
                              "respondedBy": _decode(q.responded_by)} for q in questions],
        })
    return tasks, truncated
