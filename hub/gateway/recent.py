"""The newest committed events, kept in memory so that many receivers resuming at once share one copy.

A reconnect storm (docs/quality.md#targets R2: 200 apps, each a few hundred events behind) would otherwise run 200
paged SQL reads of the same rows and hold 200 decoded copies of them. Replay pages are cut from this window
when it covers the cursor, from the log otherwise; the result is the same either way (tests compare them).
The window is contiguous: it holds every event from `first` to `last` with no hole, or nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from itertools import islice

from hub.store.events import PAGE_SIZE, StoredEvent

MAX_EVENTS = 8192
MAX_BYTES = 8 * 1024 * 1024  # of encoded frames; the decoded payloads take about as much again


class RecentEvents:
    def __init__(self, max_events: int = MAX_EVENTS, max_bytes: int = MAX_BYTES) -> None:
        self.max_events = max_events
        self.max_bytes = max_bytes
        self._events: deque[StoredEvent] = deque()
        self._bytes = 0

    @property
    def first(self) -> int:
        return self._events[0].sequence if self._events else 0

    @property
    def last(self) -> int:
        return self._events[-1].sequence if self._events else 0

    def append(self, events: list[StoredEvent]) -> None:
        """Called after every commit, in commit order."""
        for event in events:
            if self._events and event.sequence != self._events[-1].sequence + 1:
                self.clear()  # a hole would make a page from here wrong: start over from this event
            self._events.append(event)
            self._bytes += len(event.app_frame())
        while self._events and (len(self._events) > self.max_events or self._bytes > self.max_bytes):
            self._bytes -= len(self._events.popleft().app_frame())

    def clear(self) -> None:
        self._events.clear()
        self._bytes = 0

    def page(self, after: int, upto: int, visible: Callable[[StoredEvent], bool],
             limit: int = PAGE_SIZE) -> list[StoredEvent] | None:
        """The visible events with after < sequence <= upto, at most `limit`, in order; None when the window
        cannot answer for the start of that range (the caller reads the log instead).

        An empty list means "nothing visible up to `upto`", so a window that ends before `upto` only answers
        when it found something: the rest of the range is then asked for again from the last event returned.
        """
        if not self._events or after + 1 < self.first or after >= self.last:
            return None
        found: list[StoredEvent] = []
        end = min(upto, self.last)
        for event in islice(self._events, after + 1 - self.first, None):  # skipping is C-speed, and sync
            if event.sequence > end:
                break
            if visible(event):
                found.append(event)
                if len(found) >= limit:
                    break
        return found if found or end >= upto else None
