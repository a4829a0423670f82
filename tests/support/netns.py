"""Two test hosts on one machine: network namespaces joined by a veth pair, made and removed by the tests."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys

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
            ip("-n", ns, "addr", "add", f"{address}/24", "dev", link)
            ip("-n", ns, "link", "set", link, "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except subprocess.CalledProcessError as exc:
        remove(ns_a, ns_b)
        pytest.skip(f"this machine does not permit creating network namespaces: {' '.join(exc.cmd)}: "
                    f"{exc.stderr.strip()}")


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
