"""The web layer reaches the hub only as hub/web/port.py's typed `WebHub`, and the Hub is one."""

from __future__ import annotations

import ast
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from hub.core import Hub, Reach
from hub.settings import load_settings
from hub.web.port import WebHub

WEB = Path(__file__).resolve().parents[2] / "hub" / "web"
PORT = WEB / "port.py"


def direct_reads(path: Path) -> list[str]:
    """Where a module reads the hub off the app's state instead of through `hub_of` or `hub_in_scope`."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        attribute = isinstance(node, ast.Attribute) and node.attr == "hub" \
            and isinstance(node.value, ast.Attribute) and node.value.attr == "state"
        looked_up = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
            and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == "hub"
        if attribute or looked_up:
            found.append(f"{path.name}:{getattr(node, 'lineno', 0)}")
    return sorted(found, key=lambda where: int(where.rsplit(":", 1)[1]))


def test_the_check_finds_a_direct_read(tmp_path: Path) -> None:
    sample = tmp_path / "route.py"
    sample.write_text("async def route(request):\n    return request.app.state.hub.read\n\n\n"
                      "def middleware(scope):\n    return getattr(getattr(scope['app'], 'state', None), 'hub', None)\n")
    assert direct_reads(sample) == ["route.py:2", "route.py:6"]


def test_no_web_module_reads_the_hub_off_the_app_state() -> None:
    offenders = [where for path in sorted(WEB.rglob("*.py")) if path != PORT for where in direct_reads(path)]
    assert not offenders, ("read the hub through hub.web.port.hub_of(request) (or hub_in_scope(scope) in a "
                           f"middleware), typed as WebHub: {offenders}")
    assert direct_reads(PORT), "hub/web/port.py is where the app's hub is read"


def test_no_web_module_takes_an_untyped_hub() -> None:
    untyped = [f"{path.name}:{n}" for path in sorted(WEB.rglob("*.py"))
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"\bhub: Any\b", line)]
    assert not untyped, f"name the hub as WebHub (hub/web/port.py): {untyped}"


def web_members() -> set[str]:
    """Every name WebHub lists, its own and the store's it extends (read, execute)."""
    return {name for kind in WebHub.__mro__ if kind not in (object,) and getattr(kind, "_is_protocol", False)
            for name in vars(kind) if not name.startswith("_")}


@pytest.fixture
async def started(tmp_path: Path) -> AsyncIterator[Hub]:
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={}),
              reach=Reach(public_url="http://192.0.2.7:9527", lan_urls=("http://192.0.2.7:9527",)))
    await hub.start()
    yield hub
    await hub.stop()


async def test_a_started_hub_has_everything_the_web_layer_uses(started: Hub) -> None:
    # mypy checks the same where hub/app.py attaches the Hub as a WebHub; this holds it at run time as well.
    members = web_members()
    assert {"read", "execute", "settings", "supervisor", "presence", "notifier", "relay"} <= members
    missing = sorted(name for name in members if not hasattr(started, name))
    assert not missing, missing


def test_where_the_hub_is_reached_is_handed_in_not_set_from_outside(tmp_path: Path) -> None:
    hub = Hub(load_settings({"data_dir": tmp_path / "data"}, environ={}),
              reach=Reach(public_url="https://hub.example:9527", lan_urls=("http://192.0.2.7:9527",),
                          tls_fingerprint="AB:CD", agent_tls_port=9528))
    assert (hub.public_url, hub.lan_urls, hub.tls_fingerprint, hub.agent_tls_port) == (
        "https://hub.example:9527", ["http://192.0.2.7:9527"], "AB:CD", 9528)
    server = (Path(__file__).resolve().parents[2] / "hub" / "server.py").read_text(encoding="utf-8")
    assert not re.search(r"\bhub\.\w+\s*=[^=]", server), "build_server hands the Hub what it sets (Reach)"
