"""The in-memory window of the newest events: replay pages cut from it equal the pages read from the log."""

from __future__ import annotations

from typing import cast

from hypothesis import given, settings
from hypothesis import strategies as st

from hub.gateway.recent import RecentEvents
from hub.store.events import StoredEvent


def event(sequence: int, workspace: str = "w1", recipients: tuple[str, ...] = ()) -> StoredEvent:
    return StoredEvent(sequence, f"e{sequence}", "message.created", workspace, "c", None, None, "hub",
                       "2026-11-30T00:00:00Z", "2026-11-30T00:00:00Z", {"content": "x" * 50}, recipients)


def replay(window: RecentEvents, log: list[StoredEvent], after: int, upto: int, workspace: str,
           limit: int) -> tuple[list[int], int]:
    """Session.replay's loop: pages until one comes back empty; the window first, the log when it cannot answer."""
    sent, from_log = [], 0
    while after < upto:
        page = window.page(after, upto, lambda e: e.workspace_id == workspace, limit=limit)
        if page is None:
            from_log += 1
            page = [e for e in log if e.workspace_id == workspace and after < e.sequence <= upto][:limit]
        if not page:
            break
        sent += [e.sequence for e in page]
        after = page[-1].sequence
    return sent, from_log


def test_a_page_inside_the_window_needs_no_log() -> None:
    window = RecentEvents(max_events=100)
    window.append([event(n, "w1" if n % 3 else "w2") for n in range(1, 51)])
    assert [e.sequence for e in cast(list[StoredEvent], window.page(10, 20, lambda e: e.workspace_id == "w2"))] == [12, 15, 18]
    assert window.page(10, 20, lambda e: e.workspace_id == "w3") == []  # nothing visible: an answer, not None
    assert [e.sequence for e in cast(list[StoredEvent], window.page(0, 50, lambda e: True, limit=4))] == [1, 2, 3, 4]


def test_the_window_cannot_answer_before_its_first_event_or_after_its_last() -> None:
    window = RecentEvents(max_events=10)
    window.append([event(n) for n in range(1, 31)])
    assert (window.first, window.last) == (21, 30)
    assert window.page(5, 30, lambda e: True) is None          # starts before the window
    assert [e.sequence for e in cast(list[StoredEvent], window.page(20, 30, lambda e: True))] == list(range(21, 31))
    assert window.page(30, 40, lambda e: True) is None         # the head moved past what the window has
    # Ends inside the range asked for with nothing visible: the rest must come from the log, not be skipped.
    assert window.page(25, 40, lambda e: e.workspace_id == "w2") is None


def test_the_window_is_bounded_in_bytes_and_starts_over_after_a_hole() -> None:
    window = RecentEvents(max_events=1000, max_bytes=sum(len(event(n).app_frame()) for n in range(91, 101)))
    window.append([event(n) for n in range(1, 101)])
    assert (window.first, window.last) == (91, 100)
    window.append([event(105)])  # a hole (never happens in the hub): keep only what follows it
    assert (window.first, window.last) == (105, 105)


def test_a_window_of_zero_events_is_off() -> None:
    window = RecentEvents(max_events=0)
    window.append([event(n) for n in range(1, 11)])
    assert window.page(0, 10, lambda e: True) is None


@settings(max_examples=300, deadline=None)
@given(total=st.integers(1, 120), size=st.integers(0, 60), limit=st.integers(1, 15),
       workspaces=st.lists(st.sampled_from(["w1", "w2", "w3"]), min_size=120, max_size=120),
       after=st.integers(0, 130), extra=st.integers(0, 30))
def test_replay_through_the_window_equals_replay_from_the_log(total: int, size: int, limit: int,
                                                              workspaces: list[str], after: int, extra: int) -> None:
    log = [event(n, workspaces[n - 1]) for n in range(1, total + 1)]
    window = RecentEvents(max_events=size)
    window.append(log)
    after = min(after, total)
    upto = min(total, after + extra)
    expected = [e.sequence for e in log if e.workspace_id == "w1" and after < e.sequence <= upto]
    assert replay(window, log, after, upto, "w1", limit)[0] == expected
