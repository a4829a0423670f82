"""Files agents and people upload to the hub (issue "When something goes wrong, the person sees it", item 2).

Before, an artifact was a URL of at most 4,000 characters (a `data:` image of ~2.9 KB) and a message could carry no
file at all: every test here fails there (no /api/files, no `fileId`, no `attachments`).

A real hub on loopback, a real SDK agent (hub.sdk: upload_file, task.artifact(file=), download_file), the person's
app as a raw socket and HTTP with its token, the CLI for export and db check.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from hub.sdk import AgentClient, HubError, TaskHandle, pair
from tests.integration.conftest import Connect
from tests.support.files import png_of_size
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess, pair_agent, run_cli

MIB = 1024 * 1024


def auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


async def upload(hub: HubProcess, secret: str, data: bytes | Any, name: str, content_type: str = "",
                 **headers: str) -> httpx.Response:
    sent = {**auth(secret), "X-File-Name": name, **headers}
    if content_type:
        sent["Content-Type"] = content_type
    async with httpx.AsyncClient(base_url=hub.base, timeout=60) as http:
        return await http.post("/api/files", content=data, headers=sent)


async def fetch(hub: HubProcess, secret: str, file_id: str, **headers: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=hub.base, timeout=60) as http:
        return await http.get(f"/api/files/{file_id}", headers={**auth(secret), **headers})


def blobs(hub: HubProcess) -> list[Path]:
    """Everything in the data folder's files/: blobs and any temporary upload left behind."""
    folder = hub.data_dir / "files"
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


async def sdk_agent(hub: HubProcess, token: str, name: str = "Writer") -> AgentClient:
    code = httpx.post(hub.base + "/api/pairing-codes", headers=auth(token), json={"name": name}).json()["code"]
    client = AgentClient(await pair(hub.base, code, name=name), runtime="test-files")
    await client.start()
    return client


@pytest.fixture
async def agent(hub: HubProcess, owner_token: str) -> AsyncIterator[AgentClient]:
    client = await sdk_agent(hub, owner_token)
    yield client
    await client.close()


async def test_an_agent_uploads_a_2_mb_png_and_attaches_it_as_an_artifact(hub: HubProcess, owner_token: str,
                                                                          agent: AgentClient, lap: Connect,
                                                                          tmp_path: Path) -> None:
    image = png_of_size(2 * MIB)
    assert len(image) > 2 * MIB - 64 * 1024
    path = tmp_path / "chart.png"
    path.write_bytes(image)
    app = await lap(hub, "app", owner_token)
    await app.ok("conversation.create", {"title": "Charts", "agentIds": [agent.credential.agent_id]},
                 conversationId="charts")
    done = asyncio.get_running_loop().create_future()

    @agent.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        artifact_id = await task.artifact("The chart", file=path, summary="Sales by month")
        await task.succeed("Drew the chart")
        done.set_result(artifact_id)

    await app.ok("task.create", {"title": "Draw the chart"}, conversationId="charts", taskId="t-chart")
    await asyncio.wait_for(done, 30)
    detail = httpx.get(f"{hub.base}/api/tasks/t-chart", headers=auth(owner_token)).json()
    [artifact] = detail["artifacts"]
    assert artifact["url"].startswith("/api/files/file_") and artifact["mimeType"] == "image/png"
    file_id = artifact["url"].rsplit("/", 1)[1]
    stored = await app.event("file.stored")
    assert stored["payload"] == {"fileId": file_id, "name": "chart.png", "mimeType": "image/png", "size": len(image),
                                 "sha256": hashlib.sha256(image).hexdigest(),
                                 "uploadedBy": {"kind": "agent", "id": agent.credential.agent_id}}
    # The person's app reads the same bytes, as an image of this hub that runs nothing.
    served = await fetch(hub, owner_token, file_id)
    assert served.status_code == 200 and served.content == image
    assert served.headers["content-type"] == "image/png"
    assert served.headers["x-content-type-options"] == "nosniff"
    assert served.headers["content-disposition"].startswith("inline")
    policies = served.headers.get_list("content-security-policy")
    assert any(p.startswith("sandbox") for p in policies), policies
    assert "content-encoding" not in served.headers  # served as stored, not gzipped
    # Its ETag and Last-Modified are the file's, not the shared blob's (rewritten when anyone stores the same bytes:
    # its time would tell every reader that someone did).
    assert served.headers["etag"] == f'"{hashlib.sha256(image).hexdigest()}"'
    os.utime(blobs(hub)[0], (1_000_000_000, 1_000_000_000))
    again = await fetch(hub, owner_token, file_id)
    assert again.headers["last-modified"] == served.headers["last-modified"]
    assert "2001" not in again.headers["last-modified"]
    ranged = await fetch(hub, owner_token, file_id, Range="bytes=0-7")
    assert ranged.status_code == 206 and ranged.content == image[:8]
    # The blob is kept once by content, owner-only.
    [blob] = blobs(hub)
    assert blob.name == hashlib.sha256(image).hexdigest() and blob.parent.name == blob.name[:2]
    assert blob.stat().st_mode & 0o777 == 0o600 and blob.parent.stat().st_mode & 0o777 == 0o700


