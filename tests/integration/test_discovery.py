"""LAN discovery: what a real hub advertises over mDNS, who finds it, and that it stays where it is told.

mDNS runs on loopback only here (`--mdns-interface 127.0.0.1`, `interfaces=["127.0.0.1"]`), except in the
namespace test at the end, where a hub and a "phone" sit in two network namespaces of their own joined by a
veth pair: nothing of these tests is sent on the machine's other interfaces.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

import httpx
import pytest
from zeroconf import ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncZeroconf

from hub.discovery import SERVICE_TYPE
from hub.discovery.advertise import Advertiser
from hub.discovery.browse import FoundHub, discover
from hub.sdk import SdkError
from hub.sdk.credentials import find_hub, pair_or_load
from tests.support import netns
from tests.support.hubproc import HubProcess, free_port, run_cli

LOOPBACK = ["127.0.0.1"]
ROOT = Path(__file__).resolve().parents[2]


@dataclass
class MdnsHub(HubProcess):
    """`lineup serve` advertising on loopback only (HubProcess itself always passes --no-mdns).

    With `port=0` the hub picks its port; `start(wait=False)` returns at once, before the hub listens.
    """

    mdns: bool = True
    address: str = "127.0.0.1"  # where it listens and advertises: an address of the loopback range

    @property
    def base(self) -> str:
        return f"http://{self.address}:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://{self.address}:{self.port}"

    def start(self, timeout_s: float = 20.0, wait: bool = True) -> MdnsHub:
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-hub.log"
        env = {**os.environ, "LINEUP_LOG_LEVEL": "info", **self.env}
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "hub", "serve", "--host", self.address, "--port", str(self.port),
                 "--data-dir", str(self.data_dir),
                 *(["--mdns-interface", self.address] if self.mdns else ["--no-mdns"])],
                stdout=log, stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
        if wait:
            self.wait_healthy(timeout_s)
        return self

    def printed_port(self, timeout_s: float = 20.0) -> int:
        """The port the hub printed (`open http://127.0.0.1:PORT/`): the one it really listens on."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            match = re.search(rf"open http://{re.escape(self.address)}:(\d+)/", self.log())
            if match:
                return int(match.group(1))
            assert self.proc is not None and self.proc.poll() is None, f"hub exited:\n{self.log()}"
            time.sleep(0.05)
        raise AssertionError(f"the hub printed no address within {timeout_s} s:\n{self.log()}")

    def wait_healthy(self, timeout_s: float = 20.0) -> None:
        if not self.port:
            self.port = self.printed_port(timeout_s)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            assert self.proc is not None and self.proc.poll() is None, f"hub exited:\n{self.log()}"
            try:
                if httpx.get(self.base + "/-/health", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"hub did not answer within {timeout_s} s:\n{self.log()}")

    def token(self, workspace: str | None = None) -> str:  # the one workspace this hub has
        result = run_cli(self.data_dir, "token", check=False)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    @property
    def hub_id(self) -> str:
        return str(httpx.get(self.base + "/-/health", timeout=5).json()["hubId"])


@pytest.fixture
def mdns_hubs(tmp_path: Path) -> Iterator[Any]:
    """`mdns_hubs(name, mdns=True, port=None, wait=True, address="127.0.0.1")`: hubs on loopback, stopped at the end."""
    started: list[MdnsHub] = []

    def make(name: str, *, mdns: bool = True, port: int | None = None, wait: bool = True,
             address: str = "127.0.0.1") -> MdnsHub:
        hub = MdnsHub(tmp_path / f"hub{len(started)}", port=0 if port is None else port, mdns=mdns,
                      address=address, env={"LINEUP_HUB_NAME": name})
        if port is None:
            hub.port = free_port()
        started.append(hub)
        return hub.start(wait=wait)

    yield make
    for hub in started:
        hub.stop()


@pytest.fixture(autouse=True)
def no_threads_left() -> Iterator[None]:
    """Every zeroconf instance a test opens is closed: no engine or reaper thread outlives the test."""
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 3
    while True:
        # The event loop's default executor (getaddrinfo, to_thread) is shut down with the loop, not by us.
        left = [t for t in set(threading.enumerate()) - before if t.is_alive() and not t.name.startswith("asyncio_")]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert not left, f"threads left behind: {left}"


