"""CPU per event at one offered rate, hub against relay, fan-out 1: `python -m bench.cpu_per_event [--rate 3000]`.

The lean-log target "CPU per event at 3,000 ev/s, fan-out 1, ≤ 1.5× the relay's" as one figure: the capacity
profile's step at `--rate` (10 agents, one app), relay and hub runs interleaved `--repeats` times, each a fresh
target; CPU-s of the target process per acked event, with ack and end-to-end latencies and the writer's batches.
A hub near one core (the event loop and the writer share the GIL) says its per-event cost at saturation.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

from bench.profiles import capacity_step
from bench.scenario import flatten, run_profile


def per_event_us(row: dict[str, Any]) -> float | None:
    """The target's CPU in µs per acked event (cpuTarget is % of one core over the run)."""
    if not row.get("achievedRate") or row.get("cpuTarget") is None:
        return None
    return float(row["cpuTarget"]) / 100 / float(row["achievedRate"]) * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cpu_per_event", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rate", type=int, default=3000, help="offered events a second, all agents together")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved relay/hub pairs")
    parser.add_argument("--run-s", type=float, default=15.0)
    parser.add_argument("--warmup-s", type=float, default=3.0)
    args = parser.parse_args(argv)
    profile = capacity_step(args.rate, args.run_s, args.warmup_s)
    figures: dict[str, list[float]] = {"relay": [], "hub": []}
    for _ in range(args.repeats):
        for kind in ("relay", "hub"):
            row = flatten(run_profile(kind, profile))
            us = per_event_us(row)
            if us is not None:
                figures[kind].append(us)
            print(f"{kind:5s} {row['achievedRate']:7.0f} ev/s  CPU {row['cpuTarget']} % ({us and round(us)} µs/event)  "
                  f"ack P50 {row['ackP50']} P99 {row['ackP99']} ms  e2e P95 {row['e2eP95']} ms  lost {row['lost']}  "
                  f"batch mean {row['batchMean']}  others {row['foreignCpu']} %", flush=True)
    if figures["relay"] and figures["hub"]:
        hub, relay = statistics.median(figures["hub"]), statistics.median(figures["relay"])
        print(f"median CPU per event at {args.rate} ev/s: hub {hub:.0f} µs, relay {relay:.0f} µs = {hub / relay:.2f}×")


if __name__ == "__main__":
    main()
