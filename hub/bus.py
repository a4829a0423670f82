"""The commit bus: the one way any part of the hub hears about committed events (docs/architecture.md)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from hub.store.events import StoredEvent

log = logging.getLogger("lineup.bus")

Subscriber = Callable[[list[StoredEvent]], None]


class CommitBus:
    """Subscribers are called in the order they subscribed, on the event loop, once per committed batch.

    Called by the writer after COMMIT and before any ack of the batch is sent, so a subscriber must not block:
    it updates memory or queues work (a task, a queue) and returns. One that raises is logged and the next one is
    still called: a bug in the notifier must not keep events from the sockets or the relay.
    """

    def __init__(self) -> None:
        self._subscribers: list[tuple[str, Subscriber]] = []

    def subscribe(self, fn: Subscriber, *, name: str = "") -> Callable[[], None]:
        """Add `fn` after every subscriber so far; returns the function that removes it again (safe to call twice)."""
        entry = (name or getattr(fn, "__qualname__", repr(fn)), fn)
        self._subscribers.append(entry)

        def unsubscribe() -> None:  # by identity: the same function subscribed twice is two subscriptions
            self._subscribers = [e for e in self._subscribers if e is not entry]

        return unsubscribe

    def names(self) -> list[str]:
        """The subscribers in call order (for tests and docs/architecture.md)."""
        return [name for name, _ in self._subscribers]

    def publish(self, events: list[StoredEvent]) -> None:
        for name, fn in list(self._subscribers):  # a copy: a subscriber may unsubscribe itself or another
            try:
                fn(events)
            except Exception:
                log.exception("commit subscriber %s failed", name)