def unique_name(prefix: str = "Test hub") -> str:
    return f"{prefix} {uuid.uuid4().hex[:8]}"


async def browse_until(predicate: Any, timeout_s: float = 15.0, what: str = "the hub") -> list[FoundHub]:
    """Browse (loopback only) until a hub matching `predicate` answers, each browse longer than the last; every hub
    that browse found.

    A browse of 0.6 s sends one query, and its first query asks for unicast answers (QU): sent to 127.0.0.1:5353,
    which every mDNS socket of this machine shares, such an answer may reach another socket than the browser's.
    A longer browse also sends the browser's next queries (1 s, then 2 s later), answered by multicast.
    """
    deadline = time.monotonic() + timeout_s
    seen: list[FoundHub] = []
    window = 0.6
    while time.monotonic() < deadline:
        seen = await discover(min(window, max(0.6, deadline - time.monotonic())), LOOPBACK)
        window = min(window * 2, 3.5)
        if any(predicate(found) for found in seen):
            return seen
    raise AssertionError(f"{what} was not discovered within {timeout_s} s; found {seen}")


async def find(predicate: Any, timeout_s: float = 15.0, what: str = "the hub") -> FoundHub:
    """The first hub matching `predicate` (browse_until)."""
    return next(found for found in await browse_until(predicate, timeout_s, what) if predicate(found))


def by_id(hub_id: str) -> Any:
    return lambda found: found.properties.get("hubId") == hub_id


# ---- the advertisement ---------------------------------------------------------------------------------------


async def test_advertised_only_once_listening_with_the_real_port(mdns_hubs: Any) -> None:
    """A phone that sees the hub appear can connect at once: the port is the real one and already accepts."""
    zeroconf = AsyncZeroconf(interfaces=LOOPBACK)
    name = unique_name()
    added: asyncio.Queue[str] = asyncio.Queue()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Added:
            added.put_nowait(name)

    browser = AsyncServiceBrowser(zeroconf.zeroconf, [SERVICE_TYPE], handlers=[on_change])
    try:
        hub = mdns_hubs(name, port=0, wait=False)  # port 0: the hub picks it; nobody knows it in advance
        while True:
            instance = await asyncio.wait_for(added.get(), 20)
            if instance == f"{name}.{SERVICE_TYPE}":
                break
        info = await zeroconf.async_get_service_info(SERVICE_TYPE, instance, 3000)
        assert info is not None and info.port
        # One request, no retry: when the service is announced the socket already accepts and the hub is up.
        async with httpx.AsyncClient(timeout=5) as client:
            health = await client.get(f"http://{info.parsed_addresses()[0]}:{info.port}/-/health")
        assert health.status_code == 200, health.text
        assert info.parsed_addresses() == ["127.0.0.1"]
        assert info.port == hub.printed_port()
        assert health.json()["hubId"] == info.decoded_properties["hubId"]
    finally:
        await browser.async_cancel()
        await zeroconf.async_close()


async def test_txt_record_is_small_without_secrets_and_follows_setup(mdns_hubs: Any) -> None:
    hub = mdns_hubs(unique_name())
    health = httpx.get(hub.base + "/-/health").json()
    found = await find(by_id(health["hubId"]))
    assert found.properties == {"hubId": health["hubId"], "version": health["version"], "protocol": "0.1",
                                "api": "/api", "signIn": "setup"}
    assert (found.addresses, found.port, found.version) == (("127.0.0.1",), hub.port, health["version"])
    assert sum(len(k) + len(v) + 2 for k, v in found.properties.items()) < 200
    # The first-run setup code is printed in the terminal, never put on the LAN.
    setup_code = re.search(r"setup code (\d+)", hub.log())
    assert setup_code is not None
    assert not any(setup_code.group(1) in value for value in found.properties.values())

    # Once the owner exists, the record says sign-in is required (an update, not a second service).
    created = httpx.post(hub.base + "/api/setup", json={"username": "owner", "displayName": "Owner",
                                                         "password": "correct horse", "workspaceName": "Home"})
    assert created.status_code == 201, created.text
    token = created.json()["token"]
    updated = await find(lambda f: by_id(health["hubId"])(f) and f.properties["signIn"] == "required")
    assert updated.name == found.name
    assert not any(token in value for value in updated.properties.values())


