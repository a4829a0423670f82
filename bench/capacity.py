"""The capacity profile: fan-out 1, the offered rate stepping 1k → 8k ev/s until P99 > 100 ms or loss (+ T1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bench.profiles import CAPACITY_P99_MS, CAPACITY_STEPS, capacity_step
from bench.scenario import flatten, run_profile
from bench.stats import median_of
from bench.verdicts import T1_ACK_P99_MS


def step_ok(row: dict[str, Any], offered: float) -> bool:
    """The step is sustained: no loss, everything acked, the offered rate reached, P99 within the bound."""
    return (row["lost"] == 0 and row["unacked"] == 0 and row["errors"] == 0 and row["unsent"] == 0
            and row["achievedRate"] >= 0.99 * offered and row["e2eP99"] is not None
            and row["e2eP99"] <= CAPACITY_P99_MS)


def run_capacity(repeats: int, run_s: float, warmup_s: float,
                 on_run: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """Each step: relay and hub runs interleaved, `repeats` times, medians compared. Stops at the first failed step."""
    steps: list[dict[str, Any]] = []
    relay_alive = True
    for total in CAPACITY_STEPS:
        profile = capacity_step(total, run_s, warmup_s)
        runs: dict[str, list[dict[str, Any]]] = {"relay": [], "hub": []}
        for _ in range(repeats):
            for kind in (("relay", "hub") if relay_alive else ("hub",)):
                try:
                    raw = run_profile(kind, profile)
                except Exception as exc:  # noqa: BLE001 - recorded; the step counts as failed
                    on_run({"target": kind, "profile": profile.name, "error": f"{type(exc).__name__}: {exc}"})
                    continue
                on_run(raw)
                runs[kind].append(flatten(raw))
        if not runs["hub"]:
            steps.append({"offered": total, "hub": {"profile": profile.name, "target": "hub", "error": True},
                          "hubOk": False})
            break
        hub = median_of(runs["hub"]) | {"profile": profile.name, "target": "hub", "offered": total}
        step: dict[str, Any] = {"offered": total, "hub": hub, "hubOk": step_ok(hub, total)}
        if runs["relay"]:
            relay = median_of(runs["relay"]) | {"profile": profile.name, "target": "relay", "offered": total}
            step["relay"], step["relayOk"] = relay, step_ok(relay, total)
            relay_alive = step["relayOk"]
        steps.append(step)
        if not step["hubOk"]:
            break
    sustained = [s["offered"] for s in steps if s["hubOk"]]
    t1 = [s["hub"]["achievedRate"] for s in steps if s["hubOk"] and (s["hub"]["ackP99"] or 1e9) <= T1_ACK_P99_MS]
    relay_sustained = [s["offered"] for s in steps if s.get("relayOk")]
    return {"steps": steps, "hubMaxSustained": max(sustained, default=None),
            "relayMaxSustained": max(relay_sustained, default=None),
            "t1Rate": max(t1, default=None)}
