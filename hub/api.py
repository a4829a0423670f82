"""The public plugin API: everything a plugin may import, in one list (`__all__`); the rest of `hub` is internal.

Plugins import these from `hub` (`from hub import hookimpl, ToolError`) and agent-side things from `hub.sdk`.
plugins/README.md explains each; the built-in plugins in plugins/ use nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from hub.hookspecs import hookimpl
from hub.notify.channel import Channel, Delivery, store_in_app
from hub.ports import PluginHub
from hub.protocol.actors import Actor
from hub.runtimes.base import AgentConfig, RuntimeConfigError, RuntimeSpec, SupervisedAgent
from hub.store.events import StoredEvent
from hub.tools.context import ToolContext, ToolError
from hub.tools.functions import tool
from hub.tools.human import COMMON as INTERACTION_FIELDS
from hub.tools.human import base_request as interaction_request
from hub.tools.human import declined
from hub.web.auth import require_user

if TYPE_CHECKING:
    from hub.ports import NotifyPort
    from hub.sdk import AgentClient

__all__ = [
    # hooks
    "hookimpl",
    # tools
    "tool", "ToolContext", "ToolError",
    # tools that ask the person (choice, confirm, input, review)
    "INTERACTION_FIELDS", "interaction_request", "declined",
    # runtimes
    "RuntimeSpec", "AgentConfig", "RuntimeConfigError", "SupervisedAgent", "acp_runtime",
    # notification channels
    "Channel", "Delivery", "notify_channel_options", "post_in_app",
    # routes
    "require_user", "Actor",
    # the hub a hook is given (its type, its settings for the plugin), and the events after_commit gets
    "PluginHub", "plugin_config", "StoredEvent",
]


def plugin_config(hub: PluginHub, name: str) -> dict[str, Any]:
    """A plugin's own settings: the `[plugins.<name>]` table of lineup.toml (empty when there is none).

    The same as `hub.plugin_config(name)`; a tool handler finds its plugin's table in `context.config`.
    """
    return hub.plugin_config(name)


def acp_runtime(config: AgentConfig, client: AgentClient) -> SupervisedAgent:
    """The hub's Agent Client Protocol client as a runtime's agent (`create` of a `RuntimeSpec`): the built-in `acp`
    runtime is this, and sessions from the phone drive the same client. Imported on first use: the ACP package
    (pydantic) costs half a second to import, and only a configured ACP agent needs it."""
    from hub.acp import AcpRuntime

    return AcpRuntime(config, client)


def notify_channel_options(hub: PluginHub, name: str) -> dict[str, Any]:
    """The options of the `[notify.<name>]` table (for `register_notifiers`: offer a channel only when set up)."""
    # The `hub` a hook gets is the hub itself; `PluginHub` hides its notifier from plugins, and this helper, part
    # of the hub, reads the one thing a channel needs of it.
    return dict(cast("NotifyPort", hub).notifier.config.channel(name).options)


async def post_in_app(delivery: Delivery, notification: dict[str, Any]) -> None:
    """Store `notification` as a `notification.created` event (the app's toast, title count and inbox badge).

    Idempotent: delivering the same notification again (after a crash) stores it once.
    """
    await store_in_app(delivery.hub, notification)
