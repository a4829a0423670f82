"""docs/security.md#what-the-relay-and-the-notification-channels-see, against a real hub and a real SMTP server
(aiosmtpd): an agent's name or a task's title with CR/LF in it can neither suppress the owner's mail notifications nor
add a header (a Bcc) to them."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from tests.integration.test_notifications import write_config
from tests.support.fixtures import HubFactory
from tests.support.hubproc import pair_agent
from tests.support.lap import LapClient
from tests.support.polling import eventually as wait_until
from tests.support.receivers import SmtpReceiver

EVIL_NAME = "Deployer\r\nBcc: thief@example.test\r\n\r\nspoofed body"
EVIL_TITLE = "Migrate\nthe database\r\nX-Injected: yes"


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    server = SmtpReceiver()
    yield server
    server.close()


async def test_cr_lf_in_an_agent_name_and_a_task_title_still_mail_one_clean_header(hub_factory: HubFactory,
                                                                                     smtp: SmtpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.mail]\nhost = "127.0.0.1"\nport = {smtp.port}\nsecurity = "none"\n'
                      f'from = "hub@example.test"\nto = ["me@example.test"]\n')
    hub.start()
    token = hub.token()
    paired = pair_agent(hub, token, name=EVIL_NAME)
    agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
    app = await LapClient.connect(hub.ws_base, "app", token)
    try:
        await app.ok("conversation.create", {"title": "Ops", "agentIds": [paired["agentId"]]}, conversationId="c1")
        await app.ok("task.create", {"title": EVIL_TITLE}, conversationId="c1", taskId="t1")
        await agent.ok("task.accepted", {}, taskId="t1")
        await agent.ok("interaction.requested", {"interaction": {
            "id": "i1", "type": "approval", "title": "Run it?\r\nCc: thief@example.test"}}, taskId="t1")
        await app.ok("task.create", {"title": EVIL_TITLE}, conversationId="c1", taskId="t2")
        await agent.ok("task.accepted", {}, taskId="t2")
        await agent.ok("task.status_changed", {"status": "failed", "error": {"code": "boom", "message": "no"}},
                       taskId="t2")
        mails = await wait_until(lambda: len(smtp.messages) >= 2 and smtp.messages)
    finally:
        await agent.close()
        await app.close()

    # A long Subject is folded (CRLF before a space, RFC 5322); unfolded, it is the one line composed.
    subjects = sorted(re.sub(r"\r?\n(?=[ \t])", "", str(m["Subject"])) for m in mails)
    assert subjects == ["[LineUp] Deployer  Bcc: thief@example.test    spoofed body needs your decision",
                        "[LineUp] Task failed: Migrate the database  X-Injected: yes"]
    for mail in mails:
        assert mail.get_all("Bcc") is None and mail.get_all("Cc") is None and mail.get_all("X-Injected") is None
        assert mail["To"] == "me@example.test"