async def test_rename_re_advertises_under_the_new_name(mdns_hubs: Any) -> None:
    old_name = unique_name("Kitchen")
    hub = mdns_hubs(old_name)
    hub_id = hub.hub_id
    assert (await find(by_id(hub_id))).name == old_name
    token = hub.token()
    new_name = unique_name("Büro")
    forbidden = httpx.post(hub.base + "/api/hub/rename", json={"name": new_name})
    assert forbidden.status_code == 401
    renamed = httpx.post(hub.base + "/api/hub/rename", json={"name": new_name},
                         headers={"Authorization": f"Bearer {token}"})
    assert renamed.status_code == 200, renamed.text
    assert renamed.json() == {"name": new_name}
    found = await find(lambda f: by_id(hub_id)(f) and f.name == new_name, what="the renamed hub")
    assert found.port == hub.port
    # The old name said goodbye: a fresh browse no longer sees it.
    assert old_name not in [f.name for f in await discover(1.5, LOOPBACK)]


async def test_long_or_odd_name_is_sanitised_to_one_dns_label(mdns_hubs: Any) -> None:
    tag = uuid.uuid4().hex[:6]
    hub = mdns_hubs(f"Büro.{tag}\tmit\x07Ärger " + "ü" * 60)
    found = await find(by_id(hub.hub_id))
    assert len(found.name.encode("utf-8")) <= 63
    assert found.name.startswith(f"Büro {tag} mit Ärger ü")
    assert "." not in found.name and not any(ord(c) < 32 for c in found.name)


async def test_two_hubs_with_one_name_are_both_found_under_different_names(mdns_hubs: Any) -> None:
    """The second hub probes for the name (RFC 6762 §8.1), hears the first defend it, and renames itself.

    The probes ask for unicast answers (QU), sent to the prober's address and port 5353. Every mDNS socket on
    this machine shares 127.0.0.1:5353, so an answer to 127.0.0.1 may reach any of them; the second hub uses
    127.0.0.2 (loopback too) so that the first hub's answer reaches it, as it would on a real LAN.
    """
    name = unique_name("Twin")
    first = mdns_hubs(name)
    await find(by_id(first.hub_id))
    second = mdns_hubs(name, address="127.0.0.2")
    second_found = await find(by_id(second.hub_id))
    first_found = await find(by_id(first.hub_id))
    assert first_found.name == name
    assert second_found.name != name and second_found.name.startswith(name)
    assert (first_found.port, second_found.port) == (first.port, second.port)
    # The SDK refuses to guess between them and names both.
    with pytest.raises(SdkError) as refused:
        await find_hub(2.0, LOOPBACK)
    assert first_found.name in str(refused.value) and second_found.name in str(refused.value)


async def test_goodbye_on_shutdown_removes_the_hub_at_once(mdns_hubs: Any) -> None:
    """SIGTERM: the hub unregisters (TTL 0) before it exits 0; browsers drop it without waiting for the TTL."""
    name = unique_name()
    hub = mdns_hubs(name)
    zeroconf = AsyncZeroconf(interfaces=LOOPBACK)
    changes: asyncio.Queue[tuple[ServiceStateChange, str]] = asyncio.Queue()

    def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        changes.put_nowait((state_change, name))

    instance = f"{name}.{SERVICE_TYPE}"
    browser = AsyncServiceBrowser(zeroconf.zeroconf, [SERVICE_TYPE], handlers=[on_change])
    try:
        while await asyncio.wait_for(changes.get(), 15) != (ServiceStateChange.Added, instance):
            pass
        stopped_at = time.monotonic()
        assert await asyncio.to_thread(hub.stop) == 0, hub.log()
        while await asyncio.wait_for(changes.get(), 10) != (ServiceStateChange.Removed, instance):
            pass
        # The records live 120 s (SRV, A) and 75 min (PTR, TXT): gone within seconds means goodbye packets went out.
        assert time.monotonic() - stopped_at < 8
    finally:
        await browser.async_cancel()
        await zeroconf.async_close()


