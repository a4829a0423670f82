"""What `lineup connect …` says about the agent it pairs: the same one paired again or one it replaces, and that
--remove leaves it paired."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from hub.sdk.credentials import Replacement

# The agent stays: other folders connected with the same credential file may still use it.
STAYS_PAIRED = ("The agent stays paired (other folders may use its credential): to remove it, revoke it in the app's "
                "Agents screen.")


def stored_agent(credential_path: Path) -> str | None:
    """The agent id of the credential stored at `credential_path` before connecting, if there is one."""
    from hub.sdk import load_credential

    try:
        return load_credential(credential_path.expanduser()).agent_id
    except (OSError, ValueError, KeyError, TypeError):
        return None


def say_replaced(before: str | None, now: str, replaced: Replacement | None = None) -> None:
    """A fresh code with a credential stored before: the same agent paired again (it keeps its conversations and
    tasks), or a new agent beside the old one, which stays in the app (said with why it was not taken over)."""
    if before is None:
        return
    if before == now:
        if replaced is not None and replaced.kept:
            click.echo(f"Paired again as the same agent {now}: it keeps its conversations and tasks in the app; its "
                       "previous credential no longer works.")
        return
    why = f" ({replaced.explanation})" if replaced is not None and replaced.reason else ""
    click.echo(f"This replaces agent {before} with a new agent{why}; the old credential is kept beside the new one as "
               ".bak. The old agent stays in the app's Agents list, offline; revoke it there if nothing else uses it.")
