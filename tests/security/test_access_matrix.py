"""The access matrix (docs/design.md#security-baseline): every HTTP route and every inbound event type, tried
with no credential, placeholder credentials, revoked ones, another workspace's, and an agent's where an app's is needed
and the other way round. Every attempt is refused with the right status or code, and no answer tells workspace B
whether an object of workspace A exists.

The routes are not listed by hand: they are read from `hub.app.create_app` (after start-up, so plugins' routes
count), and a route that is not classified below fails the test. The event types come from
`hub.protocol.payloads` (APP_INBOUND, AGENT_INBOUND: tool.* included), and a type that is not classified fails too.
"""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from starlette.routing import Mount, Route, WebSocketRoute

from hub.protocol import payloads as P
from tests.security.conftest import PASSWORD, World
from tests.security.support import asgi_hub, normalised
from tests.support.hubproc import pair_agent
from tests.support.lap import LapClient, envelope

# ---- the classification of every route ----------------------------------------------------------------------

PUBLIC = {("GET", "/-/health"), ("GET", "/.well-known/lineup"), ("GET", "/-/ui-modules.json"), ("GET", "/api/setup"),
          ("GET", "/-/agent-presets.json"), ("GET", "/-/vocabulary.json"),
          # The hub's CA certificate, for a phone that scanned the QR code before signing in (hub/web/trust.py).
          ("GET", "/trust/lineup-hub.mobileconfig"), ("GET", "/trust/lineup-hub-ca.crt")}
# Loopback clients read these without a token (the person on the hub's machine); anyone else needs an app token.
LOOPBACK_OR_APP = {("GET", "/-/metrics"), ("GET", "/-/plugins.json")}
# The secret in the body is the credential: a password, the setup code, a pairing code, a link code, an action token.
SECRET_IN_BODY = {("POST", "/api/setup"), ("POST", "/api/login"), ("POST", "/api/pair"),
                  ("POST", "/api/sign-in-links/redeem"), ("POST", "/api/actions")}
# Files: an app token (any file of its workspace) or an agent credential (its own, and those attached where it takes
# part; tests/integration/test_files.py tries each kind of agent).
APP_OR_AGENT = {("POST", "/api/files"), ("GET", "/api/files/{file_id}")}


@dataclass(frozen=True)
class AppRoute:
    """A route that needs an app (device) token. `kind`: what another workspace's token may do with it.

    object: names an object of A in the path: B gets exactly the answer for an object that does not exist;
    own: B works on its own data: the answer holds nothing of A; hub: a hub-wide change: only A's owner;
    owner: runs programs on the hub's machine (sessions, docs/sessions.md): only A's owner, B is refused before
    anything is read.
    """

    kind: str
    obj: str | None = None                      # the World.a key of the object in the path
    body: dict[str, Any] | None = None
    query: dict[str, str] = field(default_factory=dict)
    refused_as: str = "not_found"               # "own": the error B may get for its own (incomplete) request


APP_ROUTES: dict[tuple[str, str], AppRoute] = {
    ("GET", "/api/me"): AppRoute("own"),
    ("GET", "/api/trust"): AppRoute("own"),
    ("GET", "/api/devices"): AppRoute("own"),
    ("POST", "/api/devices/{device_id}/revoke"): AppRoute("object", "deviceId", {}),
    ("POST", "/api/pairing-codes"): AppRoute("own", body={}),
    ("POST", "/api/sign-in-links"): AppRoute("own", body={}),
    ("POST", "/api/hub/rename"): AppRoute("hub", body={"name": "Renamed by a neighbour"}),
    ("GET", "/api/agents"): AppRoute("own"),
    ("POST", "/api/agents/{agent_id}/revoke"): AppRoute("object", "agentId", {}),
    ("POST", "/api/agents/{agent_id}/rename"): AppRoute("object", "agentId", {"name": "hijacked"}),
    ("GET", "/api/state"): AppRoute("own"),
    ("GET", "/api/conversations"): AppRoute("own"),
    ("GET", "/api/conversations/{conversation_id}/messages"): AppRoute("object", "conversationId"),
    ("GET", "/api/tasks"): AppRoute("own", query={"conversationId": "a-conv"}),
    ("GET", "/api/tasks/{task_id}"): AppRoute("object", "taskId"),
    ("GET", "/api/inbox"): AppRoute("own"),
    ("GET", "/api/interactions"): AppRoute("own"),
    ("GET", "/api/events"): AppRoute("own"),
    ("GET", "/api/notifications"): AppRoute("own"),
    ("POST", "/api/notifications/test"): AppRoute("own", body={}),
    ("GET", "/api/relay"): AppRoute("own"),
    ("POST", "/api/relay/devices"): AppRoute("own", body={}),
    ("POST", "/api/relay/devices/revoke"): AppRoute("own", body={}),
    ("GET", "/api/relay/check"): AppRoute("own"),             # the hub's relay server, in words: nothing of A's
    ("GET", "/api/push/key"): AppRoute("own"),                # the hub's public VAPID key
    # A subscription B posts is checked as B's own (an empty one is refused, and no push service is called in a test).
    ("POST", "/api/push/subscriptions"): AppRoute("own", body={}, refused_as="invalid_payload"),
    ("GET", "/api/push/devices"): AppRoute("own"),            # the caller's own devices that get pushes
    ("POST", "/api/push/devices/stop"): AppRoute("own", body={"id": "a-push"}, refused_as="not_found"),
    ("GET", "/api/sessions"): AppRoute("owner"),
    ("POST", "/api/sessions"): AppRoute("owner", body={"agentId": "a-agent", "folder": "/"}),
    ("GET", "/api/sessions/agents"): AppRoute("owner"),
    ("GET", "/api/sessions/projects"): AppRoute("owner"),
    ("GET", "/api/sessions/worktrees"): AppRoute("owner", query={"repo": "/"}),
    ("GET", "/api/sessions/branches"): AppRoute("owner", query={"repo": "/"}),
    ("GET", "/api/sessions/{session_id}"): AppRoute("owner"),
    ("GET", "/api/sessions/{session_id}/changes"): AppRoute("owner"),
    ("GET", "/api/sessions/{session_id}/diff"): AppRoute("owner", query={"path": "x"}),
    ("POST", "/api/sessions/{session_id}/stop"): AppRoute("owner", body={}),
    ("POST", "/api/sessions/{session_id}/end"): AppRoute("owner", body={}),
    ("POST", "/api/sessions/{session_id}/review"): AppRoute("owner", body={"comments": []}),
    ("POST", "/api/sessions/{session_id}/commit"): AppRoute("owner", body={"message": "x"}),
    ("GET", "/api/settings/sessions"): AppRoute("owner"),
    ("POST", "/api/settings/sessions"): AppRoute("owner", body={"roots": []}),
}
SOCKETS = {"/ws/app": "app", "/ws/agent": "agent"}
STATIC_MOUNTS = {"": "the web app (ui/)", "/plugins/{name}/static": "a plugin's static/ folder"}


