"""During the run window: CPU of each process (psutil), hub RSS and FDs, and the hub's /-/metrics."""

from __future__ import annotations

import contextlib
import statistics
import threading
import time
from typing import Any

import httpx
import psutil


def wait_quiet(max_cpu_pct: float = 25.0, settle_s: float = 1.0, max_wait_s: float = 60.0) -> float:
    """Wait (bounded) until the machine's CPU use over `settle_s` is below `max_cpu_pct` of all cores.

    Returns the last reading; the run goes ahead after `max_wait_s` anyway (the report shows foreign CPU).
    """
    deadline = time.monotonic() + max_wait_s
    while True:
        busy = psutil.cpu_percent(interval=settle_s)
        if busy <= max_cpu_pct or time.monotonic() > deadline:
            return float(busy)


class Sampler:
    """Start at the run's first instant, stop at its last; `summary()` gives the figures of that window."""

    def __init__(self, pids: dict[str, int], metrics_url: str | None, interval_s: float = 0.5) -> None:
        self.procs = {name: psutil.Process(pid) for name, pid in pids.items()}
        self.metrics_url = metrics_url
        self.interval_s = interval_s
        self.samples: list[dict[str, Any]] = []
        self.resources: list[tuple[int, int]] = []  # (rss bytes, fds) of the target
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._cpu0: dict[str, float] = {}
        self._cpu1: dict[str, float] = {}
        self._t0 = self._t1 = 0.0
        self._metrics0: dict[str, Any] | None = None
        self._metrics1: dict[str, Any] | None = None
        self._psi0: int | None = None
        self._psi1: int | None = None

    @staticmethod
    def _cpu_pressure_us() -> int | None:
        """Linux PSI: total microseconds in which some runnable task waited for a CPU."""
        try:
            with open("/proc/pressure/cpu") as f:
                return int(f.readline().rsplit("total=", 1)[1])
        except (OSError, IndexError, ValueError):
            return None

    @staticmethod
    def _machine_busy_s() -> float:
        t = psutil.cpu_times()
        return t.user + t.nice + t.system + t.irq + t.softirq + t.steal

    @staticmethod
    def _cpu(proc: psutil.Process) -> float:
        t = proc.cpu_times()
        return t.user + t.system

    def _metrics(self, http: httpx.Client) -> dict[str, Any] | None:
        if self.metrics_url is None:
            return None
        try:
            data: dict[str, Any] = http.get(self.metrics_url).json()
            return data
        except (httpx.HTTPError, ValueError):
            return None

    def start(self) -> None:
        self._t0 = time.monotonic()
        self._cpu0 = {name: self._cpu(p) for name, p in self.procs.items()}
        self._cpu0["machine"] = self._machine_busy_s()
        self._cpu0["driver"] = self._cpu(psutil.Process())
        self._psi0 = self._cpu_pressure_us()
        with httpx.Client(timeout=2.0) as http:
            self._metrics0 = self._metrics(http)
        self._thread.start()

    def stop(self) -> None:
        self._t1 = time.monotonic()
        self._cpu1 = {name: self._cpu(p) for name, p in self.procs.items()}
        self._cpu1["machine"] = self._machine_busy_s()
        self._cpu1["driver"] = self._cpu(psutil.Process())
        self._psi1 = self._cpu_pressure_us()
        self._stop.set()
        self._thread.join(5)
        with httpx.Client(timeout=2.0) as http:
            self._metrics1 = self._metrics(http)
        self._sample_resources()

    def _sample_resources(self) -> None:
        target = self.procs.get("target")
        if target is not None:
            with contextlib.suppress(psutil.Error):
                self.resources.append((target.memory_info().rss, target.num_fds()))

    def _loop(self) -> None:
        with httpx.Client(timeout=2.0) as http:
            while not self._stop.wait(self.interval_s):
                self._sample_resources()
                m = self._metrics(http)
                if m is not None:
                    self.samples.append(m)

    def summary(self) -> dict[str, Any]:
        wall = max(1e-9, self._t1 - self._t0)
        cpu = {name: round(100 * (self._cpu1[name] - self._cpu0[name]) / wall, 1) for name in self._cpu0}
        # CPU used on this machine by anything but the bench's processes (other jobs make runs noisy).
        # Approximate: kernel time on behalf of our sockets is sometimes counted twice, hence the clamp.
        cpu["foreign"] = max(0.0, round(cpu.pop("machine") - sum(cpu.values()), 1))
        out: dict[str, Any] = {"cpuPct": cpu, "windowS": round(wall, 2)}
        if self._psi0 is not None and self._psi1 is not None:
            # Share of the window in which some task waited for a CPU: near 0 on a quiet machine.
            out["cpuPressurePct"] = round((self._psi1 - self._psi0) / 1e4 / wall, 1)
        if self.resources:
            out["rssMB"] = round(max(r for r, _ in self.resources) / 2**20, 1)
            out["fds"] = max(f for _, f in self.resources)
        lags = [s["loopLagMs"] for s in self.samples if s.get("loopLagMs") is not None]
        if lags:
            out["loopLagMs"] = {"mean": round(statistics.fmean(lags), 2), "max": round(max(lags), 2)}
        m0, m1 = self._metrics0, self._metrics1
        if m0 and m1:
            w0, w1 = m0["writer"], m1["writer"]
            batches = w1["batches"] - w0["batches"]
            commands = w1["commands"] - w0["commands"]
            out["writer"] = {
                "batches": batches, "batchMean": round(commands / batches, 2) if batches else None,
                "batchMax": w1["maxBatchSize"],
                "commitMsP50": w1["commitMsP50"], "commitMsP99": w1["commitMsP99"],
                "queueDepthMax": max((s["writer"]["queueDepth"] for s in self.samples), default=None),
            }
            out["outboundQueuedMaxKB"] = round(max((s["outboundQueuedBytes"] for s in self.samples), default=0) / 1024, 1)
        return out
