"""The contract of a notification channel (`register_notifiers`), and what the hub offers it while sending."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from hub.notify.actions import create_action_link
from hub.notify.config import ChannelConfig
from hub.store.writer import Command, Tx

if TYPE_CHECKING:
    from hub.ports import NotifyPort


class Channel(Protocol):
    """`name` matches its `[notify.<name>]` table; `send` raises on failure (the outbox retries with backoff)."""

    name: str

    async def send(self, notification: dict[str, Any], delivery: Delivery) -> None: ...


@dataclass
class Delivery:
    hub: NotifyPort
    config: ChannelConfig
    base_url: str

    async def action_link(self, interaction_id: str, response: dict[str, Any]) -> dict[str, Any]:
        """An HTTP request that answers the interaction once: {url, method, body, headers}. Raises LapError
        `forbidden` for an answer given only in the app (hub/notify/outside.py): a yes to an approval that carries
        a command, a file change or a tool's input, an "always" or "for this session" option, a yes to high risk."""
        command, token = create_action_link(self.workspace_id, interaction_id, response,
                                            self.hub.notifier.config.action_link_ttl_s)
        await self.hub.execute(command)
        return {"url": f"{self.base_url}/api/actions", "method": "POST",
                "headers": {"Content-Type": "application/json"}, "body": f'{{"token": "{token}"}}'}

    workspace_id: str = ""


async def store_in_app(hub: NotifyPort, notification: dict[str, Any]) -> None:
    """Store `notification` as a `notification.created` event, once (deduplicated by its id): `post_in_app`."""
    event_id = f"{notification['id']}-inapp"

    def run(tx: Tx) -> None:
        tx.append("notification.created", {k: v for k, v in notification.items() if k != "workspaceId"},
                  workspace_id=notification["workspaceId"], actor="hub", task_id=notification.get("taskId"),
                  id=event_id)

    await hub.execute(Command(run=run, dedupe_id=event_id, workspace_id=notification["workspaceId"]))
