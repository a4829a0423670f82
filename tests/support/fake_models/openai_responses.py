"""A scripted OpenAI Responses API on loopback, as Codex (and codex-acp) use it: POST /v1/responses, streamed.

Each POST /v1/responses takes the next scripted `Reply` and streams it the way the real API does:
`response.created`, then per block `response.output_item.added`, the text as `response.output_text.delta`
events (or the call's `response.function_call_arguments.delta`), `response.output_item.done` with the whole
item, and `response.completed` with the usage. Codex runs the function calls it is sent and posts again with a
`function_call_output` item; the next scripted reply answers that.

Which shell tool Codex offers depends on its version and model family (`exec_command`, `shell_command` or
`shell`): `shell("touch x")` answers with whichever the request offered, in that tool's argument shape.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.fake_models import Reply, Request, Script, Step, Text, ThreadedServer, ToolCall, text

SECRET_HEADERS = {"authorization", "x-api-key", "openai-api-key", "cookie"}


def offered_tools(body: dict[str, Any]) -> list[str]:
    """The names of the function tools a request offers the model."""
    return [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict) and t.get("name")]


def shell(command: str, *, say: str = "", delay_s: float = 0.0, workdir: str | None = None) -> Step:
    """A reply that runs `command` through whichever shell tool the request offers, in that tool's shape."""

    def reply(body: dict[str, Any]) -> Reply:
        tools = offered_tools(body)
        if "exec_command" in tools:
            call = ToolCall("exec_command", {"cmd": command, **({"workdir": workdir} if workdir else {})})
        elif "shell_command" in tools:
            call = ToolCall("shell_command", {"command": command, **({"workdir": workdir} if workdir else {})})
        elif "shell" in tools:
            call = ToolCall("shell", {"command": ["bash", "-lc", command], **({"workdir": workdir} if workdir else {})})
        else:
            raise AssertionError(f"the request offers no shell tool; it offers {tools}")
        return Reply(((Text(say),) if say else ()) + (call,), delay_s)

    return reply


def _sse(event: dict[str, Any]) -> bytes:
    return f"event: {event['type']}\ndata: {json.dumps(event)}\n\n".encode()


