"""TurnError: why a turn could not run or ended abnormally, carried to the task as its error."""

from __future__ import annotations


class TurnError(Exception):
    """A turn that could not run or ended abnormally: `code` and `message` become the task's error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
