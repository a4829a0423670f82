"""The in-process hub (tests/support/inproc.py) ends like a process: a socket its loop still holds at stop is
closed then and named in its log, not left to the garbage collector to warn in whatever test runs next."""

from __future__ import annotations

import asyncio
import gc
import socket
import warnings
from pathlib import Path

from tests.support.inproc import InProcessHub


def test_a_socket_left_open_in_the_hub_loop_is_closed_at_stop_and_logged(tmp_path: Path) -> None:
    hub = InProcessHub(tmp_path / "hub").start()
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]

        held = []  # kept alive here (a StreamWriter collected early closes itself, with its own warning)

        async def leave_one_open() -> None:  # a connection nobody closes, as a forgotten client would leave
            held.append((await asyncio.open_connection("127.0.0.1", port))[1])

        assert hub._loop is not None
        asyncio.run_coroutine_threadsafe(leave_one_open(), hub._loop).result(10)
        accepted, _ = listener.accept()
        with accepted:
            hub.stop()
            accepted.settimeout(10)
            assert accepted.recv(1) == b""  # the hub's end is closed: the peer reads end-of-file
    assert held[0].transport.is_closing()
    held.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
    assert f"-> ('127.0.0.1', {port})); closed" in hub.log()