async def test_no_mdns_hub_is_not_advertised(mdns_hubs: Any) -> None:
    quiet = mdns_hubs(unique_name("Quiet"), mdns=False)
    loud = mdns_hubs(unique_name("Loud"))
    quiet_id, loud_id = quiet.hub_id, loud.hub_id
    # A browse that found the advertising hub (a single fixed browse can miss it: see browse_until) found only it.
    found = await browse_until(by_id(loud_id))
    assert quiet_id not in [f.properties.get("hubId") for f in found]
    assert "advertising" not in quiet.log()


# ---- the ones who look: lineup discover, the SDK ------------------------------------------------------------


async def test_lineup_discover_lists_name_addresses_port_and_version(mdns_hubs: Any) -> None:
    name = unique_name()
    hub = mdns_hubs(name)
    await find(by_id(hub.hub_id))
    result = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "hub", "discover", "--interface", "127.0.0.1", "--timeout", "2"],
        capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.splitlines()]
    assert [name, "127.0.0.1", str(hub.port), "0.1.0", f"http://127.0.0.1:{hub.port}"] in rows


class QuestionTap:
    """A socket in the mDNS group on loopback that keeps every question asked there: (name, asks for unicast)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        self.sock.bind(("224.0.0.251", 5353))
        self.sock.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
                             socket.inet_aton("224.0.0.251") + socket.inet_aton("127.0.0.1"))
        self.sock.settimeout(0.1)
        self.questions: list[tuple[str, bool]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        from zeroconf._protocol.incoming import DNSIncoming
        while not self.stopped.is_set():
            try:
                data, _ = self.sock.recvfrom(9000)
            except TimeoutError:
                continue
            message = DNSIncoming(data)
            if message.is_query():
                self.questions.extend((q.name, q.unicast) for q in message.questions)

    def close(self) -> None:
        self.stopped.set()
        self.thread.join(5)
        self.sock.close()


async def test_lineup_discover_asks_for_answers_every_socket_receives(mdns_hubs: Any) -> None:
    """Each question `lineup discover` asks wants a multicast answer. A unicast one (zeroconf's default for a first
    question) goes to port 5353 of the asker's address, which every mDNS socket of the machine shares (avahi, a
    hub beside it), and the kernel gives it to one of them only: under load a 2 s `lineup discover` missed a hub."""
    hub = mdns_hubs(unique_name())
    found = await find(by_id(hub.hub_id))
    tap = QuestionTap()
    try:
        assert [f.name for f in await discover(1.5, LOOPBACK) if f.properties.get("hubId") == hub.hub_id] \
            == [found.name]
    finally:
        tap.close()
    ours = [(name, unicast) for name, unicast in tap.questions
            if name in (SERVICE_TYPE, f"{found.name}.{SERVICE_TYPE}")]
    # The browse's questions (the hub's own records usually come with its answer, so the look-up asks nothing).
    assert SERVICE_TYPE in {name for name, _ in ours}, tap.questions
    assert [q for q in ours if q[1]] == [], ours


async def test_sdk_pairs_with_a_discovered_hub_without_an_address(mdns_hubs: Any, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """pair_or_load(None, code, path): the agent finds the one hub on the LAN (here: loopback) and pairs."""
    from hub.discovery import browse

    browse_everywhere = browse.discover
    ours: set[str] = set()

    async def browse_loopback(timeout_s: float = 3.0, interfaces: list[str] | None = None) -> list[FoundHub]:
        assert interfaces is None  # the SDK's default; this test confines it to loopback, and to its own hubs:
        # other workers of the parallel suite announce hubs on loopback too (the packaged executable's).
        return [found for found in await browse_everywhere(timeout_s, LOOPBACK)
                if found.properties.get("hubId") in ours]

    monkeypatch.setattr(browse, "discover", browse_loopback)
    with pytest.raises(SdkError, match="No LineUp hub answered"):
        await find_hub(1.0)

    hub = mdns_hubs(unique_name())
    ours.add(hub.hub_id)
    await find(by_id(hub.hub_id))
    code = hub.pairing_code()
    path = tmp_path / "agent" / "credential.json"
    credential = await pair_or_load(None, code, path, name="found-by-mdns", runtime="test")
    assert credential.hub_url == f"http://127.0.0.1:{hub.port}"
    assert path.exists() and (path.stat().st_mode & 0o777) == 0o600
    agents = httpx.get(hub.base + "/api/agents", headers={"Authorization": f"Bearer {hub.token()}"}).json()
    assert credential.agent_id in json.dumps(agents)


# ---- confinement ---------------------------------------------------------------------------------------------


async def test_loopback_advertiser_and_browser_send_only_on_loopback() -> None:
    """Every socket zeroconf sends from is bound to 127.0.0.1 with 127.0.0.1 as its multicast interface."""
    advertiser = Advertiser(interfaces=LOOPBACK, addresses=LOOPBACK, port=9)
    name = await advertiser.start(unique_name(), {"hubId": "confined"})
    try:
        assert advertiser.zeroconf is not None
        senders = advertiser.zeroconf.zeroconf.engine.senders
        assert senders
        for sender in senders:
            assert sender.sock_name[0] == "127.0.0.1"
            assert sender.sock.getsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, 4) == socket.inet_aton("127.0.0.1")
        found = await find(lambda f: f.properties.get("hubId") == "confined")
        assert f"{found.name}.{SERVICE_TYPE}" == name and found.port == 9
    finally:
        await advertiser.stop()
    assert advertiser.zeroconf is None


# ---- two network namespaces: the hub on one host, the phone on another ------------------------------------

HUB_ADDRESS, PHONE_ADDRESS = "10.213.0.1", "10.213.0.2"

SNIFF = textwrap.dedent("""
    # Count the mDNS (UDP 5353) frames seen on one interface, by source address, until a line on stdin says stop
    # (at most argv[2] seconds: a bound, not a window the test has to fit in).
    import json, socket, struct, sys, threading, time
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    sock.bind((sys.argv[1], 0))
    sock.settimeout(0.2)
    counts = {}
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    print("ready", flush=True)
    deadline = time.monotonic() + float(sys.argv[2])
    while not stop.is_set() and time.monotonic() < deadline:
        try:
            frame = sock.recv(65535)
        except socket.timeout:
            continue
        if len(frame) < 42 or frame[12:14] != b"\\x08\\x00" or frame[23] != 17:
            continue
        ihl = (frame[14] & 0x0F) * 4
        sport, dport = struct.unpack("!HH", frame[14 + ihl:18 + ihl])
        if 5353 in (sport, dport):
            source = socket.inet_ntoa(frame[26:30])
            counts[source] = counts.get(source, 0) + 1
    print(json.dumps(counts), flush=True)
