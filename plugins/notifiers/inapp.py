"""The in-app channel: a stored `notification.created` event; the app shows a toast, counts it in the title
and the inbox badge, vibrates a phone where allowed, and raises a browser notification where permitted."""

from __future__ import annotations

from typing import Any

from hub.store.writer import Command, Tx


class InAppChannel:
    name = "inapp"

    async def send(self, notification: dict[str, Any], delivery: Any) -> None:
        def run(tx: Tx) -> None:
            tx.append("notification.created", {k: v for k, v in notification.items() if k != "workspaceId"},
                      workspace_id=notification["workspaceId"], actor="hub", task_id=notification.get("taskId"),
                      id=f"{notification['id']}-inapp")

        await delivery.hub.execute(Command(run=run, dedupe_id=f"{notification['id']}-inapp",
                                           workspace_id=notification["workspaceId"]))