async def test_the_same_agent_sending_the_same_file_again_gets_the_same_id(hub: HubProcess, agent: AgentClient,
                                                                            owner_token: str) -> None:
    first = await agent.upload_file(b"# Report\n\nAll good.\n", name="report.md")
    again = await agent.upload_file(b"# Report\n\nAll good.\n", name="report.md")
    assert first == again and first["mimeType"] == "text/markdown" and first["size"] == 20
    # The person uploading the same bytes gets a file of its own: one uploader never meets another's id.
    mine = await upload(hub, owner_token, b"# Report\n\nAll good.\n", "report.md", "text/markdown")
    assert mine.status_code == 201 and mine.json()["fileId"] != first["fileId"]
    events = httpx.get(f"{hub.base}/api/events", headers=auth(owner_token)).json()["events"]
    assert [e["payload"]["fileId"] for e in events if e["type"] == "file.stored"] == [first["fileId"],
                                                                                       mine.json()["fileId"]]
    assert len(blobs(hub)) == 1  # one blob for both: kept by content


async def test_a_person_attaches_a_photo_and_the_agent_downloads_the_same_bytes(hub: HubProcess, owner_token: str,
                                                                                 agent: AgentClient,
                                                                                 lap: Connect) -> None:
    photo = png_of_size(300 * 1024, seed=7)
    delivered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()

    @agent.on("message.delivered")
    async def got(envelope: dict[str, Any]) -> None:
        if not delivered.done():
            delivered.set_result(envelope)

    app = await lap(hub, "app", owner_token)
    await app.ok("conversation.create", {"title": "Photos", "agentIds": [agent.credential.agent_id]},
                 conversationId="photos")
    sent = await upload(hub, owner_token, photo, "IMG_0001.jpg", "image/jpeg", Origin=hub.base)
    assert sent.status_code == 201, sent.text
    stored = sent.json()
    assert stored["mimeType"] == "image/png"  # judged by its bytes, not by what the sender called it
    await app.ok("message.create", {"content": "What is on this photo?", "attachments": [{"fileId": stored["fileId"]}]},
                 conversationId="photos")
    envelope = await asyncio.wait_for(delivered, 10)
    assert envelope["payload"]["attachments"] == [{"fileId": stored["fileId"], "name": "IMG_0001.jpg",
                                                   "mimeType": "image/png", "size": len(photo)}]
    assert await agent.download_file(stored["fileId"]) == photo
    # The app's read of the conversation shows the attachment too.
    page = httpx.get(f"{hub.base}/api/conversations/photos/messages", headers=auth(owner_token)).json()
    assert page["messages"][-1]["attachments"] == envelope["payload"]["attachments"]
    # A photo alone is a message.
    await app.ok("message.create", {"attachments": [{"fileId": stored["fileId"]}]}, conversationId="photos")