""")

PAIR = textwrap.dedent("""
    # The agent on the phone's side: no address given, it finds the hub by mDNS and pairs (hub.sdk).
    import asyncio, sys
    from hub.sdk.credentials import pair_or_load
    credential = asyncio.run(pair_or_load(None, sys.argv[1], sys.argv[2], name="phone-agent", runtime="test"))
    print(credential.hub_url, credential.tls_fingerprint)
""")


@dataclass
class Lan:
    """Two namespaces joined by one veth pair; the root namespace gets no address and no link of it."""

    hub_ns: str
    phone_ns: str
    hub_link: str
    phone_link: str
    processes: list[subprocess.Popen[str]] = field(default_factory=list)

    def run(self, ns: str, *args: str, timeout_s: float = 30) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["ip", "netns", "exec", ns, *args], capture_output=True, text=True,
                              timeout=timeout_s, cwd=ROOT)

    def start(self, ns: str, *args: str, log: Path | None = None, env: dict[str, str] | None = None,
              stdin: bool = False) -> subprocess.Popen[str]:
        out = open(log, "a") if log else subprocess.PIPE  # noqa: SIM115 - handed to the child
        proc = subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.PIPE if stdin else None, text=True, cwd=ROOT,
                                env={**os.environ, **(env or {})})
        if log:
            cast(IO[str], out).close()
        self.processes.append(proc)
        return proc

    def python(self, ns: str, *args: str, timeout_s: float = 30) -> subprocess.CompletedProcess[str]:
        return self.run(ns, sys.executable, *args, timeout_s=timeout_s)

    def phone_get(self, url: str) -> dict[str, Any]:
        result = self.python(self.phone_ns, "-c", "import sys, urllib.request; "
                             "print(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())", url)
        assert result.returncode == 0, result.stderr
        return dict(json.loads(result.stdout))


@pytest.fixture
def lan() -> Iterator[Lan]:
    netns.require_namespaces()
    suffix = f"{os.getpid() % 100000}"
    net = Lan(f"lineup-hub-{suffix}", f"lineup-phone-{suffix}", f"luh{suffix}", f"lup{suffix}")
    netns.join_two(((net.hub_ns, net.hub_link, HUB_ADDRESS), (net.phone_ns, net.phone_link, PHONE_ADDRESS)))
    try:
        yield net
    finally:
        netns.stop(net.processes)
        for proc in net.processes:
            if proc.stdout is not None:
                proc.stdout.close()
        netns.remove(net.hub_ns, net.phone_ns)


def _wait_log(path: Path, needle: str, proc: subprocess.Popen[str], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and needle in path.read_text():
            return
        assert proc.poll() is None, path.read_text() if path.exists() else "no output"
        time.sleep(0.05)
    raise AssertionError(f"{needle!r} not in the log within {timeout_s} s:\n{path.read_text()}")


def _sniffer(net: Lan) -> subprocess.Popen[str]:
    sniffer = net.start(net.phone_ns, sys.executable, "-c", SNIFF, net.phone_link, "150", stdin=True)
    assert sniffer.stdout is not None and sniffer.stdout.readline().strip() == "ready"
    return sniffer


def _sniffed(sniffer: subprocess.Popen[str]) -> dict[str, int]:
    """What the sniffer counted from its start until now."""
    assert sniffer.stdout is not None and sniffer.stdin is not None
    sniffer.stdin.write("stop\n")
    sniffer.stdin.close()
    out = sniffer.stdout.read()
    assert sniffer.wait(15) == 0, out
    return dict(json.loads(out.strip().splitlines()[-1]))


@pytest.mark.timeout(180)
def test_phone_in_another_namespace_discovers_and_pairs(lan: Lan, tmp_path: Path) -> None:
    """The hub in one namespace, the phone in the other: the phone finds it by mDNS alone, reaches it, pairs."""
    net = lan
    nothing = net.python(net.phone_ns, "-m", "hub", "discover", "--timeout", "1.5")
    assert nothing.returncode == 1 and "no LineUp hub found" in nothing.stderr, nothing

    name = unique_name("LAN hub")
    hub_log = tmp_path / "hub.log"
    sniffer = _sniffer(net)
    hub = net.start(net.hub_ns, sys.executable, "-m", "hub", "serve", "--host", HUB_ADDRESS, "--port", "9527",
                    "--data-dir", str(tmp_path / "hub"), "--mdns-interface", HUB_ADDRESS, log=hub_log,
                    env={"LINEUP_HUB_NAME": name, "LINEUP_LOG_LEVEL": "info"})
    _wait_log(hub_log, "advertising", hub)

    # `lineup discover` on the phone browses every interface it has: its loopback and the veth.
    listed = net.python(net.phone_ns, "-m", "hub", "discover", "--timeout", "2")
    assert listed.returncode == 0, listed.stderr
    assert [name, HUB_ADDRESS, "9527", "0.1.0", f"http://{HUB_ADDRESS}:9527"] in \
        [line.split("\t") for line in listed.stdout.splitlines()]
    assert net.phone_get(f"http://{HUB_ADDRESS}:9527/-/health")["status"] == "ok"

    code = subprocess.run([sys.executable, "-m", "hub", "pair", "--data-dir", str(tmp_path / "hub")],
                          capture_output=True, text=True, timeout=30, check=True, cwd=ROOT).stdout.strip()
    paired = net.python(net.phone_ns, "-c", PAIR, code, str(tmp_path / "phone" / "credential.json"))
    assert paired.returncode == 0, paired.stderr
    # Beyond loopback the hub serves agents over TLS (its TXT record names the port): the agent paired there,
    # not over plain http, and pinned the certificate it was shown (the hub prints the same fingerprint).
    url, pin = paired.stdout.split()
    assert url == f"https://{HUB_ADDRESS}:9528"
    assert f"fingerprint: {pin}" in hub_log.read_text(), pin

    # What crossed the veth came from the two ends only; the hub's announcements were among it.
    seen = _sniffed(sniffer)
    assert seen.get(HUB_ADDRESS, 0) > 0, seen
    assert set(seen) <= {HUB_ADDRESS, PHONE_ADDRESS}, seen

    hub.send_signal(signal.SIGTERM)
    assert hub.wait(15) == 0, hub_log.read_text()


@pytest.mark.timeout(180)
def test_hub_told_to_use_loopback_sends_nothing_on_its_other_interface(lan: Lan, tmp_path: Path) -> None:
    """--mdns-interface 127.0.0.1 in the hub's namespace: not one mDNS frame reaches the veth, nobody finds it."""
    net = lan
    hub_log = tmp_path / "hub.log"
    sniffer = _sniffer(net)
    hub = net.start(net.hub_ns, sys.executable, "-m", "hub", "serve", "--port", "9527",
                    "--data-dir", str(tmp_path / "hub"), "--mdns-interface", "127.0.0.1", log=hub_log,
                    env={"LINEUP_HUB_NAME": unique_name("Private"), "LINEUP_LOG_LEVEL": "info"})
    _wait_log(hub_log, "advertising", hub)
    # It does advertise, on its own loopback...
    local = net.python(net.hub_ns, "-m", "hub", "discover", "--interface", "127.0.0.1", "--timeout", "1.5")
    assert local.returncode == 0 and "\t127.0.0.1\t9527\t" in local.stdout, local
    # ...while the phone hears nothing, although the hub listens on every interface (--host 0.0.0.0).
    silent = net.python(net.phone_ns, "-m", "hub", "discover", "--timeout", "1.5")
    assert silent.returncode == 1, silent.stdout
    assert net.phone_get(f"http://{HUB_ADDRESS}:9527/-/health")["status"] == "ok"
    seen = _sniffed(sniffer)
    assert HUB_ADDRESS not in seen, seen
    hub.send_signal(signal.SIGTERM)
    assert hub.wait(15) == 0, hub_log.read_text()


