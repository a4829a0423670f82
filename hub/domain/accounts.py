"""Workspaces, people, devices, pairing codes and agents: the commands behind setup, sign-in and pairing.

Secrets never enter the log in clear: payload keys that start with '_' hold their hashes and are stripped
before any event leaves the hub (hub/store/events.py).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from hub.auth import secrets
from hub.domain.agent_names import distinct_name
from hub.domain.collaboration import change_status, resolve_interaction
from hub.protocol.actors import Actor, hub_actor
from hub.protocol.envelope import new_id
from hub.protocol.errors import LapError
from hub.store.queries import accounts as people
from hub.store.queries import agents, interactions, tasks
from hub.store.queries.records import AgentRecord, PairingCodeRecord
from hub.store.writer import Command, Tx

# What marks a password in users.password_hash; the CLI's owners have "!" (no password: nobody signs in with one).
_PASSWORD_PREFIX = "scrypt$"  # noqa: S105 - the hash format's name, not a password


def needs_setup(conn: Any) -> bool:
    """Whether the first-run setup is still open: nobody can sign in with a password yet.

    An owner the CLI made on a fresh hub (`lineup pair`, `lineup token`) has no password, so it leaves the setup
    open: the person's setup then claims that owner (hub/domain/accounts.py::create_owner) instead of locking
    them out of a hub that only shows a sign-in page.
    """
    return not people.has_password_user(conn, _PASSWORD_PREFIX)


def closes_setup(event_type: str, payload: dict[str, Any]) -> bool:
    """Whether this stored event gives the hub an owner who can sign in (so the setup code is void)."""
    return event_type == "user.claimed" or (
        event_type == "user.created" and str(payload.get("_passwordHash", "")).startswith(_PASSWORD_PREFIX))


def create_owner(username: str, display_name: str, password_hash: str, workspace_name: str,
                 device_name: str) -> tuple[Command, str]:
    """First run: the workspace, its owner and a first signed-in device. Refused once an owner can sign in.

    When the CLI already made the hub's first owner (no password: `lineup pair` before the browser), setup
    claims that owner and its workspace, so agents paired meanwhile are the person's own (`user.claimed`).
    """
    token = secrets.new_token("dev")

    def run(tx: Tx) -> dict[str, str]:
        if not needs_setup(tx.conn):
            raise LapError("forbidden", "This hub is already set up.", hint="Sign in with the owner's account.")
        taken = people.user_id_by_username(tx.conn, username)
        pending = people.first_owner(tx.conn)
        if pending is not None:
            if taken is not None and taken != pending.id:
                raise LapError("conflict", f"The username {username!r} is taken.", hint="Choose another username.")
            workspace_id, user_id = pending.workspace_id, pending.id
            tx.append("user.claimed", {"userId": user_id, "username": username, "displayName": display_name,
                                       "role": "owner", "workspaceName": workspace_name,
                                       "_passwordHash": password_hash},
                      workspace_id=workspace_id, actor=f"user:{user_id}")
        else:
            workspace_id, user_id = new_id("ws"), new_id("usr")
            actor = f"user:{user_id}"
            tx.append("workspace.created", {"name": workspace_name}, workspace_id=workspace_id, actor=actor)
            tx.append("user.created", {"userId": user_id, "username": username, "displayName": display_name,
                                       "role": "owner", "_passwordHash": password_hash},
                      workspace_id=workspace_id, actor=actor)
        device_id = _add_device(tx, workspace_id, user_id, device_name, token)
        return {"token": token, "userId": user_id, "workspaceId": workspace_id, "deviceId": device_id}

    return Command(run=run), token


def _add_device(tx: Tx, workspace_id: str, user_id: str, name: str, token: str,
                sign_in_link_id: str | None = None) -> str:
    device_id = new_id("dev")
    payload = {"deviceId": device_id, "userId": user_id, "name": name, "_tokenHash": secrets.token_hash(token)}
    if sign_in_link_id:
        payload["signInLinkId"] = sign_in_link_id
    tx.append("device.created", payload, workspace_id=workspace_id, actor=f"user:{user_id}")
    return device_id


def _expiry(ttl_s: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=ttl_s)).isoformat(timespec="seconds").replace("+00:00", "Z")


def _expired(expires_at: str) -> bool:
    return datetime.fromisoformat(expires_at.replace("Z", "+00:00")) <= datetime.now(UTC)


def create_sign_in_link(actor: Actor, ttl_s: float) -> tuple[Command, str]:
    """A one-time code that signs another device in as this person (the phone scans it as a QR code)."""
    code = secrets.new_token("link")

    def run(tx: Tx) -> dict[str, str]:
        link_id, expires_at = new_id("sil"), _expiry(ttl_s)
        tx.append("sign_in_link.created", {"linkId": link_id, "userId": actor.id, "expiresAt": expires_at,
                                           "_codeHash": secrets.token_hash(code)},
                  workspace_id=actor.workspace_id, actor=actor.ref)
        return {"linkId": link_id, "expiresAt": expires_at}

    return Command(run=run), code


def redeem_sign_in_link(code: str, device_name: str) -> Command:
    token = secrets.new_token("dev")

    def run(tx: Tx) -> dict[str, str]:
        link = people.sign_in_link(tx.conn, secrets.token_hash(code))
        if link is None or link.used_at is not None:
            raise LapError("unauthorized", "This sign-in link is not valid or was already used.",
                           hint="Show a new QR code on a signed-in device and scan it again.")
        if _expired(link.expires_at):
            raise LapError("expired", "This sign-in link has expired (links last 10 minutes).",
                           hint="Show a new QR code on a signed-in device and scan it again.")
        device_id = _add_device(tx, link.workspace_id, link.user_id, device_name, token, link.id)
        return {"token": token, "userId": link.user_id, "workspaceId": link.workspace_id, "deviceId": device_id}

    return Command(run=run)


def sign_in_device(user_id: str, device_name: str) -> Command:
    """A new device token for a person who proved who they are (password, or the CLI on the hub's machine)."""
    token = secrets.new_token("dev")

    def run(tx: Tx) -> dict[str, str]:
        user = people.user_by_id(tx.conn, user_id)
        if user is None:
            raise LapError("not_found", "No such user.")
        device_id = _add_device(tx, user.workspace_id, user_id, device_name, token)
        return {"token": token, "userId": user_id, "workspaceId": user.workspace_id, "deviceId": device_id}

    return Command(run=run)


def revoke_device(actor: Actor, device_id: str) -> Command:
    """Sign a device of the workspace out for good: its token stops working and, once committed, its sockets close
    (4401, hub/gateway). Signing out is this with the caller's own device (`POST /api/devices/current/revoke`)."""
    def run(tx: Tx) -> dict[str, str]:
        device = people.device_in_workspace(tx.conn, device_id, actor.workspace_id)
        if device is None:
            raise LapError("not_found", f"No device {device_id!r} in this workspace.")
        if device.revoked_at is None:
            tx.append("device.revoked", {"deviceId": device_id}, workspace_id=actor.workspace_id, actor=actor.ref)
        return {"deviceId": device_id, "userId": device.user_id}

    return Command(run=run)


def create_pairing_code(actor: Actor, name: str | None, ttl_s: float,
                        replaces_agent_id: str | None = None) -> tuple[Command, str]:
    """A one-time code that pairs an agent. With `replaces_agent_id` (the app's "Connect my agent" for an agent whose
    credential file is lost) pairing with it rotates that agent's credential instead of making a new agent: only the
    workspace's owner may make one, for an unrevoked agent of the workspace."""
    code = secrets.new_pairing_code()
    expires_at = _expiry(ttl_s)

    def run(tx: Tx) -> dict[str, str]:
        payload: dict[str, Any] = {"codeId": new_id("pc"), "name": name, "expiresAt": expires_at,
                                   "_codeHash": secrets.token_hash(code)}
        if replaces_agent_id is not None:
            user = people.user_by_id(tx.conn, actor.id) if actor.kind == "user" else None
            if user is None or user.role != "owner":
                raise LapError("forbidden", "Only the workspace's owner can pair an existing agent again.")
            if agents.live_agent(tx.conn, replaces_agent_id, actor.workspace_id) is None:
                raise LapError("not_found", f"No agent {replaces_agent_id!r} in this workspace.",
                               hint="It may have been revoked: pair a new agent instead.")
            payload["replacesAgentId"] = replaces_agent_id
        tx.append("pairing_code.created", payload, workspace_id=actor.workspace_id, actor=actor.ref)
        return {"codeId": payload["codeId"], "expiresAt": expires_at}

    return Command(run=run), code


def _agent_to_replace(conn: Any, code: PairingCodeRecord, replaces: str | None,
                      ) -> tuple[AgentRecord | None, str | None, str | None]:
    """(the agent whose credential this pairing rotates, how it was named: `code` or `credential`, why none).

    A code the app made for an agent names it; else a stored credential sent along proves it. Why none (the answer's
    `notReplaced`): `unknown` (not this hub's: another hub, or its data was reset), `revoked` (its agent was),
    `replaced` (already replaced by a newer pairing of its agent), `other_workspace` (not the code's workspace).
    """
    if code.replaces_agent_id is not None:
        agent = agents.agent_in_workspace(conn, code.replaces_agent_id, code.workspace_id)
        if agent is None or agent.revoked_at is not None:
            return None, None, "revoked"
        return agent, "code", None
    if not replaces:
        return None, None, None
    held = people.credential_state(conn, secrets.token_hash(replaces))
    if held is None:
        return None, None, "unknown"
    if held.workspace_id != code.workspace_id:
        return None, None, "other_workspace"
    if held.agent_revoked_at is not None:
        return None, None, "revoked"
    if held.revoked_at is not None:
        return None, None, "replaced"
    return agents.agent_in_workspace(conn, held.agent_id, code.workspace_id), "credential", None


def pair_agent(code: str, name: str, runtime: str, agent_version: str,
               replaces: str | None = None) -> tuple[Command, str]:
    """Exchange a pairing code (single use, unexpired) for an agent and its credential.

    The same agent pairing again keeps its identity: with `replaces` (the credential it holds, proof that it is
    that agent) or a code the app made for it, the agent's credential is rotated (`agent.credential_rotated`): its
    conversations, tasks and questions stay, its earlier credential is refused from then on. A `replaces` that is
    unknown, revoked or of another workspace pairs a new agent, and the answer says why (`notReplaced`).
    """
    credential = secrets.new_token("agt")

    def run(tx: Tx) -> dict[str, Any]:
        row = people.pairing_code(tx.conn, secrets.token_hash(code))
        if row is None:
            raise LapError("unauthorized", "That pairing code is not valid.",
                           hint="Check the code, or create a new one in the app or with `lineup pair`.")
        if row.used_at is not None:
            raise LapError("unauthorized", "That pairing code was already used.",
                           hint="Pairing codes work once; create a new one in the app or with `lineup pair`.")
        if _expired(row.expires_at):
            raise LapError("expired", "That pairing code has expired (codes last 10 minutes).",
                           hint="Create a new one in the app or with `lineup pair`.")
        target, how, refused = _agent_to_replace(tx.conn, row, replaces)
        if target is not None:
            # The name the person gave the code wins; else the agent keeps the name it has (perhaps renamed in the
            # app), never the agent's own default.
            tx.append("agent.credential_rotated", {
                "agentId": target.id, "name": row.name or target.name, "runtime": runtime,
                "agentVersion": agent_version, "codeId": row.id, "credentialId": new_id("cred"), "by": how,
                "_credentialHash": secrets.token_hash(credential)},
                workspace_id=row.workspace_id, actor=f"agent:{target.id}")
            return {"agentId": target.id, "workspaceId": row.workspace_id, "replaced": target.id}
        agent_id = new_id("agt")
        # The name the person gave the code in the app wins over the agent's own default (`lineup connect`'s); one a
        # live agent of another way has already gets that way said after it (hub/domain/agent_names.py).
        wanted = distinct_name(tx.conn, row.workspace_id, row.name or name or "agent", runtime, agent_version)
        tx.append("agent.paired", {"agentId": agent_id, "name": wanted, "runtime": runtime,
                                   "agentVersion": agent_version, "codeId": row.id, "credentialId": new_id("cred"),
                                   "_credentialHash": secrets.token_hash(credential)},
                  workspace_id=row.workspace_id, actor=f"agent:{agent_id}")
        answer: dict[str, Any] = {"agentId": agent_id, "workspaceId": row.workspace_id, "replaced": None}
        if refused is not None:
            answer["notReplaced"] = refused
        return answer

    return Command(run=run), credential


def revoke_agent(actor: Actor, agent_id: str) -> Command:
    def run(tx: Tx) -> None:
        agent = agents.agent_in_workspace(tx.conn, agent_id, actor.workspace_id)
        if agent is None:
            raise LapError("not_found", f"No agent {agent_id!r} in this workspace.")
        if agent.revoked_at is None:
            tx.append("agent.revoked", {"agentId": agent_id}, workspace_id=actor.workspace_id, actor=actor.ref)
            end_revoked_agents_work(tx, actor, agent_id)

    return Command(run=run)


def end_revoked_agents_work(tx: Tx, actor: Actor, agent_id: str) -> None:
    """A revoked agent can never answer again: its questions stop waiting for the person and its unfinished
    tasks end, each naming the cause, instead of staying in the inbox for ever."""
    hub = hub_actor(actor.workspace_id)
    for interaction in interactions.pending_of_agent(tx.conn, agent_id, actor.workspace_id):
        resolve_interaction(tx, hub, interaction, "cancelled", {"cause": "agent_revoked"}, correlation_id=None)
    for task in tasks.open_top_tasks_of_agent(tx.conn, agent_id, actor.workspace_id):
        current = tasks.task(tx.conn, task.id, actor.workspace_id)
        if current is not None:
            change_status(tx, hub, current, "cancelled", by="hub", correlation_id=None, cause="agent_revoked")


def rename_agent(actor: Actor, agent_id: str, name: str) -> Command:
    def run(tx: Tx) -> None:
        agent = agents.live_agent(tx.conn, agent_id, actor.workspace_id)
        if agent is None:
            raise LapError("not_found", f"No agent {agent_id!r} in this workspace.")
        if agent.name != name:
            tx.append("agent.renamed", {"agentId": agent_id, "name": name}, workspace_id=actor.workspace_id,
                      actor=actor.ref)

    return Command(run=run)


def owner_device_for_cli(workspace_name: str | None, device_name: str) -> Command:
    """`lineup token`: a device token for a workspace's owner, creating workspace and owner when missing.

    Without a name: the first workspace (a new hub gets "My workspace"). With a name: that workspace, made
    with an owner of its own if no workspace has that name yet (a second team on the same hub).
    """
    token = secrets.new_token("dev")

    def run(tx: Tx) -> dict[str, Any]:
        if workspace_name is None:
            owner = people.first_owner(tx.conn)
        else:
            owner = people.owner_of_workspace_named(tx.conn, workspace_name)
        if owner is None:
            workspace_id, user_id = new_id("ws"), new_id("usr")
            tx.append("workspace.created", {"name": workspace_name or "My workspace"}, workspace_id=workspace_id,
                      actor="hub")
            # No password: this owner signs in with the token. On a fresh hub the setup stays open (needs_setup),
            # and the person's browser setup claims this owner, with the agents paired meanwhile.
            taken = people.owner_username_taken(tx.conn)
            tx.append("user.created", {"userId": user_id, "username": f"owner-{user_id[-6:]}" if taken else "owner",
                                       "displayName": "Owner", "role": "owner", "_passwordHash": "!"},
                      workspace_id=workspace_id, actor="hub")
        else:
            workspace_id, user_id = owner.workspace_id, owner.id
        device_id = _add_device(tx, workspace_id, user_id, device_name, token)
        return {"token": token, "userId": user_id, "workspaceId": workspace_id, "deviceId": device_id,
                "needsSetup": needs_setup(tx.conn)}

    return Command(run=run)


def rename_hub(actor: Actor, name: str) -> Command:
    """The hub's display name, as the LAN (mDNS) and the app show it; the owner's decision."""
    def run(tx: Tx) -> None:
        # The hub's owner is the owner of its first workspace (as for `lineup token`): the owner of a second
        # workspace on the same hub may not change what every workspace and the LAN see.
        first = people.first_owner(tx.conn)
        if first is None or first.id != actor.id:
            raise LapError("forbidden", "Only the hub's owner can rename it.")
        tx.append("hub.renamed", {"name": name}, workspace_id=actor.workspace_id, actor=actor.ref)

    return Command(run=run)
