"""A scripted Gemini API on loopback, as Gemini CLI uses it: `models/*:streamGenerateContent?alt=sse`, streamed.

Each main request (streamGenerateContent) takes the next scripted `Reply`: its text in a few chunks, each a
`GenerateContentResponse` on an SSE `data:` line, a tool call as a `functionCall` part, the last chunk with
`finishReason: STOP` and the usage. Gemini CLI runs the call (`run_shell_command` for a shell command) and
sends its `functionResponse` in the next request, which the next scripted reply answers.

Gemini CLI also makes side requests of its own (`generateContent` to route a prompt or check who speaks next,
`countTokens`); they are logged with kind "side" or "count" and answered without using the script:
`generateContent` with one JSON object that satisfies each of those checks (route to the main model; the user
speaks next), `countTokens` with a count.
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

from tests.support.fake_models import Reply, Request, Script, Step, Text, ThreadedServer, ToolCall

SECRET_HEADERS = {"authorization", "x-goog-api-key", "cookie"}
# The answer to every side request: the prompt router's fields (old and new) and the next-speaker check's.
SIDE_ANSWER = json.dumps({"reasoning": "scripted", "model_choice": "pro", "complexity_reasoning": "scripted",
                          "complexity_score": 50, "next_speaker": "user"})
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}


def shell(command: str, *, say: str = "", delay_s: float = 0.0, description: str = "") -> Reply:
    """A reply asking Gemini CLI to run `command` with its `run_shell_command` tool."""
    arguments = {"command": command, **({"description": description} if description else {})}
    return Reply(((Text(say),) if say else ()) + (ToolCall("run_shell_command", arguments),), delay_s)


def _sse(chunk: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(chunk)}\r\n\r\n".encode()


class FakeGemini:
    """The fake API: `url` for GOOGLE_GEMINI_BASE_URL, `requests` as received, `close()`."""

    def __init__(self, steps: list[Step], *, chunk_chars: int = 12, model_version: str = "gemini-2.5-pro") -> None:
        self.script = Script(steps)
        self.chunk_chars = chunk_chars
        self.model_version = model_version
        self.requests: list[Request] = []
        self.closing = threading.Event()
        app = Starlette(routes=[Route("/{path:path}", self._any, methods=["GET", "POST", "HEAD", "PUT", "DELETE"])])
        self.server = ThreadedServer(app)
        self.url = self.server.url

    def close(self) -> None:
        self.closing.set()  # a held stream ends now, so that the server stops without waiting for it
        self.server.close()

    def __enter__(self) -> FakeGemini:
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

    def function_responses(self) -> list[dict[str, Any]]:
        """The `functionResponse` parts Gemini CLI sent back (the newest request holds them all), oldest first."""
        requests = self.main_requests()
        if not requests:
            return []
        found = []
        for content in requests[-1].body.get("contents") or []:
            for part in content.get("parts") or []:
                if isinstance(part, dict) and "functionResponse" in part:
                    found.append(part["functionResponse"])
        return found

    # ---- handlers -------------------------------------------------------------------------------------

    async def _any(self, request: HttpRequest) -> Response:
        path = request.url.path
        raw = await request.body()
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", errors="replace")
        kind = ("main" if path.endswith(":streamGenerateContent") else
                "side" if path.endswith(":generateContent") else
                "count" if path.endswith(":countTokens") else "other")
        self.requests.append(Request(request.method, path, request.url.query,
                                     {k: v for k, v in request.headers.items() if k.lower() not in SECRET_HEADERS},
                                     body, kind=kind))
        if kind == "main":
            reply = self.script.next(body if isinstance(body, dict) else {})
            return StreamingResponse(self._stream(reply), media_type="text/event-stream")
        if kind == "side":
            return JSONResponse(self._chunk([{"text": SIDE_ANSWER}], finish=True))
        if kind == "count":
            return JSONResponse({"totalTokens": 10})
        return JSONResponse({"error": {"code": 404, "message": "not offered by the fake", "status": "NOT_FOUND"}},
                            status_code=404)

    def _chunk(self, parts: list[dict[str, Any]], *, finish: bool) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": self.model_version}
        if finish:
            candidate["finishReason"] = "STOP"
            chunk["usageMetadata"] = USAGE
        return chunk

    async def _stream(self, reply: Reply) -> AsyncIterator[bytes]:
        if reply.delay_s:
            await self._hold(reply.delay_s)
        pieces: list[dict[str, Any]] = []
        for block in reply.blocks:
            if isinstance(block, Text):
                pieces += [{"text": block.text[i:i + self.chunk_chars]}
                           for i in range(0, len(block.text), self.chunk_chars)]
            else:
                call: dict[str, Any] = {"name": block.name, "args": block.arguments}
                if block.id:
                    call["id"] = block.id
                pieces.append({"functionCall": call})
        if not pieces:
            pieces = [{"text": ""}]
        for number, piece in enumerate(pieces):
            yield _sse(self._chunk([piece], finish=number == len(pieces) - 1))


__all__ = ["FakeGemini", "shell"]