async def walk_routes(tmp_path: Path) -> tuple[set[tuple[str, str]], set[str], set[str]]:
    """(method, path) of every HTTP route, every socket path and every mount of a started hub."""
    async with asgi_hub(tmp_path / "walk") as served:
        http: set[tuple[str, str]] = set()
        sockets: set[str] = set()
        mounts: set[str] = set()
        for route in served.app.routes:
            if isinstance(route, WebSocketRoute):
                sockets.add(route.path)
            elif isinstance(route, Route):
                http.update((m, route.path) for m in (route.methods or ()) if m != "HEAD")
            elif isinstance(route, Mount):
                mounts.add(re.sub(r"^/plugins/[^/]+/static$", "/plugins/{name}/static", route.path))
            else:  # pragma: no cover - a new kind of route
                raise AssertionError(f"unclassified route object {route!r}")
        return http, sockets, mounts


async def test_every_route_is_classified(tmp_path: Path) -> None:
    http, sockets, mounts = await walk_routes(tmp_path)
    classified = PUBLIC | LOOPBACK_OR_APP | SECRET_IN_BODY | APP_OR_AGENT | set(APP_ROUTES)
    assert http - classified == set(), "new HTTP routes: classify them in tests/security/test_access_matrix.py"
    assert classified - http == set(), "classified routes that no longer exist"
    assert sockets == set(SOCKETS)
    assert mounts == set(STATIC_MOUNTS) and "/plugins/{name}/static" in mounts


# ---- HTTP: bad credentials -----------------------------------------------------------------------------------

def bad_credentials(world: World) -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """label -> (headers, query): none of them may open an app route."""
    a = world.a
    return {
        "no credential": ({}, {}),
        "basic auth with the password": ({"Authorization": "Basic YWRhOmNvcnJlY3QgaG9yc2U="}, {}),
        "bare scheme": ({"Authorization": "Bearer"}, {}),
        "quoted empty bearer": ({"Authorization": 'Bearer ""'}, {}),
        "null": ({"Authorization": "Bearer null"}, {}),
        "undefined": ({"Authorization": "Bearer undefined"}, {}),
        "prefix only": ({"Authorization": "Bearer lu_dev_"}, {}),
        "other scheme, valid token": ({"Authorization": f"Token {a['token']}"}, {}),
        "revoked device token": ({"Authorization": f"Bearer {a['revokedToken']}"}, {}),
        "agent credential": ({"Authorization": f"Bearer {a['credential']}"}, {}),
        "revoked agent credential": ({"Authorization": f"Bearer {a['revokedCredential']}"}, {}),
        "token in the URL": ({}, {"token": a["token"], "access_token": a["token"]}),
        "token in a cookie": ({"Cookie": f"token={a['token']}; lineup.token={a['token']}"}, {}),
    }


def concrete(path: str, world: World, obj: str | None, value: str | None = None) -> str:
    return re.sub(r"\{[a-z_]+\}", value if value is not None else (world.a[obj] if obj else "x"), path)


async def test_app_routes_refuse_every_bad_credential(world: World) -> None:
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        for (method, template), route in APP_ROUTES.items():
            path = concrete(template, world, route.obj)
            for label, (headers, query) in bad_credentials(world).items():
                for verb in (method, "HEAD") if method == "GET" else (method,):
                    response = await http.request(verb, path, headers=headers, params=query,
                                                  json=route.body if verb == "POST" else None)
                    assert response.status_code == 401, (verb, path, label, response.status_code, response.text)
                    if verb == "HEAD":
                        continue
                    error = response.json()["error"]
                    assert error["code"] == "unauthorized" and set(error) == {"code", "message", "hint"}, \
                        (path, label, error)
                    assert not any(i in response.text for i in world.a_ids()), (path, label, response.text)
        # Nothing of that changed anything: A's owner token, device and agent still work.
        auth = {"Authorization": f"Bearer {world.a['token']}"}
        agents = {x["id"]: x for x in (await http.get("/api/agents", headers=auth)).json()["agents"]}
        assert agents[world.a["agentId"]]["revokedAt"] is None and agents[world.a["agentId"]]["name"] == "a-agent"


async def test_file_routes_take_an_app_token_or_an_agent_credential_and_nothing_else(world: World) -> None:
    """POST /api/files and GET /api/files/{id}: every bad credential of the app routes but the live agent
    credential is refused (401); B's token and B's agent get exactly the answer for a missing file."""
    a_auth = {"Authorization": f"Bearer {world.a['token']}"}
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        stored = await http.post("/api/files", content=b"Alpha's numbers", headers={**a_auth, "X-File-Name": "n.txt"})
        assert stored.status_code == 201, stored.text
        file_id = stored.json()["fileId"]
        for label, (headers, query) in bad_credentials(world).items():
            if label == "agent credential":
                continue
            for method, path in (("POST", "/api/files"), ("GET", f"/api/files/{file_id}")):
                response = await http.request(method, path, headers=headers, params=query,
                                              content=b"x" if method == "POST" else None)
                assert response.status_code == 401, (method, label, response.status_code, response.text)
                assert response.json()["error"]["code"] == "unauthorized"
                assert file_id not in response.text and "Alpha" not in response.text
        b_agent = pair_agent(world.hub, world.b["token"], "b-reader")  # type: ignore[arg-type]  # a ServedHub; pair_agent reads only .base
        for secret in (world.b["token"], b_agent["credential"]):
            answers = []
            for value in (file_id, f"file_{uuid.uuid4().hex}"):
                response = await http.get(f"/api/files/{value}", headers={"Authorization": f"Bearer {secret}"})
                error = response.json()["error"]
                answers.append((response.status_code, error["code"], normalised(error["message"], value),
                                error["hint"]))
            assert answers[0] == answers[1] and answers[0][:2] == (404, "not_found"), answers
        assert (await http.get(f"/api/files/{file_id}", headers=a_auth)).content == b"Alpha's numbers"


