"""D1: disk full (docs/quality.md#targets, docs/quality.md#reliability-drills).

The data dir lives on a small tmpfs; a ballast file takes the rest of it. Envelopes are then refused with
`storage_full` (retryable, never a false ack), the hub stays up and readable, and once the ballast is deleted
writes succeed again within a second, without a restart; `lineup db check` passes. Mounting needs root (or
CAP_SYS_ADMIN): without it the tmpfs test skips, and the SQLite page-cap variant (LINEUP_DB_MAX_PAGES) still runs.
"""

from __future__ import annotations

import asyncio
import errno
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.drills import assert_db_check, assert_log_sound, http_events, log_rows, make_workspace
from tests.support.fixtures import HubFactory
from tests.support.hubproc import HubProcess
from tests.support.lap import LapClient, envelope

TMPFS_SIZE = "12m"
BIG = "d" * 60_000  # ~60 KB events: the WAL must grow for each, so a full disk shows at once


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 12 MiB tmpfs mounted at tmp_path/disk, unmounted afterwards (the test stops its hub first)."""
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    try:
        result = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "tmpfs",
                                 str(mount_point)], capture_output=True, text=True, timeout=20)
    except FileNotFoundError:
        pytest.skip("no `mount` command here: cannot make a small disk for the drill")
    if result.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here ({result.stderr.strip() or result.returncode}); "
                    "the LINEUP_DB_MAX_PAGES variant covers storage_full without root")
    try:
        yield mount_point
    finally:
        if subprocess.run(["umount", str(mount_point)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def _fill(path: Path) -> int:
    """Write a ballast file until the disk is full; returns its size."""
    written = 0
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as ballast:
        while True:
            try:
                written += ballast.write(chunk)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC, exc
                break
        # The last partial page: tmpfs hands out whole pages, so write byte-sized bits until that fails too.
        for _ in range(4096):
            try:
                written += ballast.write(b"\0" * 512)
            except OSError:
                break
    return written


async def _send_big(client: LapClient, conversation_id: str, n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    env = envelope("message.create", {"content": f"{BIG} {n}"}, client.workspace_id, conversationId=conversation_id)
    await client.send_raw(env)
    return env, await client.answer(env["id"], timeout=20)


@pytest.mark.slow
async def test_disk_full_refuses_with_storage_full_and_recovers_without_restart(small_disk: Path) -> None:
    hub = HubProcess(small_disk)  # its log is written beside the mount point, not on the small disk
    hub.start()
    try:
        await _drill(hub, small_disk)
    finally:
        hub.stop()
    assert_db_check(small_disk)


async def _drill(hub: HubProcess, disk: Path) -> None:
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    app = await LapClient.connect(hub.ws_base, "app", space.token)
    acked: dict[str, int] = {}
    for n in range(5):
        env, answer = await _send_big(agent, space.conversation_id, n)
        assert answer["type"] == "system.ack"
        acked[env["id"]] = answer["payload"]["sequence"]

    ballast = disk / "ballast"
    assert _fill(ballast) > 0
    refused: list[dict[str, Any]] = []
    for n in range(5, 200):  # until the hub says the disk is full (the WAL may have some room left)
        env, answer = await _send_big(agent, space.conversation_id, n)
        if answer["type"] == "system.ack":
            acked[env["id"]] = answer["payload"]["sequence"]
            continue
        assert answer["payload"]["code"] == "storage_full", answer
        assert "disk" in answer["payload"]["message"].lower() and answer["payload"]["hint"]
        refused.append(env)
        if len(refused) == 5:
            break
    assert refused, "the hub never reported storage_full on a full disk"

    # Still up and readable while full: health, HTTP reads, a new socket with its replay.
    assert httpx.get(hub.base + "/-/health").json()["status"] == "ok"
    events = http_events(hub, space.token)
    assert {e["id"] for e in events} >= set(acked)
    assert not {e["id"] for e in events} & {e["id"] for e in refused}
    reader = await LapClient.connect(hub.ws_base, "app", space.token, last_sequence=0)
    assert {f["id"] for f in reader.events()} >= set(acked)
    # No false ack: everything acknowledged is in the log under its sequence, nothing refused is.
    rows = {r["id"]: r["sequence"] for r in log_rows(space.db_path)}
    assert all(rows.get(i) == s for i, s in acked.items()), "an acknowledged event is missing"
    assert not any(e["id"] in rows for e in refused), "a refused event was stored"
    assert not any(f.get("id") in {e["id"] for e in refused} for f in app.frames), "a refused event was broadcast"

    # Free the space: the same envelope goes through within a second, without a restart.
    pid = hub.proc.pid if hub.proc else None
    ballast.unlink()
    freed = time.monotonic()
    retry = refused[0]
    while True:
        start = len(agent.frames)
        await agent.send_raw(retry)
        answer = await agent.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                      and f["payload"].get("id") == retry["id"], start=start, timeout=10)
        if answer["type"] == "system.ack":
            break
        assert answer["payload"]["code"] == "storage_full", answer
        assert time.monotonic() - freed < 5, "writes did not resume after the space was freed"
        await asyncio.sleep(0.02)
    recovered_s = time.monotonic() - freed
    assert recovered_s <= 1.0, f"writes resumed only {recovered_s:.2f} s after the space was freed"
    assert answer["payload"]["duplicate"] is False
    assert hub.proc is not None and hub.proc.pid == pid and hub.proc.poll() is None
    for env in refused[1:]:  # storage_full is retryable: the same ids store now, once each
        start = len(agent.frames)
        await agent.send_raw(env)
        answer = await agent.wait_for(lambda f: f["type"] in ("system.ack", "system.error")
                                      and f["payload"].get("id") == env["id"], start=start)
        assert answer["type"] == "system.ack" and answer["payload"]["duplicate"] is False, answer
    after = await agent.ok("message.create", {"content": "business as usual"}, conversationId=space.conversation_id)
    await app.wait_for(lambda f: f.get("sequence") == after["sequence"])
    final = log_rows(space.db_path)
    assert_log_sound(final)
    ids = [r["id"] for r in final]
    assert all(ids.count(e["id"]) == 1 for e in refused)
    for client in (agent, app, reader):
        await client.close()


async def test_database_page_cap_refuses_with_storage_full(hub_factory: HubFactory) -> None:
    """The same refusal without root: SQLite's max_page_count (LINEUP_DB_MAX_PAGES) plays the full disk.
    Raising the cap (a restart with a new setting) lets the same envelopes through, once each."""
    hub: HubProcess = hub_factory(env={"LINEUP_DB_MAX_PAGES": "160"})  # 640 KiB
    space = await make_workspace(hub, agents=1)
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    acked: dict[str, int] = {}
    refused: list[dict[str, Any]] = []
    for n in range(60):
        env, answer = await _send_big(agent, space.conversation_id, n)
        if answer["type"] == "system.ack":
            assert not refused, "an envelope was stored after the cap was reached"
            acked[env["id"]] = answer["payload"]["sequence"]
        else:
            assert answer["payload"]["code"] == "storage_full", answer
            refused.append(env)
            if len(refused) == 3:
                break
    assert acked and refused
    assert httpx.get(hub.base + "/-/health").json()["status"] == "ok"
    rows = {r["id"]: r["sequence"] for r in log_rows(space.db_path)}
    assert all(rows.get(i) == s for i, s in acked.items())
    assert not any(e["id"] in rows for e in refused)
    await agent.close()
    hub.stop()
    assert_db_check(hub.data_dir)

    hub.env["LINEUP_DB_MAX_PAGES"] = "100000"
    hub.start()
    agent = await LapClient.connect(hub.ws_base, "agent", space.agents[0]["credential"])
    for env in refused:
        await agent.send_raw(env)
        assert (await agent.answer(env["id"]))["payload"]["duplicate"] is False
    await agent.close()
    final = log_rows(space.db_path)
    assert_log_sound(final)
    assert [r["id"] for r in final if r["id"] in {e["id"] for e in refused}] == [e["id"] for e in refused]
