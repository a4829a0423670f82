"""One measured run of a profile against one target: prepare → connect → warm-up → run → drain → figures."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from bench.agents import HARD_OVERRUN_S
from bench.ipc import Child
from bench.profiles import Profile
from bench.sampler import Sampler, wait_quiet
from bench.targets import HubTarget, RelayTarget, Target, bench_nice

DRAIN_S = 15.0


def stored_run_events(target: HubTarget) -> int | None:
    """Run-phase bench events in the hub's log (read-only, after the hub stopped)."""
    try:
        conn = sqlite3.connect(f"file:{target.db_path}?mode=ro", uri=True)
        try:
            row = conn.execute("SELECT COUNT(*) FROM events WHERE type = 'message.created' "
                               "AND json_extract(payload, '$.bench.p') = 'r'").fetchone()
            return int(row[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return None


def start_py_spy(kind: str, profile: Profile, pid: int) -> subprocess.Popen[bytes] | None:
    """With BENCH_PY_SPY=<dir>, sample the target with py-spy for the run window (collapsed stacks)."""
    out_dir = os.environ.get("BENCH_PY_SPY")
    if not out_dir:
        return None
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    out = Path(out_dir) / f"{profile.name}-{kind}-{pid}.folded"
    extra = os.environ.get("BENCH_PY_SPY_ARGS", "").split()
    return subprocess.Popen(["py-spy", "record", "-p", str(pid), "-d", str(int(profile.run_s)), "-r", "200",
                             "-o", str(out), "--format", "raw", "--threads", *extra], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_target(kind: str) -> Target:
    return HubTarget() if kind == "hub" else RelayTarget()


QUIET = {"maxWaitS": 120.0, "maxCpuPct": 30.0}  # run.py --quiet-wait sets this; see sampler.wait_quiet


def run_profile(kind: str, profile: Profile) -> dict[str, Any]:
    """Run `profile` once against a fresh hub (fresh data dir) or a fresh relay; every step bounded in time."""
    target = make_target(kind)
    agents = apps = None
    result: dict[str, Any] = {"target": kind, "profile": profile.name, "agents": profile.agents,
                              "ratePerAgent": profile.rate, "apps": profile.apps, "runS": profile.run_s,
                              "nice": bench_nice()}
    waited = time.monotonic()
    result["quietBeforePct"] = wait_quiet(QUIET["maxCpuPct"], max_wait_s=QUIET["maxWaitS"])
    result["quietWaitS"] = round(time.monotonic() - waited, 1)
    try:
        target.start()
        result["spawnToHealthyS"] = round(target.spawn_to_healthy_s or 0, 3)
        fixture = target.prepare(profile.agents).as_dict()
        apps, agents = Child("bench.apps"), Child("bench.agents")
        apps.call({"cmd": "connect", "fixture": fixture, "n": profile.apps}, timeout_s=120)
        agents.call({"cmd": "connect", "fixture": fixture, "n": profile.agents}, timeout_s=60)
        start_ns = time.monotonic_ns() + 300_000_000
        agents.send({"cmd": "run", "startNs": start_ns, "rate": profile.rate, "warmupS": profile.warmup_s,
                     "runS": profile.run_s, "drainS": DRAIN_S})
        run_from = start_ns / 1e9 + profile.warmup_s
        run_to = run_from + profile.run_s
        sampler = Sampler({"target": target.pid, "agents": agents.pid, "apps": apps.pid},
                          target.base + "/-/metrics" if kind == "hub" else None)
        time.sleep(max(0.0, run_from - time.monotonic()))
        spy = start_py_spy(kind, profile, target.pid)
        sampler.start()
        time.sleep(max(0.0, run_to - time.monotonic()))
        sampler.stop()
        if spy is not None:
            spy.wait(30)
        sent = agents.recv(timeout_s=profile.run_s + profile.warmup_s + HARD_OVERRUN_S + DRAIN_S + 30)
        received = apps.call({"cmd": "drain", "expected": sent["sent"], "timeoutS": DRAIN_S, "quietS": 5.0},
                             timeout_s=DRAIN_S + 30)
        result.update(sent=sent, received=received, resources=sampler.summary())
    finally:
        for child in (agents, apps):
            if child is not None:
                child.close()
        target.stop()
    if isinstance(target, HubTarget):
        result["stored"] = stored_run_events(target)
    target.cleanup()
    return result


def flatten(result: dict[str, Any]) -> dict[str, Any]:
    """The figures a report row needs, from one run's nested result."""
    s, r, res = result["sent"], result["received"], result["resources"]
    cpu = res.get("cpuPct", {})
    return {
        "e2eP50": r["e2e"]["p50"], "e2eP95": r["e2e"]["p95"], "e2eP99": r["e2e"]["p99"], "e2eMax": r["e2e"]["max"],
        "ackP50": s["ack"]["p50"], "ackP95": s["ack"]["p95"], "ackP99": s["ack"]["p99"], "ackMax": s["ack"]["max"],
        "sent": s["sent"], "acked": s["acked"], "stored": result.get("stored"),
        "delivered": r["delivered"], "lost": r["lost"], "dups": r["duplicates"] + s["duplicates"],
        "gaps": r["gaps"], "reordered": r["reordered"], "errors": sum(s["errors"].values()),
        "unacked": s["unacked"], "unsent": s["unsent"], "closedApps": r["closed"],
        "achievedRate": round(s["acked"] / result["runS"], 1),
        "cpuTarget": cpu.get("target"), "cpuAgents": cpu.get("agents"), "cpuApps": cpu.get("apps"),
        "rssMB": res.get("rssMB"), "fds": res.get("fds"),
        "loopLagMaxMs": res.get("loopLagMs", {}).get("max"), "loopLagMeanMs": res.get("loopLagMs", {}).get("mean"),
        "batchMean": res.get("writer", {}).get("batchMean"), "batchMax": res.get("writer", {}).get("batchMax"),
        "commitP50": res.get("writer", {}).get("commitMsP50"), "commitP99": res.get("writer", {}).get("commitMsP99"),
        "sendLagP99": s["sendLag"]["p99"], "foreignCpu": cpu.get("foreign"),
        "cpuPressure": res.get("cpuPressurePct"),
    }
