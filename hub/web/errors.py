"""HTTP error bodies: `{"error": {"code", "message", "hint"}}` with the status the code implies."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from hub.protocol.errors import LapError


def error_response(exc: LapError) -> JSONResponse:
    return JSONResponse({"error": {"code": exc.code, "message": exc.message, "hint": exc.hint}}, status_code=exc.status)


async def lap_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LapError)
    return error_response(exc)
