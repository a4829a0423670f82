"""The bridge's own MCP tools: name, description, input and output schema and honest annotations of each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.protocol.vocabulary import INTERACTION_OUTCOMES, RISK_LEVELS, TASK_STATUSES, TERMINAL_TASK_STATUSES, ordered

OUTCOMES = list(INTERACTION_OUTCOMES)
# A step is a child task, and a child task never waits for a person itself (its question blocks the parent).
STEP_STATUSES = [status for status in TASK_STATUSES if status != "waiting_for_human"]

_REQUEST_ID = {"type": "string", "minLength": 1, "maxLength": 100,
               "description": "Optional. The same question (same arguments, same request_id) in the same task "
                              "is asked once: calling again — after a timeout or a restart — waits for or returns "
                              "that question's answer. Give a new request_id to ask the same question anew."}
_EXPIRES = {"type": "integer", "minimum": 1, "maximum": 30 * 24 * 3600,
            "description": "Optional: the question expires after this many seconds (outcome `expired`)."}
_TITLE = {"type": "string", "minLength": 1, "maxLength": 500, "description": "The question, short and specific."}
_DESCRIPTION = {"type": "string", "maxLength": 20000, "description": "Context: why you ask, what happens next."}


def _question_output(**extra: Any) -> dict[str, Any]:
    return {"type": "object", "required": ["outcome", "interactionId"], "properties": {
        "outcome": {"type": "string", "enum": OUTCOMES,
                    "description": "answered; declined (the person said no or dismissed it); expired; cancelled"},
        "interactionId": {"type": "string"},
        "taskId": {"type": ["string", "null"]},
        "comment": {"type": ["string", "null"]},
        "respondedBy": {"type": ["object", "null"]},
        "repeated": {"type": "boolean", "description": "true: this question was asked before; its answer is reused"},
        **extra}}


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool
    asks: str | None = None  # the interaction type, for the tools that ask the person


# Asking the person changes nothing but the hub's inbox (not read-only, not destructive); the same question
# asked again is the same question (idempotent); a person is an open world.
QUESTION_HINTS = {"read_only": False, "destructive": False, "idempotent": True, "open_world": True}

# One item of `approves` (docs/protocol.md#what-an-approval-approves); the hub checks each item's fields for its kind.
_APPROVAL_ITEM = {"type": "object", "required": ["kind"], "properties": {
    "kind": {"type": "string", "enum": ["command", "write", "edit", "tool"]},
    "command": {"type": "string", "description": "command: the whole text a shell runs"},
    "argv": {"type": "array", "items": {"type": "string"}, "minItems": 1,
             "description": "command: the program and its arguments, run without a shell (instead of `command`)"},
    "cwd": {"type": "string", "maxLength": 4096},
    "path": {"type": "string", "maxLength": 4096, "description": "write, edit: the file"},
    "content": {"type": "string", "description": "write: the file's whole new content"},
    "edits": {"type": "array", "items": {"type": "object", "required": ["old", "new"], "properties": {
        "old": {"type": "string"}, "new": {"type": "string"}, "replaceAll": {"type": "boolean"}}},
        "description": "edit: each replacement, old text → new text"},
    "diff": {"type": "string", "description": "write, edit: a unified diff of the change"},
    "tool": {"type": "string", "maxLength": 500, "description": "tool: its name"},
    "input": {"description": "tool: its whole input (any JSON)"}}}

ASK_APPROVAL = ToolSpec(
    "ask_approval", "Ask the person to approve",
    "Ask the person (in the LineUp app, on their phone or browser) to approve or reject an action before you "
    "take it. Waits until they answer; returns the outcome: answered (approved), declined (rejected), expired "
    "or cancelled. Use it before anything risky, irreversible or costly.",
    {"type": "object", "required": ["title"], "properties": {
        "title": _TITLE, "description": _DESCRIPTION,
        "risk": {"type": "string", "enum": list(RISK_LEVELS), "default": "medium"},
        "impact": {"type": "string", "maxLength": 5000, "description": "What changes if approved"},
        "details": {"type": "object", "description": "Facts to show with the question (key → value)"},
        "command": {"type": "string", "minLength": 1, "maxLength": 60_000,
                    "description": "When this approves running a shell command: the exact, whole command. The "
                                   "person sees all of it, and its risk is judged from it (never lower than yours)"},
        "cwd": {"type": "string", "maxLength": 4096, "description": "The folder the command runs in"},
        "approves": {"type": "array", "minItems": 1, "maxItems": 50, "items": _APPROVAL_ITEM,
                     "description": "What approving approves, when it is more than one command: each command, file "
                                    "write, file edit or tool input, whole (the person sees every item, each item's "
                                    "risk is judged). Not with `command`"},
        "expires_in_s": _EXPIRES, "request_id": _REQUEST_ID}},
    _question_output(approved={"type": "boolean"}), asks="approval", **QUESTION_HINTS)

ASK_CHOICE = ToolSpec(
    "ask_choice", "Ask the person to choose",
    "Ask the person to pick one option (or several, with multiple: true). Waits until they answer; returns the "
    "chosen labels and ids (o1, o2, ... in the order given).",
    {"type": "object", "required": ["title", "options"], "properties": {
        "title": _TITLE, "description": _DESCRIPTION,
        "options": {"type": "array", "minItems": 2, "maxItems": 20, "description": "The options, in order",
                    "items": {"anyOf": [
                        {"type": "string", "minLength": 1, "maxLength": 200},
                        {"type": "object", "required": ["label"], "properties": {
                            "label": {"type": "string", "minLength": 1, "maxLength": 200},
                            "description": {"type": "string", "maxLength": 2000},
                            "recommended": {"type": "boolean"}}}]}},
        "multiple": {"type": "boolean", "default": False, "description": "Allow choosing several"},
        "expires_in_s": _EXPIRES, "request_id": _REQUEST_ID}},
    _question_output(selected={"type": "array", "items": {"type": "string"}},
                     selectedIds={"type": "array", "items": {"type": "string"}}),
    asks="choice", **QUESTION_HINTS)

ASK_INPUT = ToolSpec(
    "ask_input", "Ask the person to type an answer",
    "Ask the person for a value (text, url, email, number, integer, or text matching a regular expression). "
    "The app checks the answer before accepting it. Waits until they answer; returns the text.",
    {"type": "object", "required": ["title"], "properties": {
        "title": _TITLE, "description": _DESCRIPTION,
        "format": {"type": "string", "enum": ["text", "url", "email", "number", "integer"], "default": "text"},
        "pattern": {"type": "string", "maxLength": 500,
                    "description": "A regular expression the whole answer must match"},
        "placeholder": {"type": "string", "maxLength": 500},
        "max_length": {"type": "integer", "minimum": 1, "maximum": 100000},
        "expires_in_s": _EXPIRES, "request_id": _REQUEST_ID}},
    _question_output(text={"type": ["string", "null"]}), asks="input", **QUESTION_HINTS)

REQUEST_REVIEW = ToolSpec(
    "request_review", "Ask the person to review",
    "Ask the person to review a piece of work (a plan, a diff, a text) and approve it or request changes. "
    "Waits until they answer; returns the decision and their comment.",
    {"type": "object", "required": ["title", "content"], "properties": {
        "title": _TITLE, "description": _DESCRIPTION,
        "content": {"type": "string", "minLength": 1, "maxLength": 200000, "description": "What to review (Markdown)"},
        "attachments": {"type": "array", "maxItems": 20, "items": {
            "type": "object", "required": ["name", "url"],
            "properties": {"name": {"type": "string"}, "url": {"type": "string"}, "mimeType": {"type": "string"}}}},
        "expires_in_s": _EXPIRES, "request_id": _REQUEST_ID}},
    _question_output(decision={"type": ["string", "null"], "enum": ["approve", "request_changes", None]},
                     approved={"type": "boolean"}),
    asks="review", **QUESTION_HINTS)

_SESSION_OUTPUT: dict[str, Any] = {"type": "object", "required": ["taskId", "conversationId"], "properties": {
    "taskId": {"type": ["string", "null"], "description": "null: no task yet (a message before any report)"},
    "conversationId": {"type": "string"},
    "messages": {"type": "array", "description": "Messages the person wrote to you in LineUp since your last call",
                 "items": {"type": "object"}}}}

REPORT_PROGRESS = ToolSpec(
    "report_progress", "Report progress to the person",
    "Show the person what you are doing: the task of this session (started by the first call; give it a title), "
    "its percent done, a one-line summary, and steps shown as child tasks (each by title, with its status). "
    "Returns any messages the person sent you meanwhile.",
    {"type": "object", "properties": {
        "title": {"type": "string", "minLength": 1, "maxLength": 500,
                  "description": "The task's title; used when this call starts the session's task"},
        "percent": {"type": "integer", "minimum": 0, "maximum": 100},
        "summary": {"type": "string", "maxLength": 2000, "description": "What is happening now, in one line"},
        "steps": {"type": "array", "maxItems": 100, "description": "Child tasks, created or updated by title",
                  "items": {"type": "object", "required": ["title", "status"], "properties": {
                      "title": {"type": "string", "minLength": 1, "maxLength": 500},
                      "status": {"type": "string", "enum": STEP_STATUSES},
                      "summary": {"type": "string", "maxLength": 2000}}}}}},
    _SESSION_OUTPUT, read_only=False, destructive=False, idempotent=True, open_world=True)

SEND_MESSAGE = ToolSpec(
    "send_message", "Send the person a message",
    "Post a message (Markdown) in this session's conversation in LineUp, for the person to read. It does not "
    "wait for a reply; replies come back in the results of report_progress and send_message.",
    {"type": "object", "required": ["text"], "properties": {
        "text": {"type": "string", "minLength": 1, "maxLength": 200000}}},
    {**_SESSION_OUTPUT, "properties": {**_SESSION_OUTPUT["properties"], "messageId": {"type": "string"}}},
    read_only=False, destructive=False, idempotent=False, open_world=True)

PUBLISH_ARTIFACT = ToolSpec(
    "publish_artifact", "Publish an artifact",
    "Attach a result to this session's task: a link (url) or a small text file (content, up to about 2,900 "
    "bytes, kept as a data: URL). The person sees it with the task.",
    {"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 500, "description": "e.g. report.md"},
        "url": {"type": "string", "minLength": 1, "maxLength": 4000},
        "content": {"type": "string", "minLength": 1},
        "mime_type": {"type": "string", "maxLength": 200},
        "summary": {"type": "string", "maxLength": 4000}}},
    {**_SESSION_OUTPUT, "properties": {**_SESSION_OUTPUT["properties"], "artifactId": {"type": "string"}}},
    read_only=False, destructive=False, idempotent=False, open_world=True)

FINISH_TASK = ToolSpec(
    "finish_task", "Finish the task",
    "End this session's task: succeeded (default), failed (say why in error) or cancelled. Steps still open end "
    "with it. The next report_progress or question starts a new task.",
    {"type": "object", "properties": {
        "status": {"type": "string", "enum": ordered(TERMINAL_TASK_STATUSES), "default": "succeeded"},
        "summary": {"type": "string", "maxLength": 2000},
        "error": {"type": "string", "maxLength": 2000, "description": "What went wrong (status failed)"}}},
    {"type": "object", "required": ["status"], "properties": {
        "taskId": {"type": ["string", "null"]}, "status": {"type": "string"}, "summary": {"type": ["string", "null"]}}},
    # Ending a task is final but deletes nothing; finishing an already finished task changes nothing.
    read_only=False, destructive=False, idempotent=True, open_world=True)

OWN_TOOLS: dict[str, ToolSpec] = {spec.name: spec for spec in (
    ASK_APPROVAL, ASK_CHOICE, ASK_INPUT, REQUEST_REVIEW, REPORT_PROGRESS, SEND_MESSAGE, PUBLISH_ARTIFACT,
    FINISH_TASK)}

INSTRUCTIONS = (
    "LineUp connects you to the person you work for, on their phone or in their browser. Before anything risky "
    "or irreversible call ask_approval; when a decision is theirs call ask_choice, ask_input or request_review. "
    "These wait for the person and return a typed outcome (answered, declined, expired, cancelled); if a call "
    "times out, call it again with the same arguments: it picks up the same question, it does not ask twice. "
    "Keep the person informed with report_progress (title, percent, summary, steps) and send_message, attach "
    "results with publish_artifact, and end with finish_task. The hub's own tools (calculator, canvas, ...) are "
    "offered under their names."
)
