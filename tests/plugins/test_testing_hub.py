"""hub.testing's running hub is the one `lineup serve` builds (hub/server.py::build_server): TestHub, the suite's
in-process hubs and a served process share it, so a plugin's test meets the hub its users run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from hub import serving
from hub.settings import load_settings
from hub.testing import TestHub, running_hub


@pytest.mark.asyncio
async def test_the_test_hub_is_served_as_lineup_serve_serves_it(tmp_path: Path) -> None:
    async with TestHub(data_dir=tmp_path) as test_hub:
        data_dir = tmp_path / "hub"
        # What `lineup serve` records for `lineup pair` / `lineup token` on the same folder, and the address shown
        # in notification links: both said by build_server, which TestHub assembled without before.
        assert serving.address(data_dir) == test_hub.url + "/"
        assert test_hub.hub.public_url == test_hub.url
        async with httpx.AsyncClient(base_url=test_hub.url, timeout=10) as client:
            page = await client.get("/")
        assert page.status_code == 200 and "<lineup-app" in page.text
    assert serving.address(data_dir) is None  # forgotten at stop, as a stopped `lineup serve` forgets it


@pytest.mark.asyncio
async def test_running_hub_serves_until_the_block_ends_and_says_its_banner(tmp_path: Path) -> None:
    said: list[str] = []
    settings = load_settings({"data_dir": tmp_path / "hub", "host": "127.0.0.1", "port": 0, "mdns": False},
                             environ={})
    async with running_hub(settings, out=said.append) as running:
        async with httpx.AsyncClient(timeout=10) as client:
            assert (await client.get(running.url + "/api/setup")).status_code == 200
        assert not running.serving.done()
    assert running.serving.done() and running.serving.exception() is None
    assert any(line.startswith("LineUp hub ") and "is running" in line for line in said), said
    with pytest.raises(httpx.ConnectError):
        async with httpx.AsyncClient(timeout=5) as client:
            await client.get(running.url + "/api/setup")


@pytest.mark.asyncio
async def test_a_hub_that_cannot_start_says_why(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    settings = load_settings({"data_dir": blocker / "hub", "host": "127.0.0.1", "port": 0, "mdns": False},
                             environ={})
    with pytest.raises(RuntimeError, match="start-up failed") as failed:
        async with asyncio.timeout(60), running_hub(settings):
            pytest.fail("a hub whose data folder cannot exist must not be served")
    assert "its log says why" in str(failed.value)
    assert "Not a directory" in caplog.text  # the log: uvicorn's record of the lifespan's failure


@pytest.mark.asyncio
async def test_a_test_hub_stopping_leaves_the_callers_own_connections_open(tmp_path: Path) -> None:
    async def echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(await reader.readline())
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
        async with TestHub(data_dir=tmp_path):
            pass  # the hub's stop may close its own sockets, never one of the test's loop
        writer.write(b"still here\n")
        await writer.drain()
        assert await asyncio.wait_for(reader.readline(), 10) == b"still here\n"
        writer.close()
        await writer.wait_closed()


@pytest.mark.asyncio
async def test_a_hub_that_does_not_listen_in_time_says_so_without_waiting_for_a_stop(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hub.server import HubServer

    async def stuck(self: HubServer, sockets: object = None) -> None:
        await asyncio.sleep(3600)  # a start-up that never ends: uvicorn does not look at should_exit meanwhile

    monkeypatch.setattr(HubServer, "startup", stuck)
    settings = load_settings({"data_dir": tmp_path / "hub", "host": "127.0.0.1", "port": 0, "mdns": False},
                             environ={})
    started = asyncio.get_running_loop().time()
    with pytest.raises(RuntimeError, match="did not listen within 1 s"):
        async with running_hub(settings, start_timeout_s=1, stop_timeout_s=20):
            pytest.fail("it never listened")
    assert asyncio.get_running_loop().time() - started < 15  # not the two 20 s stop stages


@pytest.mark.asyncio
async def test_what_lineup_serve_would_exit_with_is_an_error_here(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="the hub cannot start"):
        async with TestHub(data_dir=tmp_path, settings={"tls_cert": str(tmp_path / "missing.pem"),
                                                        "tls_key": str(tmp_path / "missing.key")}):
            pytest.fail("a hub without its TLS files must not be served")
