"""Envelopes sent but not yet acknowledged: kept in order, re-sent with the same id after a reconnect."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

from hub.sdk.errors import OutboxFull


class Outbox:
    """At-least-once delivery; with the hub's dedupe by id, effectively once."""

    def __init__(self, max_items: int = 10_000) -> None:
        self.max_items = max_items
        self._pending: OrderedDict[str, tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, envelope_id: object) -> bool:
        return envelope_id in self._pending

    def add(self, envelope: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Keep `envelope` until its ack; an id already waiting (the same object sent twice: a deterministic id,
        e.g. a question withdrawn by two parts of an agent at once) shares the first one's answer."""
        waiting = self._pending.get(envelope["id"])
        if waiting is not None:
            return waiting[1]
        if len(self._pending) >= self.max_items:
            raise OutboxFull(f"{len(self._pending)} envelopes are waiting for the hub's ack (limit "
                             f"{self.max_items}); the hub is unreachable or slow. Wait for acks before sending more.")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[envelope["id"]] = (envelope, future)
        return future

    def pending(self) -> list[dict[str, Any]]:
        return [envelope for envelope, _ in self._pending.values()]

    def settle(self, envelope_id: str, *, result: dict[str, Any] | None = None,
               error: BaseException | None = None) -> None:
        entry = self._pending.pop(envelope_id, None)
        if entry is None:
            return
        future = entry[1]
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result or {})
