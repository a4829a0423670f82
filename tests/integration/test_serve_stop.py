"""`lineup serve` stops the way its banner says ("Press Ctrl+C to stop."): quietly, exit status 0, saying so."""

from __future__ import annotations

import signal
from collections.abc import Callable

import httpx
import pytest

from tests.support.hubproc import HubProcess


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_the_hub_stops_cleanly_on_ctrl_c_and_on_sigterm(hub_factory: Callable[..., HubProcess],
                                                        sig: signal.Signals) -> None:
    # Walking through as a new user: Ctrl+C in the terminal ended a clean shutdown with click's "Aborted!" and exit
    # status 1, as if something had gone wrong.
    hub = hub_factory(process=True)
    assert httpx.get(hub.base + "/-/health", timeout=5).status_code == 200
    assert hub.proc is not None
    hub.proc.send_signal(sig)
    assert hub.proc.wait(15) == 0
    log = hub.log()
    assert log.rstrip().endswith("LineUp hub stopped."), log[-500:]
    assert "Aborted" not in log and "Traceback" not in log, log[-2000:]


def test_the_banners_restart_command_keeps_the_port(hub_factory: Callable[..., HubProcess]) -> None:
    """A hub on loopback only says how to restart it for the LAN: followed as written, it must come back on the same
    port (a walkthrough's hub on 9641 was told `serve --host 0.0.0.0 --data-dir …` and came back on 9527)."""
    hub = hub_factory(process=True)
    assert hub.proc is not None and hub.port != 9527
    hub.proc.send_signal(signal.SIGTERM)
    assert hub.proc.wait(15) == 0
    line = next(line for line in hub.log().splitlines() if "only this machine can reach it" in line)
    assert f"serve --host 0.0.0.0 --port {hub.port} --data-dir " in line, line