class FakeOpenAIResponses:
    """The fake API: `base_url` for Codex's `model_providers.*.base_url`, `requests` as received, `close()`."""

    def __init__(self, steps: list[Step], *, chunk_chars: int = 12, side_text: str = "Marker file") -> None:
        self.script = Script(steps)
        self.side_text = side_text
        self.chunk_chars = chunk_chars
        self.requests: list[Request] = []
        self.closing = threading.Event()
        self.streams_started = 0
        self.streams_finished = 0
        app = Starlette(routes=[
            Route("/v1/responses", self._responses, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/{path:path}", self._other, methods=["GET", "POST", "HEAD", "PUT", "DELETE"]),
        ])
        self.server = ThreadedServer(app)
        self.url = self.server.url
        self.base_url = self.url + "/v1"

    def close(self) -> None:
        self.closing.set()  # a held stream ends now, so that the server stops without waiting for it
        self.server.close()

    def __enter__(self) -> FakeOpenAIResponses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def _hold(self, delay_s: float) -> None:
        """A model still thinking: a cancel or a kill lands mid-turn; cut short when the fake closes."""
        deadline = time.monotonic() + delay_s
        while time.monotonic() < deadline and not self.closing.is_set():
            await asyncio.sleep(0.05)

    # ---- what was received ----------------------------------------------------------------------------

    def main_requests(self) -> list[Request]:
        return [r for r in self.requests if r.kind == "main"]

    def function_call_outputs(self) -> list[dict[str, Any]]:
        """The `function_call_output` items Codex sent back (the last request holds them all), oldest first."""
        seen: dict[str, dict[str, Any]] = {}
        for request in self.main_requests():
            for item in request.body.get("input") or []:
                if isinstance(item, dict) and item.get("type") == "function_call_output":
                    seen[str(item.get("call_id"))] = item
        return list(seen.values())

    def user_texts(self) -> list[str]:
        """The texts of the user messages in the newest request."""
        requests = self.main_requests()
        if not requests:
            return []
        texts = []
        for item in requests[-1].body.get("input") or []:
            if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
                for part in item.get("content") or []:
                    if isinstance(part, dict) and part.get("type") == "input_text":
                        texts.append(str(part.get("text", "")))
        return texts

    # ---- handlers -------------------------------------------------------------------------------------

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
        return JSONResponse({"object": "list", "data": [], "models": []})

    async def _responses(self, request: HttpRequest) -> Response:
        raw = await request.body()
        try:
            peek: Any = json.loads(raw) if raw else {}
        except ValueError:
            peek = {}
        # A request offering no tools is a side request (interactive Codex names the thread with one): it is
        # answered with `side_text` and leaves the script to the turn's own requests.
        side = isinstance(peek, dict) and not peek.get("tools")
        record = await self._record(request, "side" if side else "main")
        body = record.body if isinstance(record.body, dict) else {}
        reply = text(self.side_text) if side else self.script.next(body)
        model = str(body.get("model") or "fake-model")
        return StreamingResponse(self._stream(reply, model), media_type="text/event-stream",
                                 headers={"cache-control": "no-cache"})

    async def _stream(self, reply: Reply, model: str) -> AsyncIterator[bytes]:
        self.streams_started += 1
        response_id = self.script.new_id("resp_")
        sequence = iter(range(1, 1_000_000))
        base = {"id": response_id, "object": "response", "created_at": int(time.time()), "model": model,
                "status": "in_progress", "output": []}
        yield _sse({"type": "response.created", "sequence_number": next(sequence), "response": base})
        yield _sse({"type": "response.in_progress", "sequence_number": next(sequence), "response": base})
        if reply.delay_s:
            await self._hold(reply.delay_s)
        output: list[dict[str, Any]] = []
        for index, block in enumerate(reply.blocks):
            if isinstance(block, Text):
                item_id = self.script.new_id("msg_")
                added = {"type": "message", "id": item_id, "status": "in_progress", "role": "assistant",
                         "content": []}
                yield _sse({"type": "response.output_item.added", "sequence_number": next(sequence),
                            "output_index": index, "item": added})
                part = {"type": "output_text", "text": "", "annotations": []}
                yield _sse({"type": "response.content_part.added", "sequence_number": next(sequence),
                            "item_id": item_id, "output_index": index, "content_index": 0, "part": part})
                for start in range(0, len(block.text), self.chunk_chars):
                    yield _sse({"type": "response.output_text.delta", "sequence_number": next(sequence),
                                "item_id": item_id, "output_index": index, "content_index": 0,
                                "delta": block.text[start:start + self.chunk_chars]})
                yield _sse({"type": "response.output_text.done", "sequence_number": next(sequence),
                            "item_id": item_id, "output_index": index, "content_index": 0, "text": block.text})
                part = {**part, "text": block.text}
                yield _sse({"type": "response.content_part.done", "sequence_number": next(sequence),
                            "item_id": item_id, "output_index": index, "content_index": 0, "part": part})
                item = {**added, "status": "completed", "content": [part]}
            else:
                item_id = self.script.new_id("fc_")
                call_id = block.id or self.script.new_id("call_")
                arguments = json.dumps(block.arguments)
                added = {"type": "function_call", "id": item_id, "call_id": call_id, "name": block.name,
                         "arguments": "", "status": "in_progress"}
                yield _sse({"type": "response.output_item.added", "sequence_number": next(sequence),
                            "output_index": index, "item": added})
                yield _sse({"type": "response.function_call_arguments.delta", "sequence_number": next(sequence),
                            "item_id": item_id, "output_index": index, "delta": arguments})
                yield _sse({"type": "response.function_call_arguments.done", "sequence_number": next(sequence),
                            "item_id": item_id, "output_index": index, "arguments": arguments})
                item = {**added, "arguments": arguments, "status": "completed"}
            output.append(item)
            yield _sse({"type": "response.output_item.done", "sequence_number": next(sequence),
                        "output_index": index, "item": item})
        usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
        yield _sse({"type": "response.completed", "sequence_number": next(sequence),
                    "response": {**base, "status": "completed", "output": output, "usage": usage}})
        self.streams_finished += 1


__all__ = ["FakeOpenAIResponses", "offered_tools", "shell"]