async def test_a_file_over_the_cap_is_refused_with_413_and_nothing_is_stored(hub_factory: HubFactory, lap: Connect) -> None:
    hub = hub_factory(env={"LINEUP_MAX_FILE_BYTES": str(1 * MIB)})
    token = hub.token()
    big = png_of_size(2 * MIB)
    # Announced by Content-Length: refused before a byte of it is read.
    refused = await upload(hub, token, big, "big.png", "image/png")
    assert refused.status_code == 413, refused.text
    error = refused.json()["error"]
    assert error["code"] == "invalid_payload" and "1 MiB" in error["message"] and "max_file_bytes" in error["message"]
    assert error["details"] == {"limit": "fileBytes", "max": MIB}
    # Announced larger than four times the cap: refused unread (the hub reads no byte of such a body).
    with socket.create_connection(("127.0.0.1", hub.port), timeout=10) as raw:
        raw.sendall(f"POST /api/files HTTP/1.1\r\nHost: 127.0.0.1:{hub.port}\r\nAuthorization: Bearer {token}\r\n"
                    f"X-File-Name: huge.bin\r\nContent-Length: {10 * 1024 * MIB}\r\n\r\n".encode())
        answer = b""
        while b"}}" not in answer and (piece := raw.recv(65536)):
            answer += piece
    assert answer.startswith(b"HTTP/1.1 413") and b'"fileBytes"' in answer, answer

    # Chunked (no Content-Length): cut off as soon as it passes the cap.
    async def chunks() -> AsyncIterator[bytes]:
        for at in range(0, len(big), 256 * 1024):
            yield big[at:at + 256 * 1024]

    cut = await upload(hub, token, chunks(), "big.png", "image/png")
    assert cut.status_code == 413 and cut.json()["error"]["details"] == {"limit": "fileBytes", "max": MIB}
    assert blobs(hub) == []  # neither a blob nor a temporary file is left
    events = httpx.get(f"{hub.base}/api/events", headers=auth(token)).json()["events"]
    assert not [e for e in events if e["type"] == "file.stored"]
    # The SDK says so too, naming the limit (its http.client sends the whole file before it reads the answer: the hub
    # reads a refused body of up to four times the cap to its end, so the answer arrives instead of a reset connection).
    agent = await sdk_agent(hub, token)
    try:
        with pytest.raises(HubError) as raised:
            await agent.upload_file(big, name="big.png")
        assert raised.value.code == "invalid_payload" and raised.value.details["limit"] == "fileBytes"
        assert "1 MiB" in raised.value.message
    finally:
        await agent.close()
    assert blobs(hub) == []
    # Just under the cap is fine.
    assert (await upload(hub, token, big[:MIB - 100], "part.bin")).status_code == 201


async def test_what_one_uploader_keeps_is_capped(hub_factory: HubFactory) -> None:
    hub = hub_factory(env={"LINEUP_MAX_AGENT_FILE_BYTES": str(3 * MIB)})
    token = hub.token()
    paired = pair_agent(hub, token, "hoarder")
    for n in range(3):
        assert (await upload(hub, paired["credential"], os.urandom(MIB - 1000), f"{n}.bin")).status_code == 201
    refused = await upload(hub, paired["credential"], os.urandom(MIB - 1000), "3.bin")
    assert refused.status_code == 413, refused.text
    error = refused.json()["error"]
    assert error["code"] == "rate_limited" and error["details"]["limit"] == "storedFileBytes"
    assert "max_agent_file_bytes" in error["message"] and "3 MiB" in error["message"]
    assert len(blobs(hub)) == 3  # the refused one left nothing
    # Another uploader (the person) has a budget of its own.
    assert (await upload(hub, token, os.urandom(MIB), "mine.bin")).status_code == 201


