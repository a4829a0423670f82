"""A fake OpenAI chat-completions API on loopback, as Hermes and OpenClaw use it: POST /v1/chat/completions.

It answers from the conversation itself rather than from a list, because both agents make model calls of their
own besides the turn a test drives (OpenClaw's Gateway heartbeat and catalog refresh, Hermes's title and its
approval reviewer), and OpenClaw adds an internal `user` message after the person's prompt:

- a request offering no tools is a side call: answered with `side_text`;
- the newest user message holding `RUN: <command>` or `SAY: <text>` (the rest of that line): for `RUN`, if a
  `tool` message answers it already, the reply is `DONE: <what the tool said>`, otherwise a call of the shell tool
  the request offers (`exec` for OpenClaw, `terminal` for Hermes, …) with `{"command": <command>}`; for `SAY`,
  `REPLY: <text>` (for agents that put a header of their own before the person's words, as OpenClaw does);
- anything else: `REPLY: <the first line of the newest user message>`.

Streamed as the real API does (`chat.completion.chunk` events, tool call arguments in pieces, the usage chunk
when `stream_options.include_usage`, `data: [DONE]`), or as one JSON answer without `stream`. Every request is
kept in `requests` (its API key header left out). `/v1/models` lists `fake-model`; Hermes's Ollama probe
(`/api/show`) and anything else are 404.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.fake_models import Request, ThreadedServer

SECRET_HEADERS = {"authorization", "x-api-key", "api-key", "cookie"}
SHELL_TOOLS = ("exec", "terminal", "bash", "shell", "run_shell_command", "execute_command")
RUN = re.compile(r"RUN: ([^\n]+)")
SAY = re.compile(r"SAY: ([^\n]+)")
MODEL = "fake-model"


def message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def offered_tools(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict) and function.get("name"):
            names.append(str(function["name"]))
    return names


def decide(body: dict[str, Any], side_text: str) -> tuple[str, dict[str, Any] | None]:
    """(text, tool call or None) for one request, from its messages (the rules in the module docstring)."""
    tools = offered_tools(body)
    if not tools:
        return side_text, None
    messages = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") != "user":
            continue
        said = SAY.search(message_text(message))
        if said is not None:  # newer than any RUN: the person moved on
            return f"REPLY: {said[1].strip()[:200]}", None
        found = RUN.search(message_text(message))
        if found is None:
            continue
        answered = [m for m in messages[index + 1:] if m.get("role") == "tool"]
        if answered:
            return f"DONE: {message_text(answered[-1])[:300]}", None
        shell = next((name for name in SHELL_TOOLS if name in tools), None)
        if shell is None:
            return f"REPLY: no shell tool among {tools}", None
        return "", {"name": shell, "arguments": {"command": found[1].strip()}}
    users = [m for m in messages if m.get("role") == "user" and "INTERNAL_CONTEXT" not in message_text(m)]
    first_line = message_text(users[-1]).strip().splitlines()[0] if users and message_text(users[-1]).strip() else ""
    return f"REPLY: {first_line[:200]}", None


class FakeChat:
    """The fake API: `base_url` for the agents' custom provider, `requests` as received, `close()`."""

    def __init__(self, *, side_text: str = "OK", chunk_chars: int = 16) -> None:
        self.side_text = side_text
        self.chunk_chars = chunk_chars
        self.requests: list[Request] = []
        self._ids = iter(range(1, 1_000_000))
        self._lock = threading.Lock()
        app = Starlette(routes=[
            Route("/v1/chat/completions", self._completions, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/{path:path}", self._other, methods=["GET", "POST", "HEAD", "PUT", "DELETE"]),
        ])
        self.server = ThreadedServer(app)
        self.url = self.server.url
        self.base_url = self.url + "/v1"

    def close(self) -> None:
        self.server.close()

    def __enter__(self) -> FakeChat:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def tool_calls(self) -> list[dict[str, Any]]:
        """The tool calls the fake made, oldest first (name and arguments)."""
        return [r.body["_answer"] for r in self.requests if isinstance(r.body, dict) and r.body.get("_answer")]

    def _new_id(self, prefix: str) -> str:
        with self._lock:
            return f"{prefix}{next(self._ids):05d}"

    async def _record(self, request: HttpRequest, kind: str) -> Request:
        raw = await request.body()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        record = Request(request.method, request.url.path, request.url.query,
                         {k: v for k, v in request.headers.items() if k.lower() not in SECRET_HEADERS}, body,
                         kind=kind)
        self.requests.append(record)
        return record

    async def _other(self, request: HttpRequest) -> Response:
        await self._record(request, "other")
        return JSONResponse({"error": {"message": "not offered by the fake", "type": "not_found"}}, status_code=404)

    async def _models(self, request: HttpRequest) -> Response:
        await self._record(request, "models")
        return JSONResponse({"object": "list", "data": [{"id": MODEL, "object": "model", "owned_by": "fake"}]})

    async def _completions(self, request: HttpRequest) -> Response:
        record = await self._record(request, "main")
        body = record.body if isinstance(record.body, dict) else {}
        if not offered_tools(body):
            record.kind = "side"
        text, call = decide(body, self.side_text)
        if call is not None:
            call = {**call, "id": self._new_id("call_fake_")}
            body["_answer"] = call  # kept with the request for tool_calls()
        completion_id = self._new_id("chatcmpl-fake-")
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not body.get("stream"):
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if call is not None:
                message["tool_calls"] = [{"id": call["id"], "type": "function", "function": {
                    "name": call["name"], "arguments": json.dumps(call["arguments"])}}]
            return JSONResponse({"id": completion_id, "object": "chat.completion", "created": 0, "model": MODEL,
                                 "choices": [{"index": 0, "message": message,
                                              "finish_reason": "tool_calls" if call else "stop"}],
                                 "usage": usage})
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return StreamingResponse(self._stream(completion_id, text, call, usage if include_usage else None),
                                 media_type="text/event-stream")

    async def _stream(self, completion_id: str, text: str, call: dict[str, Any] | None,
                      usage: dict[str, int] | None) -> Any:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
            event = {"id": completion_id, "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
            return f"data: {json.dumps(event)}\n\n".encode()

        yield chunk({"role": "assistant", "content": ""})
        for start in range(0, len(text), self.chunk_chars):
            yield chunk({"content": text[start:start + self.chunk_chars]})
        if call is not None:
            arguments = json.dumps(call["arguments"])
            yield chunk({"tool_calls": [{"index": 0, "id": call["id"], "type": "function",
                                         "function": {"name": call["name"], "arguments": ""}}]})
            for start in range(0, len(arguments), self.chunk_chars):
                yield chunk({"tool_calls": [{"index": 0, "function": {
                    "arguments": arguments[start:start + self.chunk_chars]}}]})
        yield chunk({}, "tool_calls" if call is not None else "stop")
        if usage is not None:
            yield f"data: {json.dumps({'id': completion_id, 'object': 'chat.completion.chunk', 'created': 0, 'model': MODEL, 'choices': [], 'usage': usage})}\n\n".encode()
        yield b"data: [DONE]\n\n"
