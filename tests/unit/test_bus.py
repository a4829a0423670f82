"""The commit bus: subscribers called in order, unsubscribing, and one failing subscriber contained."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import cast

import pytest

from hub.bus import CommitBus, Subscriber
from hub.store.events import StoredEvent


def event(sequence: int) -> StoredEvent:
    return StoredEvent(sequence=sequence, id=f"e{sequence}", type="message.created", workspace_id="w",
                       conversation_id=None, task_id=None, correlation_id=None, actor="user:u",
                       occurred_at="2026-01-01T00:00:00Z", recorded_at="2026-01-01T00:00:00Z", payload={})


def test_subscribers_are_called_in_the_order_they_subscribed() -> None:
    bus, calls = CommitBus(), []
    for name in ("first", "second", "third"):
        bus.subscribe(cast(Subscriber, lambda events, name=name: calls.append((name, [e.sequence for e in events]))), name=name)
    bus.publish([event(1), event(2)])
    assert calls == [("first", [1, 2]), ("second", [1, 2]), ("third", [1, 2])]
    assert bus.names() == ["first", "second", "third"]


def test_a_failing_subscriber_is_logged_and_the_next_ones_still_hear(caplog: pytest.LogCaptureFixture) -> None:
    seen: list[int]
    bus, seen = CommitBus(), []

    def broken(events: list[StoredEvent]) -> None:
        raise RuntimeError("subscriber bug")

    bus.subscribe(broken, name="broken")
    bus.subscribe(lambda events: seen.extend(e.sequence for e in events))
    with caplog.at_level(logging.ERROR, logger="lineup.bus"):
        bus.publish([event(1)])
        bus.publish([event(2)])
    assert seen == [1, 2]
    assert [r.getMessage() for r in caplog.records] == ["commit subscriber broken failed"] * 2


def test_unsubscribe_removes_only_that_subscription_and_is_safe_twice() -> None:
    bus, calls = CommitBus(), []

    def fn(events: list[StoredEvent]) -> None:
        calls.append(events[0].sequence)

    first = bus.subscribe(fn, name="a")
    bus.subscribe(fn, name="b")  # the same function twice is two subscriptions
    first()
    first()
    bus.publish([event(7)])
    assert calls == [7] and bus.names() == ["b"]


def test_a_subscriber_may_unsubscribe_while_being_called() -> None:
    bus, calls = CommitBus(), []
    unsubscribe: Callable[[], None]
    unsubscribe = bus.subscribe(cast(Subscriber, lambda events: (calls.append("once"), unsubscribe())), name="once")
    bus.subscribe(lambda events: calls.append("always"), name="always")
    bus.publish([event(1)])
    bus.publish([event(2)])
    assert calls == ["once", "always", "always"]
