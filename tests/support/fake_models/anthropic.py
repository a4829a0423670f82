"""A scripted fake of the Anthropic Messages API (what Claude Code and claude-code-acp call), on loopback.

    with FakeAnthropic([tool("Bash", {"command": "echo hi > out.txt"}), text("Done.")]) as model:
        env = {"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "test", ...}
        ... run claude ...
        assert "hi" in model.tool_results()[0]["content"]...

Main requests (the ones that carry `tools`) consume the script in order and are answered in the real API's
SSE sequence when `stream` is true (message_start, content_block_start/delta/stop per block, message_delta with
the stop reason, message_stop), or as one JSON message otherwise. Side requests (no tools: titles, topic checks,
the quota probe, a small model's summaries) are answered with `side_text` and do not consume the script.
`HEAD /` and `GET /` answer 200, `count_tokens` a rough count; anything else 404. Every request is logged.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, cast

from starlette.applications import Starlette
from starlette.requests import Request as HttpRequest
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.support.fake_models import (
    Reply,
    Request,
    Script,
    Step,
    Text,
    ThreadedServer,
    ToolCall,
    text,
    tool,
    wait_until,
)

SECRET_HEADERS = {"x-api-key", "authorization", "cookie"}


def _is_main(body: dict[str, Any]) -> bool:
    return bool(body.get("tools")) and body.get("max_tokens") != 1


class FakeAnthropic:
    """The fake Messages API server; use as a context manager or call `close()`."""

    def __init__(self, steps: list[Step] | None = None, *, side_text: str | Callable[[dict[str, Any]], str] = "OK",
                 is_main: Callable[[dict[str, Any]], bool] = _is_main) -> None:
        self.script = Script(steps or [])
        self.side_text = side_text
        self.is_main = is_main
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        app = Starlette(routes=[
            Route("/", self._root, methods=["GET", "HEAD"]),
            Route("/v1/messages", self._messages, methods=["POST"]),
            Route("/v1/messages/count_tokens", self._count_tokens, methods=["POST"]),
            Route("/{path:path}", self._unknown, methods=["GET", "POST", "HEAD", "PUT", "DELETE"]),
        ])
        self._server = ThreadedServer(app)
        self.url = self._server.url

    # --- what a test reads -------------------------------------------------------------------------------------

    def main_requests(self) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if r.kind == "main"]

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block the client sent back, in order (deduplicated by tool_use_id)."""
        seen: dict[str, dict[str, Any]] = {}
        for request in self.main_requests():
            for message in request.body.get("messages", []):
                content = message.get("content")
                if message.get("role") != "user" or not isinstance(content, list):
                    continue
                for block in content:
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        seen.setdefault(block.get("tool_use_id", ""), block)
        return list(seen.values())

    @staticmethod
    def result_text(block: dict[str, Any]) -> str:
        """A tool_result's content as one string (it is a string or a list of text blocks)."""
        content = block.get("content", "")
        if isinstance(content, list):
            return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
        return str(content)

    def wait_for_requests(self, count: int, timeout: float = 60.0) -> list[Request]:
        return cast(list[Request], wait_until(lambda: len(self.main_requests()) >= count and self.main_requests(), timeout))

    # --- the API -----------------------------------------------------------------------------------------------

    def _log(self, request: HttpRequest, body: Any, kind: str) -> Request:
        entry = Request(request.method, request.url.path, request.url.query,
                        {k: v for k, v in request.headers.items() if k.lower() not in SECRET_HEADERS}, body, kind=kind)
        with self._lock:
            self.requests.append(entry)
        return entry

    async def _root(self, request: HttpRequest) -> Response:
        self._log(request, None, "probe")
        return Response(status_code=200)

    async def _unknown(self, request: HttpRequest) -> Response:
        self._log(request, (await request.body()).decode(errors="replace"), "unknown")
        return JSONResponse({"type": "error", "error": {"type": "not_found_error", "message": "not here"}}, 404)

    async def _count_tokens(self, request: HttpRequest) -> Response:
        body = await request.json()
        self._log(request, body, "count_tokens")
        return JSONResponse({"input_tokens": max(1, len(json.dumps(body)) // 4)})

    async def _messages(self, request: HttpRequest) -> Response:
        try:
            body = await request.json()
        except ValueError:
            self._log(request, None, "invalid")
            return JSONResponse({"type": "error", "error": {"type": "invalid_request_error",
                                                            "message": "body is not JSON"}}, 400)
        if not isinstance(body, dict):
            body = {}
        main = self.is_main(body)
        self._log(request, body, "main" if main else "side")
        if main:
            reply = self.script.next(body)
        else:
            said = self.side_text(body) if callable(self.side_text) else self.side_text
            reply = text(said)
        model = str(body.get("model", "claude-fake"))
        blocks = [self._block(b) for b in reply.blocks]
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        message_id = self.script.new_id("msg_fake_")
        if body.get("stream"):
            return StreamingResponse(self._stream(message_id, model, blocks, stop, reply.delay_s),
                                     media_type="text/event-stream", headers={"cache-control": "no-cache"})
        return JSONResponse({"id": message_id, "type": "message", "role": "assistant", "model": model,
                             "content": blocks, "stop_reason": stop, "stop_sequence": None,
                             "usage": {"input_tokens": 10, "output_tokens": 10}})

    def _block(self, block: Text | ToolCall) -> dict[str, Any]:
        if isinstance(block, Text):
            return {"type": "text", "text": block.text}
        return {"type": "tool_use", "id": block.id or self.script.new_id("toolu_fake_"), "name": block.name,
                "input": block.arguments}

    async def _stream(self, message_id: str, model: str, blocks: list[dict[str, Any]], stop: str,
                      delay_s: float) -> AsyncIterator[bytes]:
        def event(name: str, data: dict[str, Any]) -> bytes:
            return f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()

        usage = {"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        yield event("message_start", {"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}})
        yield event("ping", {"type": "ping"})
        if delay_s:
            await asyncio.sleep(delay_s)
        for index, block in enumerate(blocks):
            if block["type"] == "text":
                yield event("content_block_start", {"type": "content_block_start", "index": index,
                                                    "content_block": {"type": "text", "text": ""}})
                words = block["text"].split(" ")
                for n, word in enumerate(words):  # a few deltas, like the real stream
                    piece = word if n == len(words) - 1 else word + " "
                    yield event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                        "delta": {"type": "text_delta", "text": piece}})
            else:
                yield event("content_block_start", {"type": "content_block_start", "index": index,
                                                    "content_block": {"type": "tool_use", "id": block["id"],
                                                                      "name": block["name"], "input": {}}})
                yield event("content_block_delta", {"type": "content_block_delta", "index": index,
                                                    "delta": {"type": "input_json_delta",
                                                              "partial_json": json.dumps(block["input"])}})
            yield event("content_block_stop", {"type": "content_block_stop", "index": index})
        yield event("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 10}})
        yield event("message_stop", {"type": "message_stop"})

    def close(self) -> None:
        self._server.close()

    def __enter__(self) -> FakeAnthropic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["FakeAnthropic", "Reply", "Text", "ToolCall", "text", "tool"]
