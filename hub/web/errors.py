"""HTTP error bodies: `{"error": {"code", "message", "hint", "details"?}}` with the status the code implies."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse

from hub.protocol.errors import LapError


def error_response(exc: LapError) -> JSONResponse:
    return JSONResponse({"error": exc.as_payload()}, status_code=exc.status)


async def lap_error_handler(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, LapError)
    return error_response(exc)


class BodyTooLarge(LapError):
    """A request body over `max_body_bytes`: `invalid_payload`, answered with HTTP 413."""

    status = 413

    def __init__(self, limit: int) -> None:
        super().__init__("invalid_payload", f"The request body is too large (at most {limit} bytes).",
                         hint="Send a smaller request.")