async def test_another_workspace_and_other_agents_cannot_read_a_file(hub: HubProcess, owner_token: str,
                                                                     lap: Connect) -> None:
    writer = pair_agent(hub, owner_token, "writer")
    member = pair_agent(hub, owner_token, "member")
    outsider = pair_agent(hub, owner_token, "outsider")
    other_token = hub.token(workspace="Other")
    neighbour = pair_agent(hub, other_token, "neighbour")
    secret = b"the quarterly numbers\n"
    stored = (await upload(hub, writer["credential"], secret, "numbers.txt", "text/plain")).json()
    missing = "file_" + "0" * 32

    async def answer(credential: str, file_id: str) -> tuple[int, str, str]:
        response = await fetch(hub, credential, file_id)
        if response.status_code == 200:
            return 200, "", ""
        error = response.json()["error"]
        return response.status_code, error["code"], error["message"].replace(file_id, "<id>")

    # Another workspace's token and agent, and an agent that takes no part: exactly the answer for a missing file.
    for credential in (other_token, neighbour["credential"], outsider["credential"], member["credential"]):
        assert await answer(credential, stored["fileId"]) == await answer(credential, missing)
        assert (await answer(credential, missing))[:2] == (404, "not_found")
    # Attaching another workspace's file to a message is refused as a missing file, never stored.
    other_app = await lap(hub, "app", other_token)
    await other_app.ok("conversation.create", {"title": "Theirs", "agentIds": [neighbour["agentId"]]},
                       conversationId="theirs")
    for file_id in (stored["fileId"], missing):
        refused = await other_app.request("message.create", {"content": "x", "attachments": [{"fileId": file_id}]},
                                          conversationId="theirs")
        assert refused["type"] == "system.error" and refused["payload"]["code"] == "not_found"
    # The person sees every file of the workspace; the uploader its own; a member of the conversation it is
    # attached in, once it is.
    assert (await fetch(hub, owner_token, stored["fileId"])).content == secret
    assert (await fetch(hub, writer["credential"], stored["fileId"])).content == secret
    app = await lap(hub, "app", owner_token)
    await app.ok("conversation.create", {"title": "Ours", "agentIds": [member["agentId"]]}, conversationId="ours")
    await app.ok("message.create", {"content": "numbers", "attachments": [{"fileId": stored["fileId"]}]},
                 conversationId="ours")
    assert (await fetch(hub, member["credential"], stored["fileId"])).content == secret
    assert (await answer(outsider["credential"], stored["fileId"]))[:2] == (404, "not_found")
    # An agent cannot attach a file it may not read either.
    outsider_socket = await lap(hub, "agent", outsider["credential"])
    await app.ok("conversation.create", {"title": "Outside", "agentIds": [outsider["agentId"]]},
                 conversationId="outside")
    refused = await outsider_socket.request("message.create", {"content": "x",
                                                               "attachments": [{"fileId": stored["fileId"]}]},
                                            conversationId="outside")
    assert refused["payload"]["code"] == "not_found"
    # Uploading needs a credential.
    async with httpx.AsyncClient(base_url=hub.base) as http:
        anonymous = await http.post("/api/files", content=b"x", headers={"X-File-Name": "x.txt"})
        assert anonymous.status_code == 401
        assert (await http.get(f"/api/files/{stored['fileId']}")).status_code == 401


@pytest.mark.parametrize(("name", "declared", "body", "stored_as"), [
    ("evil.svg", "image/svg+xml", b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)'
                                  b"</script></svg>", "text/plain"),
    ("page.html", "text/html", b"<!doctype html><script>parent.__pwned = 1</script><h1>hi</h1>", "text/plain"),
    ("page.html", "text/html", b"\x00\x01<html><script>alert(1)</script>", "application/octet-stream"),
    ("fake.png", "image/png", b"<svg onload=alert(1)>", "text/plain"),
    ("script.js", "application/javascript", b"alert(document.cookie)", "text/plain"),
    ("data.json", "application/json", b'{"a": 1}', "application/json"),
    ("paper.pdf", "application/pdf", b"%PDF-1.7\n\xff\xfe binary", "application/pdf"),
    # A PDF of ASCII bytes only (no binary comment line) is valid UTF-8: it was stored and shown as text.
    ("ascii.pdf", "application/pdf", b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n",
     "application/pdf"),
])
async def test_an_svg_or_html_upload_is_never_served_as_an_image_or_a_page(hub: HubProcess, owner_token: str,
                                                                           name: str, declared: str, body: bytes,
                                                                           stored_as: str) -> None:
    stored = await upload(hub, owner_token, body, name, declared)
    assert stored.status_code == 201 and stored.json()["mimeType"] == stored_as
    served = await fetch(hub, owner_token, stored.json()["fileId"])
    assert served.content == body
    kind = served.headers["content-type"].split(";")[0]
    assert kind == stored_as and kind not in ("text/html", "image/svg+xml", "application/xhtml+xml")
    assert served.headers["x-content-type-options"] == "nosniff"
    assert any(p.startswith("sandbox") for p in served.headers.get_list("content-security-policy"))
    previewed = stored_as.startswith("text/") or stored_as == "application/json"
    assert served.headers["content-disposition"].startswith("inline" if previewed else "attachment")