async def test_each_hub_announces_a_host_name_of_its_own_and_only_its_addresses(mdns_hubs: Any) -> None:
    """Hubs announced the machine's `<host>.local.`, so their addresses merged (with each other and with
    the system's responder): a hub was listed at addresses it does not listen on."""
    first, second = mdns_hubs(unique_name("Left")), mdns_hubs(unique_name("Right"), address="127.0.0.2")
    found = {f.properties["hubId"]: f for f in [await find(by_id(first.hub_id)), await find(by_id(second.hub_id))]}
    machine = socket.gethostname().split(".")[0].lower()
    result = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "hub", "discover", "--interface", "127.0.0.1", "--timeout", "2"],
        capture_output=True, text=True, timeout=30, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    listed = {row[0]: row[1] for row in (line.split("\t") for line in result.stdout.splitlines())}
    assert listed[found[first.hub_id].name] == "127.0.0.1"
    assert listed[found[second.hub_id].name] == "127.0.0.2"
    zeroconf = AsyncZeroconf(interfaces=LOOPBACK)
    try:
        servers = []
        for hub in (first, second):
            info = await zeroconf.async_get_service_info(SERVICE_TYPE, f"{found[hub.hub_id].name}.{SERVICE_TYPE}",
                                                         timeout=3000)
            assert info is not None and info.server is not None
            servers.append(info.server.lower())
        assert servers[0] != servers[1] and f"{machine}.local." not in servers
        assert all("-lineup-" in server for server in servers), servers
    finally:
        await zeroconf.async_close()
