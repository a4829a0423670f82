"""Two test hosts on one machine: network namespaces joined by a veth pair, made and removed by the tests."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest


def ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=10)


def require_namespaces() -> None:
    """Skip, saying why, where namespaces cannot be made (not Linux, no iproute2, not root)."""
    if sys.platform != "linux" or shutil.which("ip") is None:
        pytest.skip("network namespaces need Linux and the `ip` command (iproute2)")
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces needs root (`ip netns add`); run the tests as root to include it")


def join_two(ends: tuple[tuple[str, str, str], tuple[str, str, str]]) -> None:
    """Make two namespaces, each `(namespace, link name, address)`, joined by a veth pair on a /24.

    Both ends are created directly inside the namespaces: the machine's own stack never sees the link.
    """
    (ns_a, link_a, _), (ns_b, link_b, _) = ends
    try:
        ip("netns", "add", ns_a)
        ip("netns", "add", ns_b)
        ip("link", "add", link_a, "netns", ns_a, "type", "veth", "peer", "name", link_b, "netns", ns_b)
        for ns, link, address in ends:
            # Duplicate address detection has nothing to find on a link of two ends of our own; without it the
            # IPv6 link-local address settles as soon as the link is up, not 2-3 s later.
            subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-qw", f"net.ipv6.conf.{link}.accept_dad=0"],
                           capture_output=True, timeout=10)  # (absent where IPv6 is off: nothing to wait for)
            ip("-n", ns, "addr", "add", f"{address}/24", "dev", link)
            ip("-n", ns, "link", "set", link, "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except subprocess.CalledProcessError as exc:
        remove(ns_a, ns_b)
        pytest.skip(f"this machine does not permit creating network namespaces: {' '.join(exc.cmd)}: "
                    f"{exc.stderr.strip()}")
    try:
        for ns, link, _ in ends:
            wait_settled(ns, link)
    except BaseException:
        remove(ns_a, ns_b)  # the callers' clean-up starts after join_two: a link that never settled is removed here
        raise


def wait_settled(ns: str, link: str, timeout_s: float = 15) -> None:
    """Wait until the link has its carrier and its addresses are final. The carrier comes about a second after
    `link set up`, the IPv6 link-local address after it; a browser started before that sees the network change
    and fails its page load with ERR_NETWORK_CHANGED."""
    ipv6 = subprocess.run(["ip", "netns", "exec", ns, "sysctl", "-n", f"net.ipv6.conf.{link}.disable_ipv6"],
                          capture_output=True, text=True, timeout=10).stdout.strip() == "0"
    deadline = time.monotonic() + timeout_s
    while True:
        shown = subprocess.run(["ip", "-n", ns, "addr", "show", "dev", link], capture_output=True, text=True,
                               timeout=10).stdout
        if "LOWER_UP" in shown and "tentative" not in shown and (not ipv6 or "inet6 fe80" in shown):
            return
        assert time.monotonic() < deadline, f"{link} in {ns} did not settle in {timeout_s} s:\n{shown}"
        time.sleep(0.05)


def stop(processes: list[subprocess.Popen[str]]) -> None:
    """SIGTERM every process still running in the namespaces, SIGKILL after 10 s."""
    for proc in processes:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def remove(*namespaces: str) -> None:
    for ns in namespaces:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=10)
