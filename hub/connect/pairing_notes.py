"""What `lineup connect …` says about the agent it pairs: one it replaces, and that --remove leaves it paired."""

from __future__ import annotations

from pathlib import Path

import click

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


def say_replaced(before: str | None, now: str) -> None:
    """A fresh code made a new agent: the one it replaces is no longer used here but stays in the app."""
    if before is not None and before != now:
        click.echo(f"This replaces agent {before} (its credential is kept beside the new one as .bak): it stays in "
                   "the app's Agents list, offline; revoke it there if nothing else uses it.")