async def test_another_workspace_cannot_tell_whether_an_object_exists(world: World) -> None:
    """B's token on a route naming A's object gets byte for byte the answer for a missing object."""
    auth = {"Authorization": f"Bearer {world.b['token']}"}
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        for (method, template), route in APP_ROUTES.items():
            if route.kind != "object":
                continue
            assert route.obj is not None
            existing, missing = world.a[route.obj], f"zz-missing-{uuid.uuid4().hex[:8]}"
            answers = []
            for value in (existing, missing):
                response = await http.request(method, concrete(template, world, route.obj, value), headers=auth,
                                              json=route.body if method == "POST" else None)
                error = response.json()["error"]
                answers.append((response.status_code, error["code"], normalised(error["message"], value),
                                error["hint"]))
            assert answers[0] == answers[1], (template, answers)
            assert answers[0][:2] == (404, "not_found"), (template, answers)
        a_auth = {"Authorization": f"Bearer {world.a['token']}"}
        agent = next(x for x in (await http.get("/api/agents", headers=a_auth)).json()["agents"]
                     if x["id"] == world.a["agentId"])
        assert (agent["revokedAt"], agent["name"]) == (None, "a-agent")
        assert (await http.get("/api/me", headers=a_auth)).status_code == 200  # A's device was not revoked


async def test_another_workspace_sees_only_its_own_data(world: World) -> None:
    auth = {"Authorization": f"Bearer {world.b['token']}"}
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        for (method, template), route in APP_ROUTES.items():
            if route.kind != "own":
                continue
            response = await http.request(method, template, headers=auth, params=route.query,
                                          json=route.body if method == "POST" else None)
            assert response.status_code < 300 or response.json()["error"]["code"] == route.refused_as, \
                (template, response.status_code, response.text)
            leaked = [i for i in world.a_ids() if i in response.text]
            assert not leaked, (template, leaked)
        # A pairing code B makes pairs an agent into B, never into A.
        code = (await http.post("/api/pairing-codes", headers=auth, json={})).json()["code"]
        paired = (await http.post("/api/pair", json={"code": code, "name": "b-second"})).json()
        assert paired["workspaceId"] == world.b["workspaceId"]


async def test_a_hub_wide_change_needs_the_first_workspaces_owner(world: World) -> None:
    """Renaming the hub changes what every workspace and the LAN see: the owner of A (the hub's first workspace)
    may, the owner of a second workspace on the same hub may not."""
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        before = (await http.get("/.well-known/lineup")).json()["name"]
        for (method, template), route in APP_ROUTES.items():
            if route.kind != "hub":
                continue
            refused = await http.request(method, template, json=route.body,
                                         headers={"Authorization": f"Bearer {world.b['token']}"})
            assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden"), refused.text
            assert (await http.get("/.well-known/lineup")).json()["name"] == before
            allowed = await http.request(method, template, json={"name": before},
                                         headers={"Authorization": f"Bearer {world.a['token']}"})
            assert allowed.status_code == 200, allowed.text


async def test_the_hub_machines_routes_are_the_first_owners_alone(world: World) -> None:
    """Sessions run programs as the hub's user in the hub's folders: the owner of a second workspace on the same
    hub is refused (403 forbidden) on every such route, before any folder, agent or session is looked at, and the
    answer names nothing of A."""
    auth = {"Authorization": f"Bearer {world.b['token']}"}
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        for (method, template), route in APP_ROUTES.items():
            if route.kind != "owner":
                continue
            response = await http.request(method, concrete(template, world, None, "a-session"), headers=auth,
                                          params=route.query, json=route.body if method == "POST" else None)
            assert (response.status_code, response.json()["error"]["code"]) == (403, "forbidden"), \
                (method, template, response.text)
            leaked = [i for i in world.a_ids() if i in response.text]
            assert not leaked, (template, leaked)
        a_auth = {"Authorization": f"Bearer {world.a['token']}"}
        assert (await http.get("/api/sessions", headers=a_auth)).status_code == 200


# ---- HTTP: routes whose credential is a secret in the body ---------------------------------------------------

async def test_secret_in_body_routes_refuse_placeholders_and_other_secrets(world: World) -> None:
    """A bearer token never stands in for the body's secret; placeholders, other kinds of secret and spent ones
    are refused, never with a 5xx. (Few attempts: the guess limits of the shared hub must not trip.)"""
    a = world.a
    bearer = {"Authorization": f"Bearer {a['token']}"}
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        async def expect(path: str, body: dict[str, Any], status: int, code: str, headers: dict[str, str] | None = None,
                         ) -> None:
            response = await http.post(path, json=body, headers=headers or {})
            assert (response.status_code, response.json()["error"]["code"]) == (status, code), (path, body,
                                                                                                 response.text)

        # Setup is closed once an owner exists, whatever is sent, even by the owner.
        await expect("/api/setup", {"username": "eve", "displayName": "Eve", "password": "p" * 12,
                                    "workspaceName": "Eve"}, 403, "forbidden", bearer)
        # Sign-in: the CLI-made owner of B has no password ("!" in the database); placeholders do not match it.
        b_user = (await http.get("/api/me", headers={"Authorization": f"Bearer {world.b['token']}"})).json()
        for password in ("!", "null", b_user["username"]):
            await expect("/api/login", {"username": b_user["username"], "password": password}, 401, "unauthorized")
        await expect("/api/login", {"username": b_user["username"], "password": ""}, 422, "invalid_payload")
        await expect("/api/login", {"username": "ada", "password": a["token"]}, 401, "unauthorized", bearer)
        # Pairing: a token is not a code; a spent code does not work twice.
        await expect("/api/pair", {"code": "null"}, 401, "unauthorized", bearer)
        await expect("/api/pair", {"code": a["token"]}, 422, "invalid_payload")
        code = (await http.post("/api/pairing-codes", json={}, headers=bearer)).json()["code"]
        assert (await http.post("/api/pair", json={"code": code})).status_code == 201
        await expect("/api/pair", {"code": code}, 401, "unauthorized")
        # Sign-in links: a device token is not a link code; a redeemed link does not work twice.
        await expect("/api/sign-in-links/redeem", {"code": a["token"]}, 401, "unauthorized", bearer)
        link = (await http.post("/api/sign-in-links", json={}, headers=bearer)).json()["url"].split("#signin=")[1]
        assert (await http.post("/api/sign-in-links/redeem", json={"code": link})).status_code == 201
        await expect("/api/sign-in-links/redeem", {"code": link}, 401, "unauthorized")
        # Action links: neither a device token nor an agent credential is an action token.
        await expect("/api/actions", {"token": a["token"]}, 401, "unauthorized", bearer)
        await expect("/api/actions", {"token": a["credential"]}, 401, "unauthorized")
        interactions = (await http.get("/api/interactions", headers=bearer)).json()["interactions"]
        assert [i["status"] for i in interactions if i["id"] == a["interactionId"]] == ["pending"]


