"""The hub judges the addresses agents store on the parsed URL (security issue item 10, hub/domain/links.py): an
artifact's url and a review attachment's url are refused with invalid_payload naming the field and what is allowed,
before anything is stored; what LineUp's own agents send is stored as sent. A real hub, real sockets."""

from __future__ import annotations

import base64
from pathlib import PurePosixPath
from urllib.parse import quote

from tests.integration.conftest import Connect
from tests.support.fixtures import HubFactory
from tests.support.live import Api, pair

HOSTILE = [" javascript:alert(1)", "\tjavascript:alert(1)", "java\nscript:alert(1)", "javascript:alert(1)",
           "/\t/evil.example/login", "//evil.example/login", "https://hub@evil.example/",
           "data:text/html,<script>alert(1)</script>", "data:image/svg+xml;base64,PHN2Zy8+", "blob:https://x.test/1"]
OWN = ["https://example.test/notes/1.0", "data:text/plain;charset=utf-8," + quote("# Notes\n\n- one", safe=""),
       "data:text/markdown;base64," + base64.b64encode(b"# Report").decode(),
       PurePosixPath("/home/ada/my project/big.log").as_uri(), "/icons/icon-192.png"]


async def test_hostile_addresses_are_refused_and_ours_are_stored(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory("links")
    token = hub.token()
    paired = await pair(hub, token, "writer")
    agent = await lap(hub, "agent", paired["credential"])
    await agent.ok("conversation.create", {"title": "Links"}, conversationId="c")
    await agent.ok("task.create", {"title": "Publish"}, conversationId="c", taskId="t")
    for n, url in enumerate(HOSTILE):
        answer = await agent.request("artifact.created", {"name": f"bad-{n}", "url": url}, taskId="t")
        assert answer["type"] == "system.error", (url, answer)
        assert answer["payload"]["code"] == "invalid_payload", (url, answer["payload"])
        assert answer["payload"]["message"].startswith("artifact.url "), answer["payload"]
        assert "Allowed: http:// or https:// with a host" in answer["payload"]["message"]
        answer = await agent.request("interaction.requested", {"interaction": {
            "id": f"q-{n}", "type": "review", "title": "Check", "content": "x",
            "attachments": [{"name": "fine", "url": "https://example.test/a"}, {"name": "bad", "url": url}]}},
            conversationId="c")
        assert answer["type"] == "system.error", (url, answer)
        assert answer["payload"]["message"].startswith("interaction.attachments[1].url "), answer["payload"]
    for n, url in enumerate(OWN):
        await agent.ok("artifact.created", {"name": f"ok-{n}", "url": url, "artifactId": f"ok-{n}"}, taskId="t")
    await agent.ok("interaction.requested", {"interaction": {"id": "q-ok", "type": "review", "title": "Check",
                                                             "attachments": [{"name": "a", "url": u} for u in OWN]}},
                   conversationId="c")
    detail = await Api(hub, token).get("/api/tasks/t")
    assert sorted(a["url"] for a in detail["artifacts"]) == sorted(OWN)
    assert not [a for a in detail["artifacts"] if a["name"].startswith("bad-")]
