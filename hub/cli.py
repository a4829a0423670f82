"""The `lineup` command: serve (the default), token, pair, db check / rebuild, schema."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Any

import click

from hub import __version__
from hub.settings import Settings, SettingsError, load_settings, private_data_dir


def _settings(**overrides: Any) -> Settings:
    try:
        return load_settings(overrides)
    except SettingsError as exc:
        raise click.UsageError(str(exc)) from None


data_dir_option = click.option("--data-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                               help="Where the database and settings live (default: the user data folder).")


@click.group(invoke_without_command=True)
@click.version_option(__version__, prog_name="lineup")
@click.pass_context
def main(ctx: click.Context) -> None:
    """LineUp Agents hub. With no command, `lineup` serves (same as `lineup serve`)."""
    if ctx.invoked_subcommand is None:
        # Started by a double-click (the packaged executable, no terminal): also open the app in the browser.
        double_click = getattr(sys, "frozen", False) and (sys.stdin is None or not sys.stdin.isatty())
        ctx.invoke(serve, open_browser=double_click)


@main.command()
@click.option("--host", default=None, help="Address to listen on (default 0.0.0.0: every interface).")
@click.option("--port", type=int, default=None, help="Port to listen on (default 9527; 0 picks a free one).")
@data_dir_option
@click.option("--no-mdns", is_flag=True, default=False, help="Do not advertise the hub on the local network.")
@click.option("--plugins-dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="One more folder of plugins to load (besides <data dir>/plugins).")
@click.option("--mdns-interface", "mdns_interfaces", default=None,
              help="Advertise only on these addresses (comma-separated), e.g. 192.168.1.20.")
@click.option("--open-browser/--no-open-browser", default=False, help="Open the app in the browser once running.")
@click.option("--tls-cert", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Serve HTTPS/WSS with this certificate (PEM); needs --tls-key.")
@click.option("--tls-key", type=click.Path(dir_okay=False, path_type=Path), default=None, help="The key of --tls-cert.")
@click.option("--tls-self-signed", is_flag=True, default=None,
              help="Serve HTTPS/WSS with a self-signed certificate made once (clients pin its fingerprint).")
def serve(host: str | None = None, port: int | None = None, data_dir: Path | None = None, no_mdns: bool = False,
          plugins_dir: Path | None = None, mdns_interfaces: str | None = None, open_browser: bool = False,
          tls_cert: Path | None = None, tls_key: Path | None = None, tls_self_signed: bool | None = None) -> None:
    """Run the hub: the app, the API and the agent and app sockets."""
    from hub.server import serve as run_server

    settings = _settings(host=host, port=port, data_dir=data_dir, mdns=False if no_mdns else None,
                         plugins_dir=plugins_dir, mdns_interfaces=mdns_interfaces, tls_cert=tls_cert,
                         tls_key=tls_key, tls_self_signed=tls_self_signed)
    run_server(settings, open_browser=open_browser)


async def _run_command(settings: Settings, command: Any) -> Any:
    """Run one writer command against the database, also while a hub is running (it picks the rows up)."""
    from hub.store import database
    from hub.store.migrations import migrate
    from hub.store.writer import Writer

    made_private = private_data_dir(settings.data_dir)  # the owner's alone, as `lineup serve` makes it
    if made_private:
        click.echo(made_private, err=True)  # stdout may be a secret (`lineup token`)
    conn = await database.connect(settings.db_path, synchronous=settings.synchronous)
    try:
        await database.run(conn, migrate)
        writer = Writer(conn, on_commit=lambda events: None)
        await writer.start()
        try:
            outcome = await writer.execute(command)
        finally:
            await writer.stop()
    finally:
        await conn.close()
    if outcome.error is not None:
        raise click.ClickException(f"{outcome.error.message} {outcome.error.hint}")
    return outcome.value


def _setup_still_open(settings: Settings) -> None:
    """On a hub nobody has set up yet, say where the person creates their account (stderr: stdout is the secret).

    The CLI's owner has no password; the browser setup stays open and claims it, so nothing is locked out.
    """
    from hub import serving
    from hub.cli_invocation import data_dir_args, program
    from hub.netaddr import is_loopback_host

    everywhere = settings.host in ("0.0.0.0", "::", "")
    host = "127.0.0.1" if everywhere else settings.host
    serve = " ".join(part for part in (program(), "serve", data_dir_args(settings)) if part)  # as this one ran
    # A hub serving this folder recorded where (it may run with --port); else what lineup.toml says it will use.
    address = serving.address(settings.data_dir) or (
        f"http://{f'[{host}]' if ':' in host else host}:{settings.port}/" if settings.port else
        f"the address `{serve}` prints")
    where = (f"in a browser on this machine at {address} (from another device: with the setup code "
             f"`{serve}` prints)") if everywhere or is_loopback_host(host) else \
        f"at {address} with the setup code `{serve}` prints"
    click.echo(f"This hub has no account yet: create yours {where}. Agents you pair meanwhile stay in your workspace.",
               err=True)


@main.command()
@data_dir_option
@click.option("--name", default="cli token", show_default=True, help="A name for the device this token signs in.")
@click.option("--workspace", default=None, help="The workspace's name; created with its own owner if missing.")
def token(data_dir: Path | None, name: str, workspace: str | None) -> None:
    """Print an app access token for the owner (creating the workspace and owner on a new hub)."""
    from hub.domain import accounts

    settings = _settings(data_dir=data_dir)
    result = asyncio.run(_run_command(settings, accounts.owner_device_for_cli(workspace, name)))
    click.echo(result["token"])
    if result["needsSetup"]:
        _setup_still_open(settings)


@main.command()
@data_dir_option
@click.option("--name", default=None, help="The agent's name (else the one it gives itself).")
@click.option("--workspace", default=None, help="The workspace the agent joins (default: the first one).")
def pair(data_dir: Path | None, name: str | None, workspace: str | None) -> None:
    """Print a one-time pairing code (10 minutes) for connecting an agent."""
    from hub.domain import accounts
    from hub.protocol.actors import Actor

    settings = _settings(data_dir=data_dir)

    async def run() -> tuple[str, dict[str, str], bool]:
        owner = await _run_command(settings, accounts.owner_device_for_cli(workspace, "cli pairing"))
        actor = Actor("user", owner["userId"], owner["workspaceId"], device_id=owner["deviceId"])
        command, code = accounts.create_pairing_code(actor, name, settings.pairing_code_ttl_s)
        result = await _run_command(settings, command)
        # The device made only to sign this request is not needed afterwards.
        await _run_command(settings, accounts.revoke_device(actor, owner["deviceId"]))
        return code, result, owner["needsSetup"]

    code, result, needs_setup = asyncio.run(run())
    click.echo(code)
    click.echo(f"expires {result['expiresAt']}; use it within 10 minutes, once.", err=True)
    if needs_setup:
        _setup_still_open(settings)


@main.command()
@click.option("--timeout", "timeout_s", type=float, default=3.0, show_default=True, help="Seconds to listen.")
@click.option("--interface", "interfaces", multiple=True, help="Browse only on this address (repeatable).")
def discover(timeout_s: float, interfaces: tuple[str, ...]) -> None:
    """List the LineUp hubs on the local network (mDNS): name, addresses, port, version."""
    from hub.discovery.browse import discover as browse

    hubs = asyncio.run(browse(timeout_s, list(interfaces) or None))
    if not hubs:
        click.echo("no LineUp hub found on the local network", err=True)
        sys.exit(1)
    for found in hubs:
        click.echo(f"{found.name}\t{', '.join(found.addresses)}\t{found.port}\t{found.version}\t{found.url}")


@main.command("demo-agent")
@click.option("--hub", "hub_url", default=None, help="The hub's address, e.g. http://192.168.1.20:9527.")
@click.option("--code", default=None, help="A pairing code from the app or `lineup pair` (first run only).")
@click.option("--name", default="Demo agent", show_default=True, help="The agent's name in the app.")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where the agent keeps its credential (default: in the user config folder).")
@click.option("--step-seconds", type=float, default=1.0, show_default=True, help="Pause between demo steps.")
@click.option("--fingerprint", default=None,
              help="The SHA-256 fingerprint of a hub's self-signed TLS certificate (printed by the hub).")
def demo_agent(hub_url: str | None, code: str | None, name: str, credential_file: Path | None,
               step_seconds: float, fingerprint: str | None) -> None:
    """Run the demo agent: it plays the MVP demo (docs/design.md#the-mvp-demo) on every task you give it."""
    import logging

    import platformdirs

    from hub.cli_invocation import program
    from hub.sdk import AuthError, SdkError, pair_or_load
    from hub.sdk.demo import run_demo

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    path = credential_file or Path(platformdirs.user_config_dir("lineup-agents", appauthor=False)) / "demo-agent.json"

    async def run() -> None:
        credential = await pair_or_load(hub_url, code, path, name=name, runtime="demo", agent_version="1.0",
                                        tls_fingerprint=fingerprint)
        again = f"{program()} demo-agent --hub {credential.hub_url} --code NEW-CODE" + (
            f" --fingerprint {credential.tls_fingerprint}" if credential.tls_fingerprint else "") + (
            f" --credential-file {shlex.quote(str(credential_file))}" if credential_file else "")
        await run_demo(credential, path.with_name(path.stem + ".state.json"), step_seconds,
                       credential_path=path, pair_command=again)

    try:
        asyncio.run(run())
    except (AuthError, SdkError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        pass


@main.command("mcp")
@click.option("--hub", "hub_url", default=None, help="The hub's address (default: find it on the LAN, first run only).")
@click.option("--code", default=None, help="A pairing code from the app or `lineup pair` (first run only).")
@click.option("--name", default="MCP agent", show_default=True, help="The agent's name in the app (first run).")
@click.option("--credential-file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where the credential is kept (default: mcp/<name>.json in the user config folder).")
@click.option("--session", "session_key", default=None,
              help="Name of this MCP session (default: derived from the working folder).")
@click.option("--progress-seconds", type=float, default=10.0, show_default=True,
              help="Seconds between progress notifications while the person has not answered.")
def mcp(hub_url: str | None, code: str | None, name: str, credential_file: Path | None, session_key: str | None,
        progress_seconds: float) -> None:
    """Run an MCP server on stdio, connected to the hub as an agent (Claude Code, Codex, Cursor, Gemini CLI, ...)."""
    from hub.mcp import default_credential_path, log_to_stderr, run_bridge
    from hub.sdk import AuthError, SdkError

    log_to_stderr()
    path = credential_file or default_credential_path(name)
    try:
        asyncio.run(run_bridge(path, hub_url, code, name=name, session_key=session_key,
                               progress_interval_s=progress_seconds))
    except (AuthError, SdkError) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt:
        pass


@main.group()
def connect() -> None:
    """Connect an agent you run yourself (Claude Code, ...) to this hub: its questions come to LineUp."""


@main.group()
def hook() -> None:
    """Run by an agent's hooks (written by `lineup connect`), not by people."""


from hub.connect.commands import register as _register_connect  # noqa: E402 - click commands, imported lazily inside

_register_connect(connect, hook)
from hub.connect.codex import register as _register_codex  # noqa: E402 - `lineup connect codex`
from hub.connect.gemini import register as _register_gemini  # noqa: E402 - `lineup connect gemini`
from hub.connect.hermes import register as _register_hermes  # noqa: E402 - `lineup connect hermes`
from hub.connect.openclaw import register as _register_openclaw  # noqa: E402 - `lineup connect openclaw`

_register_codex(connect, hook)
_register_gemini(connect, hook)
_register_hermes(connect, hook)
_register_openclaw(connect, hook)


def _plugin_host(settings: Settings) -> Any:
    from hub.pluginhost.manager import make_plugin_manager

    return make_plugin_manager(user_dir=settings.data_dir / "plugins",
                               extra_dirs=[settings.plugins_dir] if settings.plugins_dir else [],
                               blocked=settings.blocked_plugin_names)


@main.group(invoke_without_command=True)
@data_dir_option
@click.option("--plugins-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.pass_context
def plugins(ctx: click.Context, data_dir: Path | None, plugins_dir: Path | None) -> None:
    """List the folders searched for plugins, the plugins the hub would load with their hooks, and the ones that
    fail and why. `lineup plugins new NAME` starts a plugin."""
    if ctx.invoked_subcommand is not None:
        return
    from hub.pluginhost.loader import folder_plugins, searched_folders

    settings = _settings(data_dir=data_dir, plugins_dir=plugins_dir)
    extra = [settings.plugins_dir] if settings.plugins_dir else []
    click.echo("searched:")
    for role, folder in searched_folders(settings.data_dir / "plugins", extra):
        count = len(folder_plugins(folder))
        found = "" if role == "built-in" else (
            f" ({count} plugin{'' if count == 1 else 's'})" if folder.is_dir() else " (not there yet)")
        click.echo(f"  {role:<14} {folder}{found}")
    click.echo('  entry points   installed packages\' `lineup` entry points')
    click.echo()
    host = _plugin_host(settings)
    for row in host.describe():
        click.echo(f"{row['name']:<24} {row['origin']:<40} {', '.join(row['hooks'])}")
    for failure in host.failures:
        click.echo(f"{failure.name:<24} FAILED: {failure.reason}", err=True)


@plugins.command("new")
@click.argument("name")
@data_dir_option
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write into this folder instead of <data dir>/plugins.")
def plugins_new(name: str, data_dir: Path | None, folder: Path | None) -> None:
    """Write a plugin NAME with one tool, and its test, into your plugins folder (or --dir)."""
    from hub.pluginhost.scaffold import ScaffoldError, new_plugin

    target = folder if folder is not None else _settings(data_dir=data_dir).data_dir / "plugins"
    try:
        written = new_plugin(name, target.expanduser().resolve())
    except ScaffoldError as exc:
        raise click.ClickException(str(exc)) from None
    for path in written:
        click.echo(f"wrote {path}")
    click.echo(f"test it: pytest {written[1]}  (with pytest and pytest-asyncio installed)")
    click.echo("the hub loads it when it starts; `lineup plugins` shows whether it loaded")


@main.command()
@data_dir_option
@click.option("--plugins-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
def runtimes(data_dir: Path | None, plugins_dir: Path | None) -> None:
    """List the agent runtimes available and the agents configured in lineup.toml ([[agents]])."""
    from hub.runtimes.base import RuntimeConfigError, load_agent_configs

    settings = _settings(data_dir=data_dir, plugins_dir=plugins_dir)
    host = _plugin_host(settings)
    specs = {spec.name: spec for _, spec in host.collect("register_runtimes", hub=None)}
    click.echo("runtimes:")
    for name, spec in sorted(specs.items()):
        click.echo(f"  {name:<12} {spec.description}")
    try:
        configs = load_agent_configs(settings.data_dir / "lineup.toml")
    except RuntimeConfigError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"agents in {settings.data_dir / 'lineup.toml'}:" if configs else "agents: none configured")
    for config in configs:
        state = "ok" if config.runtime in specs else f"unknown runtime {config.runtime!r}"
        click.echo(f"  {config.name:<20} {config.runtime:<12} {' '.join(config.command)}  [{state}]")


@main.group()
def db() -> None:
    """Maintenance of the event log and its projections."""


@db.command("check")
@data_dir_option
@click.option("--full", is_flag=True, help="Check the whole log, not only what came after the last sound check.")
def db_check(data_dir: Path | None, full: bool) -> None:
    """Verify the invariants: SQLite integrity, a gap-free log, the chain, projections equal to a replay, every
    stored file's bytes in the data folder. A big log is checked from the last sound check on; --full checks it all."""
    from hub.files.blobs import BlobStore, missing_blobs
    from hub.store.rebuild import check, open_for_maintenance

    settings = _settings(data_dir=data_dir)
    conn = open_for_maintenance(settings.db_path)
    report = check(conn, full=full)
    store = BlobStore.in_data_dir(settings.data_dir)
    missing = missing_blobs(conn, store)
    conn.close()
    for sha, size in missing[:20]:
        report.problems.append(f"a stored file's bytes are missing: {store.path(sha)} ({size} bytes)")
    if len(missing) > 20:
        report.problems.append(f"... and the bytes of {len(missing) - 20} more stored files")
    if report.ok:
        if report.replayed:
            click.echo(f"ok: {report.events} events, head {report.head}, projections match the log")
        else:
            click.echo(f"ok: {report.events} events, head {report.head}, checked from sequence {report.checked_from} "
                       "(the last sound check); the projections were not replayed: `--full` does")
        return
    for problem in report.problems:
        click.echo(f"FAIL: {problem}", err=True)
    sys.exit(1)


@db.command("rebuild")
@data_dir_option
def db_rebuild(data_dir: Path | None) -> None:
    """Rebuild every projection from the event log (stop the hub first)."""
    from hub.store.rebuild import open_for_maintenance, rebuild

    settings = _settings(data_dir=data_dir)
    conn = open_for_maintenance(settings.db_path)
    count = rebuild(conn)
    conn.close()
    click.echo(f"rebuilt the projections from {count} events")


@db.command("verify")
@data_dir_option
@click.option("--anchor", "kept_head", default=None, metavar="SEQUENCE:CHAIN",
              help="Also check against a head kept elsewhere (as a previous `lineup db verify` printed it).")
def db_verify(data_dir: Path | None, kept_head: str | None) -> None:
    """Check the tamper-evident chain: names the first edited, deleted or reordered event.

    Also checks the chain's anchor (chain-anchor.json, written by the running hub) and, with --anchor, a head kept
    elsewhere, so deleting the newest events is noticed too.
    """
    from hub.cli_invocation import data_dir_args, program
    from hub.store.anchor import AnchorError, anchor_path, check_head, head, parse_head, read_anchor
    from hub.store.chain import verify
    from hub.store.migrations import read_meta
    from hub.store.rebuild import open_for_maintenance

    settings = _settings(data_dir=data_dir)
    try:
        kept = parse_head(kept_head) if kept_head is not None else None
    except AnchorError as exc:
        raise click.BadParameter(str(exc), param_hint="--anchor") from None
    conn = open_for_maintenance(settings.db_path)
    try:
        problems: list[tuple[int, str]] = []  # (sequence, message) or (-1, a message about the anchor itself)
        notes: list[str] = []
        broken = verify(conn)
        if broken is not None:
            problems.append((broken[0], f"the chain breaks at sequence {broken[0]}: {broken[1]}"))
        last, last_chain = head(conn)
        epoch = read_meta(conn, "epoch")
        path = anchor_path(settings.data_dir)
        try:
            anchor = read_anchor(settings.data_dir)
        except AnchorError as exc:
            anchor = None
            problems.append((-1, f"the chain anchor {exc}"))
        else:
            if anchor is None:
                notes.append(f"note: no chain anchor at {path} (a hub that never ran on this data, or an older "
                             "one): deleting the newest events could not be noticed")
            elif anchor.epoch != epoch:
                problems.append((-1, f"the chain anchor {path} belongs to another event log (epoch {anchor.epoch}; "
                                     f"this database: epoch {epoch}): the database was replaced or reset after the "
                                     "hub wrote it. If that was intended, move the anchor away."))
            else:
                bad = check_head(conn, anchor.sequence, anchor.chain)
                if bad is not None:
                    problems.append((bad[0], f"the chain breaks at sequence {bad[0]}: {bad[1]} (the anchor written "
                                             f"at {anchor.written_at} names sequence {anchor.sequence})"))
                else:
                    notes.append(f"anchor: sequence {anchor.sequence} as anchored at {anchor.written_at}")
        if kept is not None:
            bad = check_head(conn, *kept)
            if bad is not None:
                problems.append((bad[0], f"the chain breaks at sequence {bad[0]}: {bad[1]} (the head given with "
                                         f"--anchor names sequence {kept[0]})"))
            else:
                notes.append(f"anchor: sequence {kept[0]} as given with --anchor")
    finally:
        conn.close()
    if not problems:
        click.echo(f"ok: the chain holds for all {last} events")
        for note in notes:
            click.echo(note)
        # Kept elsewhere (a note, another machine), this head shows later whether events were removed since.
        check_again = " ".join(part for part in (program(), "db verify", data_dir_args(settings)) if part)
        click.echo(f"head: sequence {last}, chain {last_chain} (keep it elsewhere; check later with "
                   f"`{check_again} --anchor {last}:{last_chain}`)")
        return
    for _, message in sorted(problems, key=lambda problem: problem[0]):
        click.echo(f"FAIL: {message}", err=True)
    for note in notes:
        click.echo(note, err=True)
    sys.exit(1)


@main.command()
@data_dir_option
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write here instead of standard output.")
@click.option("--with-secrets", is_flag=True, default=False,
              help="Keep the password, token and code hashes in, so that every link of the chain can be checked "
                   "(keep such an export as safe as the database itself).")
@click.option("--files", "files_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Also copy the bytes of every stored file into this folder, as <sha256[:2]>/<sha256> "
                   "(the `file.stored` events name them by SHA-256).")
def export(data_dir: Path | None, output: Path | None, with_secrets: bool, files_dir: Path | None) -> None:
    """Write the event log as JSON Lines with its chain, so it can be checked elsewhere (hub/store/chain.py).

    Secret hashes (payload keys starting with `_`) are left out unless --with-secrets is given. A record they were
    removed from names them in `redacted`; its payload is no longer what the chain covers, so a checker takes that
    record's `chain` as given and checks every other link (README, "The audit chain and its anchor").

    Files uploaded to the hub are named in the log (`file.stored`, with their SHA-256); --files DIR copies their
    bytes too, each checked against its SHA-256 on the way.
    """
    from hub.files.blobs import BlobStore, copy_blob, stored_blobs
    from hub.store.chain import CHAINED_COLUMNS, rows
    from hub.store.rebuild import open_for_maintenance

    settings = _settings(data_dir=data_dir)
    conn = open_for_maintenance(settings.db_path)
    if files_dir is not None:
        store = BlobStore.in_data_dir(settings.data_dir)
        files_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        copied = total = 0
        for sha, _ in stored_blobs(conn):
            try:
                total += copy_blob(store, sha, files_dir)
            except (OSError, ValueError) as exc:
                conn.close()
                raise click.ClickException(f"could not copy a stored file's bytes ({sha}): {exc}; "
                                           "`lineup db check` lists the files whose bytes are missing") from None
            copied += 1
        click.echo(f"copied {copied} files ({total} bytes) to {files_dir}", err=True)
    else:
        named = sum(1 for _ in stored_blobs(conn))
        if named:
            click.echo(f"note: the log names {named} stored files; their bytes are not in this export "
                       "(add --files DIR to copy them)", err=True)
    # Even without the hashes the export holds the conversations and decisions: readable by the owner alone.
    handle = (os.fdopen(os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") if output
              else sys.stdout)
    try:
        for row in rows(conn):
            record = dict(zip(CHAINED_COLUMNS, tuple(row)[:-1], strict=True))
            record["chain"] = row[-1]
            if not with_secrets:
                record.update(_without_secrets(record["payload"]))
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if output:
            handle.close()
        conn.close()


def _without_secrets(payload_text: Any) -> dict[str, Any]:
    """The payload without its secret hashes, and which keys were removed (nothing when there were none)."""
    try:
        payload = json.loads(payload_text)
    except (TypeError, ValueError):
        return {}
    if not isinstance(payload, dict):
        return {}
    secret = sorted(key for key in payload if key.startswith("_"))
    if not secret:
        return {}
    kept = {key: value for key, value in payload.items() if not key.startswith("_")}
    return {"payload": json.dumps(kept, ensure_ascii=False, separators=(",", ":")), "redacted": secret}


@main.command()
def schema() -> None:
    """Print the JSON Schema of every LAP/0.1 envelope and payload."""
    from hub.protocol.schema import protocol_schema

    click.echo(json.dumps(protocol_schema(), indent=2, ensure_ascii=False))


# ---- `lineup relay`: the WuKongIM uplink (docs/relay.md); the logic is in hub/relay/admin.py -----

@main.group()
def relay() -> None:
    """The WuKongIM uplink: status, setup diagnostics, provisioning, pairing the LineUp app (docs/relay.md)."""


def _relay_config(settings: Settings) -> Any:
    from hub.relay.config import RelayConfigError, load_relay_config

    try:
        return load_relay_config(settings.data_dir / "lineup.toml")
    except RelayConfigError as exc:
        raise click.UsageError(str(exc)) from None


@relay.command("status")
@data_dir_option
@click.option("--json", "as_json", is_flag=True, default=False, help="Print the report as JSON.")
def relay_status(data_dir: Path | None, as_json: bool) -> None:
    """What the hub last reported: connected / reconnecting / error, with the code and the next step."""
    from hub.relay.admin import status_report

    settings = _settings(data_dir=data_dir)
    report = status_report(_relay_config(settings), settings.db_path)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False, indent=2))
        return
    if not report["enabled"]:
        click.echo("relay: off (no [relay] ws_url in lineup.toml; see docs/relay.md)")
        return
    status = report["status"] or {"state": "not started yet"}
    line = status.get("line") or report["serverLine"]
    click.echo(f"relay: {status['state']}  {report['server']}  as {report['uid']!r}  line {line}")
    if status.get("code"):
        click.echo(f"  {status['code']}: {status.get('message', '')}")
        click.echo(f"  next step: {status.get('nextStep', '')}")
    for warning in status.get("warnings") or []:
        click.echo(f"  note: {warning}")
    click.echo(f"  outbox: {report.get('pending', 0)} pending, {report.get('failed', 0)} refused")
    for person in report["people"]:
        click.echo(f"  {person['uid']}: events through #{person['cursor']}, channel synced to {person['syncedSeq']}")


@relay.command("check")
@data_dir_option
def relay_check(data_dir: Path | None) -> None:
    """Setup diagnostics: which server line answers, whether the hub may sign in, the HTTP API, whitelists."""
    from hub.relay.admin import check, hub_token, status_report

    settings = _settings(data_dir=data_dir)
    config = _relay_config(settings)
    running = status_report(config, settings.db_path)["status"]

    async def run() -> list[tuple[str, str]]:
        token = await hub_token(config, lambda command: _run_command(settings, command))
        return await check(config, token, "lineup-check", running)

    lines = asyncio.run(run())
    for verdict, text in lines:
        click.echo(f"{verdict:<4} {text}")
    if any(verdict == "FAIL" for verdict, _ in lines):
        sys.exit(1)


@relay.command("provision")
@data_dir_option
def relay_provision(data_dir: Path | None) -> None:
    """With [relay] manager_token: register the hub's token, make it a system user, whitelist its people."""
    from hub.relay.admin import hub_token, provision
    from hub.relay.httpapi import ApiError

    settings = _settings(data_dir=data_dir)
    config = _relay_config(settings)

    async def run() -> list[str]:
        return await provision(config, await hub_token(config, lambda command: _run_command(settings, command)))

    try:
        for line in asyncio.run(run()):
            click.echo(line)
    except ApiError as exc:
        raise click.ClickException(str(exc)) from None


@relay.command("pair")
@click.argument("uid")
@data_dir_option
@click.option("--provision", "make_token", is_flag=True, default=False,
              help="Register a new WuKongIM token for UID (needs manager_token) and include it.")
@click.option("--device-flag", type=click.IntRange(0, 2), default=1, show_default=True,
              help="The device flag the app signs in with (0 app, 1 web, 2 PC).")
def relay_pair(uid: str, data_dir: Path | None, make_token: bool, device_flag: int) -> None:
    """Print what the LineUp app needs to reach this hub through WuKongIM (JSON; docs/relay.md)."""
    import secrets
    import sqlite3

    from hub.relay.admin import pairing
    from hub.relay.httpapi import ApiError, HttpApi
    from hub.store.queries import accounts as people

    settings = _settings(data_dir=data_dir)
    config = _relay_config(settings)
    person = config.person(uid)
    if person is None:
        raise click.UsageError(f"{uid!r} is not in [relay] people; add {{uid = {uid!r}, user = \"...\"}} first")
    conn = sqlite3.connect(f"file:{settings.db_path}?mode=ro", uri=True)
    workspace_id = people.workspace_of_username(conn, person.user)
    conn.close()
    if workspace_id is None:
        raise click.UsageError(f"LineUp has no user {person.user!r}")
    token = None
    if make_token:
        if not (config.api_url and config.manager_token):
            raise click.UsageError("--provision needs [relay] api_url and manager_token")
        token = secrets.token_urlsafe(24)
        try:
            asyncio.run(HttpApi(config.api_url, config.manager_token).user_token(uid, token, device_flag))
        except ApiError as exc:
            raise click.ClickException(str(exc)) from None
    click.echo(json.dumps(pairing(config, uid, workspace_id, token), ensure_ascii=False, indent=2))


from hub.agents_add import agents as _agents  # noqa: E402 - `lineup agents add` (docs/agents.md)

main.add_command(_agents)

from hub.keep import keep as _keep  # noqa: E402 - `lineup keep -- COMMAND`: an agent's program started again after a crash

main.add_command(_keep)