async def test_loopback_or_app_routes_need_a_token_from_anywhere_else(tmp_path: Path) -> None:
    """/-/metrics and /-/plugins.json: free on the hub's own machine, an app token from any other address."""
    async with asgi_hub(tmp_path / "hub") as served:
        local = served.client("127.0.0.1", host="127.0.0.1:9527")
        async with local:
            owner = (await local.post("/api/setup", json={"username": "ada", "displayName": "Ada",
                                                          "password": PASSWORD, "workspaceName": "Alpha"})).json()
            auth = {"Authorization": f"Bearer {owner['token']}"}
            spare = (await local.post("/api/login", json={"username": "ada", "password": PASSWORD})).json()
            await local.post(f"/api/devices/{spare['deviceId']}/revoke", json={}, headers=auth)
            code = (await local.post("/api/pairing-codes", json={}, headers=auth)).json()["code"]
            credential = (await local.post("/api/pair", json={"code": code})).json()["credential"]
            for _, path in LOOPBACK_OR_APP:
                assert (await local.get(path)).status_code == 200, path
        remote = served.client("192.168.1.77", host="192.168.1.10:9527")
        async with remote:
            for _, path in LOOPBACK_OR_APP:
                for headers in ({}, {"Authorization": "Bearer "}, {"Authorization": "Bearer null"},
                                {"Authorization": f"Bearer {spare['token']}"},
                                {"Authorization": f"Bearer {credential}"}):
                    response = await remote.get(path, headers=headers)
                    assert (response.status_code, response.json()["error"]["code"]) == (401, "unauthorized"), \
                        (path, headers)
                assert (await remote.get(path, headers=auth)).status_code == 200, path


async def test_public_routes_and_static_files_need_nothing_and_hold_no_secret(world: World) -> None:
    async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
        for _, path in sorted(PUBLIC):
            response = await http.get(path)
            assert response.status_code == 200, path
            assert not any(i in response.text for i in world.a_ids() + [world.a["token"]]), (path, response.text)
        assert (await http.get("/api/setup")).json() == {"needsSetup": False, "setupCodeRequired": False}
        index = await http.get("/")
        assert index.status_code == 200 and "text/html" in index.headers["content-type"]
        modules = (await http.get("/-/ui-modules.json")).json()["modules"]
        for module in modules:
            assert (await http.get(module["url"])).status_code == 200, module


# ---- sockets: every event type -------------------------------------------------------------------------------

APP_ONLY = {"task.cancel_requested", "interaction.respond"}
AGENT_ONLY = {"message.delta", "task.accepted", "task.status_changed", "task.child_created", "task.checkpoint",
              "interaction.requested", "interaction.withdraw", "artifact.created"}
BOTH = {"conversation.create", "message.create", "task.create", "tool.list", "tool.call", "tool.result"}


