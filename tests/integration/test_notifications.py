"""Notifications against real receivers: a webhook (JSON and ntfy with action links), mail over SMTP, the
in-app channel, the durable outbox across kill -9, and no storm from replays or restarts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx
import pytest

from tests.support.hubproc import HubProcess, pair_agent
from tests.support.lap import LapClient
from tests.support.receivers import HttpReceiver, SmtpReceiver


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    server = HttpReceiver()
    yield server
    server.close()


@pytest.fixture
def smtp() -> Iterator[SmtpReceiver]:
    server = SmtpReceiver()
    yield server
    server.close()


def write_config(hub: HubProcess, text: str) -> None:
    hub.data_dir.mkdir(parents=True, exist_ok=True)
    (hub.data_dir / "lineup.toml").write_text(text)


async def wait_until(check: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("condition not met in time")


async def approval_scenario(hub: HubProcess, token: str, *, description: str = "Drops 3 tables in production",
                            interaction_id: str = "i1") -> tuple[LapClient, LapClient, dict[str, str]]:
    paired = pair_agent(hub, token, name="Deployer")
    agent = await LapClient.connect(hub.ws_base, "agent", paired["credential"])
    app = await LapClient.connect(hub.ws_base, "app", token)
    await app.ok("conversation.create", {"title": "Ops", "agentIds": [paired["agentId"]]}, conversationId="c1")
    await app.ok("task.create", {"title": "Migrate the database"}, conversationId="c1", taskId="t1")
    await agent.ok("task.accepted", {}, taskId="t1")
    await agent.ok("interaction.requested", {"interaction": {
        "id": interaction_id, "type": "approval", "title": "Run the migration?", "risk": "high",
        "description": description, "details": {"secret_table": "payroll"}}}, taskId="t1")
    return agent, app, paired


async def test_webhook_json_carries_title_agent_risk_link_and_no_details(hub_factory, receiver: HttpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.webhook]\nurl = "{receiver.url}/hook"\n')
    hub.start()
    token = hub.token()
    agent, app, _ = await approval_scenario(hub, token)
    posted = await wait_until(lambda: receiver.received)
    note = posted[0].body
    assert posted[0].path == "/hook"
    assert note["kind"] == "waiting_for_me" and note["risk"] == "high" and note["agent"] == "Deployer"
    assert "Run the migration?" in note["body"] and note["link"].endswith("/#/tasks/t1")
    assert posted[0].headers["x-lineup-notification-id"] == note["id"]
    raw = str(note)
    assert "Drops 3 tables" not in raw and "payroll" not in raw  # seed 002 §11: no raw details by default
    in_app = await app.event("notification.created")
    assert in_app["payload"]["interactionId"] == "i1"
    await agent.close()
    await app.close()


async def test_ntfy_action_link_approves_once_then_refuses(hub_factory, receiver: HttpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.webhook]\nurl = "{receiver.url}/lineup-topic"\nformat = "ntfy"\n')
    hub.start()
    token = hub.token()
    agent, app, _ = await approval_scenario(hub, token)
    message = (await wait_until(lambda: receiver.received))[0]
    assert message.path == "/" and message.body["topic"] == "lineup-topic" and message.body["priority"] == 5
    buttons = {a["label"]: a for a in message.body["actions"] if a["action"] == "http"}
    assert set(buttons) == {"Approve", "Reject"}
    approve = buttons["Approve"]
    assert "token" not in approve["url"] and approve["method"] == "POST"  # the secret rides in the body only
    first = httpx.post(approve["url"], content=approve["body"], headers=approve["headers"])
    assert first.status_code == 200, first.text
    resolved = await agent.event("interaction.resolved", interactionId="i1")
    assert resolved["payload"]["outcome"] == "answered"
    again = httpx.post(approve["url"], content=approve["body"], headers=approve["headers"])
    assert again.status_code == 409 and again.json()["error"]["code"] == "already_resolved"
    reject = buttons["Reject"]
    late = httpx.post(reject["url"], content=reject["body"], headers=reject["headers"])
    assert late.status_code == 409  # the interaction is answered: the other button cannot change it
    forged = httpx.post(approve["url"], json={"token": "lu_act_forged"})
    assert forged.status_code == 401
    await agent.close()
    await app.close()


async def test_expired_action_link_is_refused(hub_factory, receiver: HttpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify]\naction_link_ttl_s = 1\n[notify.webhook]\nurl = "{receiver.url}/t"\nformat = "ntfy"\n')
    hub.start()
    agent, app, _ = await approval_scenario(hub, hub.token())
    message = (await wait_until(lambda: receiver.received))[0]
    approve = next(a for a in message.body["actions"] if a.get("label") == "Approve")
    await asyncio.sleep(1.5)
    answer = httpx.post(approve["url"], content=approve["body"], headers=approve["headers"])
    assert answer.status_code == 410 and answer.json()["error"]["code"] == "expired"
    detail = httpx.get(f"{hub.base}/api/tasks/t1", headers={"Authorization": f"Bearer {hub.token()}"}).json()
    assert detail["interactions"][0]["status"] == "pending"
    await agent.close()
    await app.close()


async def test_mail_over_real_smtp_has_text_and_html_parts(hub_factory, smtp: SmtpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.mail]\nhost = "127.0.0.1"\nport = {smtp.port}\nsecurity = "none"\n'
                      f'from = "hub@example.test"\nto = ["me@example.test"]\n')
    hub.start()
    agent, app, _ = await approval_scenario(hub, hub.token())
    mail = (await wait_until(lambda: smtp.messages))[0]
    assert mail["Subject"] == "[LineUp] Deployer needs your decision" and mail["To"] == "me@example.test"
    parts = {part.get_content_type(): part.get_payload(decode=True).decode() for part in mail.walk()
             if not part.is_multipart()}
    assert set(parts) == {"text/plain", "text/html"}
    assert "Risk: high" in parts["text/plain"] and "/#/tasks/t1" in parts["text/plain"]
    assert '<a href="' in parts["text/html"] and "payroll" not in parts["text/html"]
    await agent.close()
    await app.close()


async def test_failing_webhook_is_retried_and_the_error_is_in_the_delivery_log(hub_factory,
                                                                                receiver: HttpReceiver) -> None:
    receiver.status = 500
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.webhook]\nurl = "{receiver.url}/down"\n')
    hub.start()
    token = hub.token()
    agent, app, _ = await approval_scenario(hub, token)
    await wait_until(lambda: len(receiver.received) >= 2, timeout=8)  # backoff 1 s, then again
    log = httpx.get(f"{hub.base}/api/notifications", headers={"Authorization": f"Bearer {token}"}).json()
    webhook = log["channels"]["webhook"]
    assert "HTTP 500" in webhook["lastError"]["last_error"] and webhook["counts"].get("pending") == 1
    receiver.status = 200
    await wait_until(lambda: httpx.get(f"{hub.base}/api/notifications", headers={"Authorization": f"Bearer {token}"})
                     .json()["channels"]["webhook"]["counts"].get("delivered") == 1, timeout=10)
    ids = {r.headers["x-lineup-notification-id"] for r in receiver.received}
    assert len(ids) == 1  # the retries are the same notification
    await agent.close()
    await app.close()


async def test_test_button_sends_through_each_channel(hub_factory, receiver: HttpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.webhook]\nurl = "{receiver.url}/t"\n')
    hub.start()
    token = hub.token()
    answer = httpx.post(f"{hub.base}/api/notifications/test", headers={"Authorization": f"Bearer {token}"}, json={})
    assert answer.status_code == 202
    posted = await wait_until(lambda: receiver.received)
    assert posted[0].body["kind"] == "test"
    missing = httpx.post(f"{hub.base}/api/notifications/test", headers={"Authorization": f"Bearer {token}"},
                         json={"channel": "pager"})
    assert missing.status_code == 404


async def test_outbox_survives_kill_9_mid_delivery(hub_factory, receiver: HttpReceiver) -> None:
    receiver.delay_s = 3.0  # the hub is killed while the webhook call is still in flight
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.webhook]\nurl = "{receiver.url}/k"\ntimeout_s = 5\n')
    hub.start()
    token = hub.token()
    agent, app, _ = await approval_scenario(hub, token)
    await wait_until(lambda: receiver.received)
    await agent.close()
    await app.close()
    hub.kill()
    receiver.delay_s = 0.0
    hub.start()
    await wait_until(lambda: len(receiver.received) >= 2, timeout=10)
    await asyncio.sleep(1.0)
    ids = [r.headers["x-lineup-notification-id"] for r in receiver.received]
    assert len(set(ids)) == 1 and len(ids) == 2  # not lost; re-sent once with the same id for the receiver
    log = httpx.get(f"{hub.base}/api/notifications", headers={"Authorization": f"Bearer {token}"}).json()
    assert log["channels"]["webhook"]["counts"] == {"delivered": 1}


async def test_replays_and_restarts_do_not_notify_again(hub_factory, receiver: HttpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, f'[notify.webhook]\nurl = "{receiver.url}/r"\nevents = ["waiting_for_me", "failed", "succeeded"]\n')
    hub.start()
    token = hub.token()
    agent, app, paired = await approval_scenario(hub, token)
    for n in range(250):  # 500 more events: progress and messages
        await agent.send("task.status_changed", {"progress": n % 100}, taskId="t1")
        await agent.send("message.create", {"content": f"step {n}"}, conversationId="c1")
    await app.wait_for(lambda f: f["type"] == "message.created" and f["payload"]["content"] == "step 249")
    await wait_until(lambda: receiver.received)
    await asyncio.sleep(0.5)
    before = len(receiver.received)
    assert before == 1
    replaying = await LapClient.connect(hub.ws_base, "app", token, last_sequence=0)
    assert len(replaying.events()) > 500
    hub.stop()
    hub.start()
    await asyncio.sleep(1.5)
    assert len(receiver.received) == before  # neither the replay nor the restart notified again
    await replaying.close()
    await agent.close()
    await app.close()


async def test_quiet_hours_delay_the_webhook_but_not_the_app(hub_factory, receiver: HttpReceiver) -> None:
    now = time.localtime()
    start = f"{now.tm_hour:02d}:{now.tm_min:02d}"
    end_minute = (now.tm_hour * 60 + now.tm_min + 30) % (24 * 60)
    end = f"{end_minute // 60:02d}:{end_minute % 60:02d}"
    hub = hub_factory(start=False)
    write_config(hub, f'[notify]\nquiet_hours = "{start}-{end}"\n[notify.webhook]\nurl = "{receiver.url}/q"\n')
    hub.start()
    agent, app, _ = await approval_scenario(hub, hub.token())
    await app.event("notification.created")
    await asyncio.sleep(1.0)
    assert receiver.received == []
    await agent.close()
    await app.close()


async def test_answered_before_delivery_is_skipped(hub_factory, receiver: HttpReceiver) -> None:
    hub = hub_factory(start=False)
    write_config(hub, '[notify]\nquiet_hours = "00:00-23:59"\n'
                      f'[notify.webhook]\nurl = "{receiver.url}/s"\n')
    hub.start()
    token = hub.token()
    agent, app, _ = await approval_scenario(hub, token)
    await app.ok("interaction.respond", {"interactionId": "i1", "response": {"optionId": "approve"}})
    assert receiver.received == []
    await agent.close()
    await app.close()