async def test_a_stored_file_survives_a_restart_and_export_and_db_check_count_it(hub: HubProcess, owner_token: str,
                                                                                 tmp_path: Path) -> None:
    image = png_of_size(200 * 1024, seed=3)
    stored = (await upload(hub, owner_token, image, "kept.png", "image/png")).json()
    hub.stop()
    hub.start()
    assert (await fetch(hub, owner_token, stored["fileId"])).content == image
    hub.stop()
    exported = tmp_path / "export"
    result = run_cli(hub.data_dir, "export", "-o", str(tmp_path / "log.jsonl"), "--files", str(exported))
    assert "copied 1 files" in result.stderr
    copy = exported / stored["sha256"][:2] / stored["sha256"]
    assert copy.read_bytes() == image and copy.stat().st_mode & 0o777 == 0o600
    assert '"file.stored"' in (tmp_path / "log.jsonl").read_text()
    without = run_cli(hub.data_dir, "export", "-o", str(tmp_path / "log2.jsonl"))
    assert "names 1 stored files" in without.stderr and "--files" in without.stderr
    assert run_cli(hub.data_dir, "db", "check").returncode == 0
    (hub.data_dir / "files" / stored["sha256"][:2] / stored["sha256"]).unlink()
    check = run_cli(hub.data_dir, "db", "check", check=False)
    assert check.returncode == 1 and "bytes are missing" in check.stderr and stored["sha256"] in check.stderr


async def test_an_artifact_of_an_unknown_or_foreign_file_is_not_found(hub: HubProcess, owner_token: str,
                                                                      agent: AgentClient, lap: Connect) -> None:
    other = pair_agent(hub, hub.token(workspace="Other"), "neighbour")
    theirs = (await upload(hub, other["credential"], b"theirs", "t.txt")).json()
    app = await lap(hub, "app", owner_token)
    await app.ok("conversation.create", {"title": "A", "agentIds": [agent.credential.agent_id]}, conversationId="a")
    await app.ok("task.create", {"title": "T"}, conversationId="a", taskId="t1")
    await agent.send("task.accepted", {}, taskId="t1")
    for file_id in (theirs["fileId"], "file_" + "1" * 32):
        with pytest.raises(HubError) as refused:
            await agent.send("artifact.created", {"name": "x", "fileId": file_id}, taskId="t1")
        assert refused.value.code == "not_found"
    with pytest.raises(HubError) as refused:
        await agent.send("artifact.created", {"name": "nothing"}, taskId="t1")
    assert refused.value.code == "invalid_payload"


async def test_an_upload_on_a_slow_link_is_not_cut_off_by_the_request_deadline(hub_factory: HubFactory) -> None:
    """A whole request must arrive within request_timeout_s, but a file that keeps arriving gets more time."""
    hub = hub_factory(env={"LINEUP_REQUEST_TIMEOUT_S": "1"})
    token = hub.token()
    data = os.urandom(6 * 256 * 1024)

    async def slowly() -> AsyncIterator[bytes]:
        for at in range(0, len(data), 256 * 1024):
            await asyncio.sleep(0.5)
            yield data[at:at + 256 * 1024]

    started = asyncio.get_running_loop().time()
    stored = await upload(hub, token, slowly(), "slow.bin")
    assert asyncio.get_running_loop().time() - started > 2.5  # past two deadlines
    assert stored.status_code == 201 and stored.json()["size"] == len(data)