def valid_payload(type_: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A payload that passes validation, and the envelope fields, for each inbound type (objects of no one)."""
    payloads: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
        "conversation.create": ({"title": "t", "agentIds": []}, {}),
        "message.create": ({"content": "hello"}, {"conversationId": "nowhere"}),
        "message.delta": ({"messageId": "m", "offset": 0, "text": "x"}, {"conversationId": "nowhere"}),
        "task.create": ({"title": "t"}, {"conversationId": "nowhere"}),
        "task.cancel_requested": ({}, {"taskId": "nowhere"}),
        "interaction.respond": ({"interactionId": "nowhere", "response": {"optionId": "approve"}}, {}),
        "task.accepted": ({}, {"taskId": "nowhere"}),
        "task.status_changed": ({"progress": 1}, {"taskId": "nowhere"}),
        "task.child_created": ({"parentTaskId": "nowhere", "title": "t"}, {}),
        "task.checkpoint": ({"name": "step"}, {"taskId": "nowhere"}),
        "interaction.requested": ({"interaction": {"type": "approval", "title": "t"}}, {"taskId": "nowhere"}),
        "interaction.withdraw": ({"interactionId": "nowhere"}, {}),
        "artifact.created": ({"name": "n", "url": "https://x.test"}, {"taskId": "nowhere"}),
        "tool.list": ({}, {}),
        "tool.call": ({"call_id": f"c-{uuid.uuid4().hex[:8]}", "name": "calculator", "arguments": {}}, {}),
        "tool.result": ({"call_id": "nowhere", "result": {}}, {}),
    }
    return payloads[type_]


def test_every_event_type_is_classified() -> None:
    assert set(P.APP_INBOUND) | set(P.AGENT_INBOUND) == APP_ONLY | AGENT_ONLY | BOTH
    assert set(P.APP_INBOUND) - set(P.AGENT_INBOUND) == APP_ONLY
    assert set(P.AGENT_INBOUND) - set(P.APP_INBOUND) == AGENT_ONLY
    assert {t for t in P.APP_INBOUND if t.startswith("tool.")} == {"tool.list", "tool.call", "tool.result"}
    for type_ in APP_ONLY | AGENT_ONLY | BOTH:
        kinds = P.APP_INBOUND if type_ in P.APP_INBOUND else P.AGENT_INBOUND
        payload, _ = valid_payload(type_)
        P.parse_payload(kinds[type_], payload)  # the samples below are valid: a refusal is never about the shape


async def hello_refused(ws_base: str, kind: str, secret: str | None) -> tuple[str | None, int | None]:
    """(error code, close code) for a hello with `secret` (None: the field left out)."""
    path = "/ws/agent" if kind == "agent" else "/ws/app"
    key = "credential" if kind == "agent" else "token"
    payload: dict[str, Any] = {"runtime": "test", "agentVersion": "1"} if kind == "agent" else {}
    if secret is not None:
        payload[key] = secret
    code: str | None = None
    async with websockets.connect(ws_base + path) as ws:
        await ws.send(json.dumps(envelope(f"{kind}.hello", payload)))
        try:
            while True:
                frame = json.loads(await ws.recv())
                if frame["type"] == "system.error":
                    code = frame["payload"]["code"]
                    if code == "invalid_payload":  # a hello that is not one (no or empty field): refused, and the
                        return code, None          # socket waits for a good hello until the hello timeout
                elif frame["type"] == "system.welcome":
                    return None, None
        except websockets.ConnectionClosed as exc:
            return code, exc.rcvd.code if exc.rcvd else None


async def test_hellos_with_no_placeholder_revoked_or_wrong_kind_credential_are_closed_4401(world: World) -> None:
    a = world.a
    placeholders = ["", " ", "null", "undefined", "Bearer", "lu_dev_", "lu_agt_", "0"]
    cases = [("app", s) for s in placeholders + [a["revokedToken"], a["credential"], a["revokedCredential"]]]
    cases += [("agent", s) for s in placeholders + [a["revokedCredential"], a["token"], a["revokedToken"]]]
    for kind, secret in cases:
        answer = await hello_refused(world.hub.ws_base, kind, secret)
        assert answer in (("unauthorized", 4401), ("invalid_payload", None)), (kind, secret, answer)
        assert answer == ("unauthorized", 4401) or secret == "", (kind, secret, answer)
    for kind in ("app", "agent"):
        assert await hello_refused(world.hub.ws_base, kind, None) == ("invalid_payload", None)


async def test_no_event_type_is_taken_before_a_hello(world: World) -> None:
    head = (await state(world))["headSequence"]
    for kind, path in (("app", "/ws/app"), ("agent", "/ws/agent")):
        async with websockets.connect(world.hub.ws_base + path) as ws:
            for type_ in sorted(APP_ONLY | AGENT_ONLY | BOTH):
                payload, fields = valid_payload(type_)
                env = envelope(type_, payload, world.a["workspaceId"], **fields)
                await ws.send(json.dumps(env))
                answer = json.loads(await ws.recv())
                assert answer["type"] == "system.error", (kind, type_, answer)
                assert (answer["payload"]["id"], answer["payload"]["code"]) == (env["id"], "invalid_envelope")
    assert (await state(world))["headSequence"] == head


async def state(world: World) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=world.hub.base) as http:
        return dict((await http.get("/api/state", headers={"Authorization": f"Bearer {world.a['token']}"})).json())


async def test_apps_cannot_send_agent_events_and_agents_cannot_send_app_events(world: World) -> None:
    app = await LapClient.connect(world.hub.ws_base, "app", world.a["token"])
    agent = await LapClient.connect(world.hub.ws_base, "agent", world.a["credential"])
    try:
        head = (await state(world))["headSequence"]
        for client, types in ((app, AGENT_ONLY), (agent, APP_ONLY)):
            for type_ in sorted(types):
                payload, _ = valid_payload(type_)
                # Aimed at A's real objects: the refusal is about who sends, not about a missing object.
                fields = {"taskId": world.a["taskId"]} if type_ != "interaction.respond" else {}
                if type_ == "interaction.respond":
                    payload = {"interactionId": world.a["interactionId"], "response": {"optionId": "approve"}}
                if type_ == "message.delta":
                    fields = {"conversationId": world.a["conversationId"]}
                answer = await client.request(type_, payload, **fields)
                assert (answer["type"], answer["payload"]["code"]) == ("system.error", "forbidden"), (type_, answer)
        assert (await state(world))["headSequence"] == head
    finally:
        await app.close()
        await agent.close()


def cross_workspace_cases(world: World) -> dict[str, list[tuple[str, str, Any, Any, str, str]]]:
    """kind -> [(label, type, (payload, fields) aimed at A's object, the same aimed at a missing one, both ids)]."""
    a, b = world.a, world.b

    def pair(type_: str, label: str, build: Any, obj: str) -> tuple[str, str, Any, Any, str, str]:
        missing = f"zz-missing-{uuid.uuid4().hex[:8]}"
        return (label, type_, build(a[obj]), build(missing), a[obj], missing)

    app = [
        pair("conversation.create", "a conversation with A's agent",
             lambda x: ({"title": "t", "agentIds": [x]}, {}), "agentId"),
        pair("message.create", "a message in A's conversation", lambda x: ({"content": "hi"}, {"conversationId": x}),
             "conversationId"),
        pair("message.create", "a message on A's task",
             lambda x: ({"content": "hi"}, {"conversationId": b["conversationId"], "taskId": x}), "taskId"),
        pair("message.create", "a message for A's agent",
             lambda x: ({"content": "hi", "targetAgentId": x}, {"conversationId": b["conversationId"]}), "agentId"),
        pair("task.create", "a task in A's conversation", lambda x: ({"title": "t"}, {"conversationId": x}),
             "conversationId"),
        pair("task.create", "a task for A's agent", lambda x: ({"title": "t", "targetAgentId": x}, {}), "agentId"),
        pair("task.create", "a sub-task of A's task",
             lambda x: ({"title": "t", "parentTaskId": x, "targetAgentId": b["agentId"]}, {}), "taskId"),
        pair("task.cancel_requested", "cancelling A's task", lambda x: ({}, {"taskId": x}), "taskId"),
        pair("interaction.respond", "answering A's question",
             lambda x: ({"interactionId": x, "response": {"optionId": "approve"}}, {}), "interactionId"),
        pair("tool.result", "answering the call made to A's app",
             lambda x: ({"call_id": x, "result": {"ok": True}}, {}), "appCallId"),
        pair("tool.result", "answering it by its event id",
             lambda x: ({"call_id": a["appCallId"], "result": {"ok": True}}, {"correlationId": x}), "appCallEventId"),
        pair("tool.call", "a tool call for A's task",
             lambda x: ({"call_id": f"c-{uuid.uuid4().hex[:8]}", "name": "calculator", "action": "evaluate",
                         "arguments": {"expression": "1+1"}}, {"taskId": x}), "taskId"),
    ]
    agent = [
        pair("message.create", "a message in A's conversation", lambda x: ({"content": "hi"}, {"conversationId": x}),
             "conversationId"),
        pair("message.create", "a message on A's task",
             lambda x: ({"content": "hi"}, {"conversationId": b["conversationId"], "taskId": x}), "taskId"),
        pair("message.delta", "streaming into A's conversation",
             lambda x: ({"messageId": f"m-{uuid.uuid4().hex[:6]}", "offset": 0, "text": "hi"}, {"conversationId": x}),
             "conversationId"),
        pair("task.create", "a task in A's conversation", lambda x: ({"title": "t"}, {"conversationId": x}),
             "conversationId"),
        pair("task.create", "a sub-task of A's task", lambda x: ({"title": "t", "parentTaskId": x}, {}), "taskId"),
        pair("task.accepted", "accepting A's task", lambda x: ({}, {"taskId": x}), "queuedTaskId"),
        pair("task.status_changed", "progress on A's task", lambda x: ({"progress": 99}, {"taskId": x}), "taskId"),
        pair("task.status_changed", "finishing A's task", lambda x: ({"status": "succeeded"}, {"taskId": x}), "taskId"),
        pair("task.child_created", "a child of A's task", lambda x: ({"parentTaskId": x, "title": "t"}, {}), "taskId"),
        pair("task.checkpoint", "a step of A's task", lambda x: ({"name": "step", "data": 1}, {"taskId": x}), "taskId"),
        pair("interaction.requested", "a question on A's task",
             lambda x: ({"interaction": {"type": "approval", "title": "t"}}, {"taskId": x}), "taskId"),
        pair("interaction.requested", "a question in A's conversation",
             lambda x: ({"interaction": {"type": "approval", "title": "t"}}, {"conversationId": x}), "conversationId"),
        pair("interaction.withdraw", "withdrawing A's question",
             lambda x: ({"interactionId": x, "reason": "mine now"}, {}), "interactionId"),
        pair("artifact.created", "an artifact on A's task",
             lambda x: ({"name": "n", "url": "https://x.test"}, {"taskId": x}), "taskId"),
        pair("artifact.created", "an artifact in A's conversation",
             lambda x: ({"name": "n", "url": "https://x.test"}, {"conversationId": x}), "conversationId"),
        pair("tool.result", "answering the call made to A's agent",
             lambda x: ({"call_id": x, "result": {"ok": True}}, {}), "agentCallId"),
        pair("tool.call", "a tool call for A's task",
             lambda x: ({"call_id": f"c-{uuid.uuid4().hex[:8]}", "name": "calculator", "action": "evaluate",
                         "arguments": {"expression": "1+1"}}, {"taskId": x}), "taskId"),
    ]
    return {"app": app, "agent": agent}


async def test_another_workspaces_credential_reaches_nothing_of_a_and_learns_nothing(world: World) -> None:
    a, b = world.a, world.b
    before = await state(world)
    async with httpx.AsyncClient(base_url=world.hub.base) as http:
        a_auth = {"Authorization": f"Bearer {a['token']}"}
        a_task_before = (await http.get(f"/api/tasks/{a['taskId']}", headers=a_auth)).json()
    b_app = await LapClient.connect(world.hub.ws_base, "app", b["token"])
    b_agent = await LapClient.connect(world.hub.ws_base, "agent", b["credential"])
    clients = {"app": b_app, "agent": b_agent}
    try:
        # 1. Naming A's workspace on the envelope: refused outright, for every type either side may send.
        for kind, client in clients.items():
            for type_ in sorted(BOTH | (APP_ONLY if kind == "app" else AGENT_ONLY)):
                payload, fields = valid_payload(type_)
                answer = await client.request(type_, payload, workspace_id=a["workspaceId"], **fields)
                assert (answer["type"], answer["payload"]["code"]) == ("system.error", "forbidden"), (kind, type_)
        # 2. Naming A's objects from B's own workspace: the same answer as for objects that do not exist.
        covered: dict[str, set[str]] = {"app": set(), "agent": set()}
        for kind, cases in cross_workspace_cases(world).items():
            client = clients[kind]
            for label, type_, (payload_a, fields_a), (payload_m, fields_m), existing, missing in cases:
                seen = []
                for payload, fields, named in ((payload_a, fields_a, existing), (payload_m, fields_m, missing)):
                    if type_ == "tool.call":
                        payload = {**payload, "call_id": f"c-{uuid.uuid4().hex[:8]}"}  # noqa: PLW2901 - the payload made valid for this case
                    answer = await client.request(type_, payload, **fields)
                    seen.append((answer["type"], answer["payload"].get("code"),
                                 normalised(answer["payload"].get("message", ""), named)))
                assert seen[0] == seen[1], (kind, label, seen)
                assert seen[0][:2] == ("system.error", "not_found"), (kind, label, seen)
                covered[kind].add(type_)
        # 3. Listing tools shows nothing A registered; calling A's agent's tool finds no such tool.
        for client in clients.values():
            listing_id = await client.send("tool.list", {})
            listing = await client.wait_for(lambda f: f["type"] == "tool.list" and f.get("correlationId") == listing_id)
            names = {t["name"] for t in listing["payload"]["tools"]}
            assert not names & {"a_agent_tool", "a_app_tool"}, names
        results = []
        for target in (a["agentId"], "agt_zz_missing"):
            call_id = f"c-{uuid.uuid4().hex[:8]}"
            await b_app.ok("tool.call", {"call_id": call_id, "name": "a_agent_tool", "arguments": {},
                                         "targetAgentId": target})
            result = await b_app.event("tool.result", call_id=call_id)
            results.append(result["payload"]["error"]["code"])
        assert results == ["unknown_tool", "unknown_tool"]
        covered["app"].add("tool.call")
        covered["app"].add("tool.list")
        covered["agent"].add("tool.list")
        # 4. An agent's conversation has that agent alone as its member, whatever agentIds it names.
        await b_agent.ok("conversation.create", {"title": "mine", "agentIds": [a["agentId"]]}, conversationId="b-own")
        covered["agent"].add("conversation.create")
        async with httpx.AsyncClient(base_url=world.hub.base) as http:
            b_convs = (await http.get("/api/conversations", headers={"Authorization": f"Bearer {b['token']}"})).json()
        assert next(c for c in b_convs["conversations"] if c["id"] == "b-own")["agentIds"] == [b["agentId"]]
        assert covered["app"] == BOTH | APP_ONLY and covered["agent"] == BOTH | AGENT_ONLY, covered
        # 5. Nothing was stored in A, and nothing reached A's sockets' view of the log.
        async with httpx.AsyncClient(base_url=world.hub.base) as http:
            events = (await http.get("/api/events", params={"after": before["headSequence"]},
                                     headers=a_auth)).json()["events"]
            # What B did wrote nothing into A's log. Notifications, and A's own agent's presence (its heartbeat seen
            # late on a loaded machine: an agent.status_changed no request of B's causes), are A's own comings and goings.
            assert [e["type"] for e in events if e["type"] not in ("notification.created", "agent.status_changed")] == []
            a_task_after = (await http.get(f"/api/tasks/{a['taskId']}", headers=a_auth)).json()
        assert a_task_after == a_task_before
        assert {f["workspaceId"] for f in b_app.events() + b_agent.events()} == {b["workspaceId"]}
    finally:
        await b_app.close()
        await b_agent.close()


async def test_a_credential_revoked_while_connected_stops_at_once(world: World) -> None:
    """Revoking closes the live socket with 4401 at once, and nothing more is taken from that credential."""
    a = world.a
    async with httpx.AsyncClient(base_url=world.hub.base) as http:
        auth = {"Authorization": f"Bearer {a['token']}"}
        device = (await http.post("/api/login", json={"username": "ada", "password": PASSWORD})).json()
        code = (await http.post("/api/pairing-codes", json={}, headers=auth)).json()["code"]
        paired = (await http.post("/api/pair", json={"code": code, "name": "short-lived"})).json()
        app = await LapClient.connect(world.hub.ws_base, "app", device["token"])
        agent = await LapClient.connect(world.hub.ws_base, "agent", paired["credential"])
        try:
            await http.post(f"/api/devices/{device['deviceId']}/revoke", json={}, headers=auth)
            await http.post(f"/api/agents/{paired['agentId']}/revoke", json={}, headers=auth)
            head = (await state(world))["headSequence"]
            for client in (app, agent):
                await asyncio.wait_for(client.closed.wait(), 5)
                assert client.ws.close_code == 4401
                with pytest.raises(websockets.ConnectionClosed):
                    await client.send("conversation.create", {"title": "after revocation", "agentIds": []})
            events = (await http.get("/api/events", params={"after": head}, headers=auth)).json()["events"]
            actors = {f"user:{device['userId']}", f"agent:{paired['agentId']}"}
            assert [e for e in events if e["type"] == "conversation.created"] == [], events
            assert not any(e.get("actor") in actors for e in events)
        finally:
            await app.close()
            await agent.close()


# ---- ids are unique within a workspace, not across the hub ----------------------------------------------------

async def connect_both(world: World, side: str) -> tuple[LapClient, LapClient]:
    ids = getattr(world, side)
    app = await LapClient.connect(world.hub.ws_base, "app", ids["token"])
    agent = await LapClient.connect(world.hub.ws_base, "agent", ids["credential"])
    return app, agent


async def create_objects(app: LapClient, agent: LapClient, agent_id: str, ids: dict[str, str]) -> list[Any]:
    """A conversation, a message, a task and a child task, an artifact and an interaction with the ids given:
    the (type, error code) of each answer."""
    answers = [
        await app.request("conversation.create", {"title": "t", "agentIds": [agent_id]}, conversationId=ids["conv"]),
        await app.request("message.create", {"content": "hi", "messageId": ids["msg"]}, conversationId=ids["conv"]),
        await app.request("task.create", {"title": "t"}, conversationId=ids["conv"], taskId=ids["task"]),
        await agent.request("task.accepted", {}, taskId=ids["task"]),
        await agent.request("task.child_created", {"parentTaskId": ids["task"], "taskId": ids["child"], "title": "c"}),
        await agent.request("artifact.created", {"name": "n", "url": "https://x.test", "artifactId": ids["art"]},
                            taskId=ids["task"]),
        await agent.request("interaction.requested", {"interaction": {"id": ids["ask"], "type": "approval",
                                                                      "title": "t"}}, taskId=ids["task"]),
    ]
    return [(answer["type"], answer["payload"].get("code")) for answer in answers]


async def test_an_id_used_in_another_workspace_is_not_revealed(world: World) -> None:
    """Guards that the ids a client chooses (conversation, message, task, artifact, interaction) are unique within
    a workspace only (migration m007): B creating objects with ids A already uses gets exactly the answers it gets
    with unused ids, never `conflict`, which would tell B that those ids exist in another workspace."""
    # A makes the taken ids here (not world.a's): B owning an object named like one of world.a's would trip the
    # leak checks of the other tests, which look for A's ids in B's answers.
    taken = {k: f"{k}-{uuid.uuid4().hex[:8]}" for k in ("conv", "msg", "task", "child", "art", "ask")}
    unused = {k: f"{k}-{uuid.uuid4().hex[:8]}" for k in taken}
    a_app, a_agent = await connect_both(world, "a")
    b_app, b_agent = await connect_both(world, "b")
    try:
        acked = [("system.ack", None)] * 7
        assert await create_objects(a_app, a_agent, world.a["agentId"], taken) == acked
        assert await create_objects(b_app, b_agent, world.b["agentId"], taken) == acked
        assert await create_objects(b_app, b_agent, world.b["agentId"], unused) == acked
        # Within one workspace an id is still taken.
        again = await b_app.request("task.create", {"title": "again"}, conversationId=taken["conv"],
                                    taskId=taken["task"])
        assert (again["type"], again["payload"]["code"]) == ("system.error", "conflict")
    finally:
        for client in (a_app, a_agent, b_app, b_agent):
            await client.close()


async def resend(client: LapClient, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """Send and return the answer to this very send (an earlier answer to the same envelope id does not count)."""
    start = len(client.frames)
    envelope_id = await client.send(type_, payload, **fields)
    return await client.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                 and f["payload"].get("id") == envelope_id, start=start)


async def test_the_same_envelope_id_is_a_new_event_in_another_workspace(world: World) -> None:
    """The envelope id (the idempotency key) is unique within a workspace: B's envelope with an id A used is stored
    as B's own event; re-sends stay duplicates within each workspace; A's and B's objects of the same ids stay
    apart in every HTTP read and in the replays of apps and agents."""
    sides = {"a": world.a, "b": world.b}
    head = (await state(world))["headSequence"]
    shared = {k: f"{k}-{uuid.uuid4().hex[:8]}" for k in ("env", "conv", "msg", "task", "call", "call_id")}
    a_app, a_agent = await connect_both(world, "a")
    b_app, b_agent = await connect_both(world, "b")
    try:
        created: dict[str, dict[str, Any]] = {}
        for side, app in (("a", a_app), ("b", b_app)):
            own = f"{side.upper()}'s"
            conv = {"title": own, "agentIds": [sides[side]["agentId"]]}
            ack = await app.ok("conversation.create", conv, id=shared["env"], conversationId=shared["conv"])
            assert ack["duplicate"] is False and ack["sequence"] > head, (side, ack)
            await app.ok("message.create", {"content": f"{own} words", "messageId": shared["msg"]},
                         conversationId=shared["conv"], id=f"{shared['env']}-msg")
            await app.ok("task.create", {"title": f"{own} task"}, conversationId=shared["conv"],
                         taskId=shared["task"], id=f"{shared['env']}-task")
            # A tool call's id is its envelope id: each workspace's call is worked and answered on its own.
            await app.ok("tool.call", {"call_id": shared["call_id"], "name": "calculator", "action": "add",
                                       "arguments": {"a": 1, "b": 1 if side == "a" else 4}}, id=shared["call"])
            result = await app.event("tool.result", correlationId=shared["call"])
            assert result["workspaceId"] == sides[side]["workspaceId"]
            assert result["payload"].get("result", {}).get("value") == (2 if side == "a" else 5), result["payload"]
            created[side] = {"conv": conv, "sequence": ack["sequence"]}
        # A re-send within a workspace: the first ack again, nothing stored. Another payload: conflict.
        for side, app in (("a", a_app), ("b", b_app)):
            again = await resend(app, "conversation.create", created[side]["conv"], id=shared["env"],
                                 conversationId=shared["conv"])
            assert again["type"] == "system.ack", again
            assert (again["payload"]["duplicate"], again["payload"]["sequence"]) == (True, created[side]["sequence"])
            other = await resend(app, "conversation.create", {"title": "other", "agentIds": []}, id=shared["env"],
                                 conversationId=shared["conv"])
            assert (other["type"], other["payload"]["code"]) == ("system.error", "conflict")
        # B's agent starts B's task of that id; A's task of that id stays queued.
        await b_agent.ok("task.accepted", {}, taskId=shared["task"])
        # Each workspace's HTTP reads show its own objects only.
        async with httpx.AsyncClient(base_url=world.hub.base, timeout=30) as http:
            for side, status in (("a", "queued"), ("b", "running")):
                own, workspace_id = f"{side.upper()}'s", sides[side]["workspaceId"]
                auth = {"Authorization": f"Bearer {sides[side]['token']}"}
                convs = (await http.get("/api/conversations", headers=auth)).json()["conversations"]
                assert [c["title"] for c in convs if c["id"] == shared["conv"]] == [own]
                messages = (await http.get(f"/api/conversations/{shared['conv']}/messages", headers=auth)).json()
                assert [m["content"] for m in messages["messages"]] == [f"{own} words"]
                detail = (await http.get(f"/api/tasks/{shared['task']}", headers=auth)).json()
                assert (detail["task"]["title"], detail["task"]["status"]) == (f"{own} task", status)
                assert {e["workspaceId"] for e in detail["timeline"]} == {workspace_id}
                events = (await http.get("/api/events", params={"after": head}, headers=auth)).json()["events"]
                assert {e["workspaceId"] for e in events} == {workspace_id}
                assert [e["sequence"] for e in events if e["id"] == shared["env"]] == [created[side]["sequence"]]
        # Replays from before: an app sees its own workspace's events, an agent the ones addressed to it.
        for side in ("a", "b"):
            ids, own = sides[side], f"{side.upper()}'s"
            app = await LapClient.connect(world.hub.ws_base, "app", ids["token"], last_sequence=head)
            agent = await LapClient.connect(world.hub.ws_base, "agent", ids["credential"], last_sequence=head)
            try:
                assert {f["workspaceId"] for f in app.events() + agent.events()} == {ids["workspaceId"]}
                assert [f["payload"]["title"] for f in app.events() if f["id"] == shared["env"]] == [own]
                assigned = [f["payload"]["title"] for f in agent.events() if f["type"] == "task.assigned"
                            and f.get("taskId") == shared["task"]]
                assert assigned == [f"{own} task"]
            finally:
                await app.close()
                await agent.close()
    finally:
        for client in (a_app, a_agent, b_app, b_agent):
            await client.close()


async def test_a_streamed_message_id_used_in_another_workspace_is_not_revealed(world: World) -> None:
    b_agent = await LapClient.connect(world.hub.ws_base, "agent", world.b["credential"])
    try:
        answers = []
        for message_id in (world.a["messageId"], f"m-{uuid.uuid4().hex[:8]}"):
            answer = await b_agent.request("message.delta", {"messageId": message_id, "offset": 0, "text": "hi"},
                                           conversationId=world.b["conversationId"])
            answers.append((answer["type"], answer["payload"].get("code")))
        assert answers[0] == answers[1], answers
    finally:
        await b_agent.close()
