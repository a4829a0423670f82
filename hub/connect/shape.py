"""The shape every `lineup connect …` command shares: its pairing options, its project-or-user target, and pairing
(or reusing the stored credential) with what it says about the agent."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from hub.connect.pairing_notes import say_replaced, stored_agent

if TYPE_CHECKING:
    from hub.sdk import Credential

F = TypeVar("F", bound=Callable[..., Any])


def _apply(function: F, options: list[Callable[[F], F]]) -> F:
    for option in reversed(options):  # the first listed is the first in --help
        function = option(function)
    return function


def pairing_options(name: str, credential_default: str, remove_help: str) -> Callable[[F], F]:
    """--hub / --code / --name / --fingerprint / --credential-file / --remove, as every connect command takes them."""
    def decorate(function: F) -> F:
        return _apply(function, [
            click.option("--hub", "hub_url", default=None, help="The hub's address, e.g. http://192.168.1.20:9527."),
            click.option("--code", default=None,
                         help="A pairing code from the app or `lineup pair` (first time only)."),
            click.option("--name", default=name, show_default=True, help="The agent's name in the app."),
            click.option("--fingerprint", default=None,
                         help="The hub certificate's SHA-256 (a self-signed https hub)."),
            click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                         help=f"Where the credential is kept (default: {credential_default} in the user config "
                              "folder)."),
            click.option("--remove", is_flag=True, default=False, help=remove_help),
        ])
    return decorate


def target_options(project_help: str, user_help: str) -> Callable[[F], F]:
    """--dir DIR (one project) or --user (every project), for the agents configured per project."""
    def decorate(function: F) -> F:
        return _apply(function, [
            click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
                         help=project_help),
            click.option("--user", "for_user", is_flag=True, default=False, help=user_help),
        ])
    return decorate


def check_target(folder: Path | None, for_user: bool) -> None:
    if (folder is None) == (not for_user):
        raise click.UsageError("Give exactly one of --dir DIR (a project) or --user (every project).")
    if folder is not None and not folder.expanduser().is_dir():
        raise click.UsageError(f"--dir {folder}: no such folder.")


def pair(hub_url: str | None, code: str | None, path: Path, *, name: str, runtime: str,
         fingerprint: str | None) -> tuple[Credential, Path]:
    """Pair now (a typo in the code shows at once), or reuse the credential an earlier run stored at `path`; says
    whether this is the same agent again or a new one beside an old one. Returns it and its file's full path."""
    from hub import __version__
    from hub.sdk import AuthError, SdkError, pair_or_load

    path = path.expanduser().resolve()
    before = stored_agent(path)
    try:
        credential = asyncio.run(pair_or_load(hub_url, code, path, name=name, runtime=runtime,
                                              agent_version=__version__, tls_fingerprint=fingerprint))
    except (AuthError, SdkError, OSError, ValueError) as exc:
        raise click.ClickException(str(exc)) from None
    say_replaced(before, credential.agent_id, credential.replaced)
    return credential, path
