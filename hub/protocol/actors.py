"""Who sends an envelope (a person through a device, an agent, the hub): a leaf type, so auth and web need no domain."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Actor:
    kind: Literal["user", "agent", "hub"]
    id: str
    workspace_id: str
    device_id: str | None = None

    @property
    def ref(self) -> str:
        """How the event log names the actor: 'user:<id>', 'agent:<id>' or 'hub'."""
        return "hub" if self.kind == "hub" else f"{self.kind}:{self.id}"

    def as_author(self) -> dict[str, str]:
        return {"kind": self.kind, "id": self.id}


def hub_actor(workspace_id: str) -> Actor:
    return Actor("hub", "hub", workspace_id)
