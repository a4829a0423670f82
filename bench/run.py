"""Entry point: `python -m bench.run --profiles typical,busy,wide,stress,capacity [--repeats 3] [--quick]`.

Phases: baselines (fsync probe, B_sqlite) → per profile and repeat: B_relay run, then hub run (fresh data dir,
connect, warm-up discarded, run, drain) → medians → table and verdicts on stdout, JSON lines in bench/results/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from bench import scenario, verdicts
from bench.baselines import run_baselines
from bench.capacity import run_capacity
from bench.profiles import PROFILES
from bench.report import Recorder, profile_table, verdict_table
from bench.scenario import flatten, run_profile
from bench.stats import median_of

VERDICT_OF = {"typical": "L1", "busy": "L2", "wide": "L3"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--profiles", default="typical,busy,wide,stress,capacity",
                        help="comma-separated: typical, busy, wide, stress, capacity")
    parser.add_argument("--repeats", type=int, default=3, help="runs per profile and target; medians are reported")
    parser.add_argument("--quick", action="store_true", help="~5 s run phases instead of ~20 s")
    parser.add_argument("--run-s", type=float, default=None, help="run phase seconds (overrides --quick)")
    parser.add_argument("--warmup-s", type=float, default=None, help="warm-up seconds, discarded")
    parser.add_argument("--quiet-wait", type=float, default=120.0,
                        help="before each run, wait up to this many seconds for the machine's CPU to fall below 30 %%")
    return parser.parse_args(argv)


def with_client_cpu(row: dict[str, Any]) -> dict[str, Any]:
    row["clientCpu"] = round((row.get("cpuAgents") or 0) + (row.get("cpuApps") or 0), 1)
    return row


def attempt(kind: str, profile: Any) -> dict[str, Any]:
    """One run; a failure (the target died, a client timed out) is recorded and the bench goes on."""
    try:
        return run_profile(kind, profile)
    except Exception as exc:  # noqa: BLE001 - reported in the results, never silent
        return {"target": kind, "profile": profile.name, "error": f"{type(exc).__name__}: {exc}"}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    run_s = args.run_s or (5.0 if args.quick else 20.0)
    warmup_s = args.warmup_s if args.warmup_s is not None else (1.5 if args.quick else 3.0)
    names = [p.strip() for p in args.profiles.split(",") if p.strip()]
    unknown = [n for n in names if n not in PROFILES and n != "capacity"]
    if unknown:
        print(f"unknown profiles: {unknown}", file=sys.stderr)
        return 2
    scenario.QUIET["maxWaitS"] = args.quiet_wait
    rec = Recorder("run")
    started = time.monotonic()
    print(f"LineUp bench: profiles {names}, {args.repeats} repeats, run {run_s} s, warm-up {warmup_s} s; "
          f"results → {rec.path}", flush=True)

    rec.write("config", {"profiles": names, "repeats": args.repeats, "runS": run_s, "warmupS": warmup_s,
                         "quietWaitS": args.quiet_wait, "argv": sys.argv[1:]})
    baselines = run_baselines()
    rec.write("baselines", baselines)
    fs, sq = baselines["fsync"]["fsync"], baselines["sqlite"]
    print(f"fsync probe: P50 {fs['p50']} ms, P99 {fs['p99']} ms; B_sqlite: {sq['rowsPerS']:.0f} rows/s "
          f"(100 rows a commit, FULL, commit P50 {sq['commit']['p50']} ms, P99 {sq['commit']['p99']} ms)", flush=True)

    rows: list[dict[str, Any]] = []
    checks: list[dict[str, Any]] = []
    for name in names:
        if name == "capacity":
            cap = run_capacity(args.repeats, max(5.0, run_s / 2), warmup_s, lambda raw: rec.write("run", raw))
            rec.write("capacity", cap)
            for step in cap["steps"]:
                rows += [with_client_cpu(step[k]) for k in ("relay", "hub") if k in step]
            print(profile_table(rows[-2 * len(cap["steps"]):]), flush=True)
            print(f"capacity: hub sustains {cap['hubMaxSustained']} ev/s (relay {cap['relayMaxSustained']}); "
                  f"T1 (ack P99 ≤ 25 ms): {cap['t1Rate']} ev/s", flush=True)
            checks.append(verdicts.ingest(cap["t1Rate"], sq["rowsPerS"]))
            continue
        profile = PROFILES[name].timed(run_s, warmup_s)
        runs: dict[str, list[dict[str, Any]]] = {"relay": [], "hub": []}
        for i in range(args.repeats):
            for kind in ("relay", "hub"):
                raw = attempt(kind, profile)
                rec.write("run", raw | {"repeat": i})
                if "error" in raw:
                    print(f"  {name} #{i + 1} {kind}: FAILED {raw['error']}", flush=True)
                    continue
                runs[kind].append(flatten(raw))
                r = runs[kind][-1]
                print(f"  {name} #{i + 1} {kind}: e2e P95 {r['e2eP95']} P99 {r['e2eP99']} ms, ack P99 {r['ackP99']} ms,"
                      f" lost {r['lost']}, cpu {r['cpuTarget']} %, other processes {r['foreignCpu']} %", flush=True)
        if not runs["relay"] or not runs["hub"]:
            checks.append({"id": VERDICT_OF.get(name, name), "what": name, "measured": "no complete run",
                           "target": "-", "result": "MISS: the runs failed (see the JSON lines)"})
            continue
        relay = with_client_cpu(median_of(runs["relay"]) | {"profile": name, "target": "relay"})
        hub = with_client_cpu(median_of(runs["hub"]) | {"profile": name, "target": "hub"})
        rec.write("summary", {"profile": name, "relay": relay, "hub": hub})
        rows += [relay, hub]
        print(profile_table([relay, hub]), flush=True)
        if name in VERDICT_OF:
            checks.append(verdicts.latency(VERDICT_OF[name], hub, relay))
        if name == "busy":
            checks.append(verdicts.cpu(hub, relay))
        if name == "stress":
            checks.append(verdicts.stress(hub, profile.offered))

    print("\n== medians (latency ms, cpu % of one core, rss MB) ==")
    print(profile_table(rows))
    print("\n== targets ==")
    print(verdict_table(checks))
    for check in checks:
        rec.write("verdict", check)
    print(f"\ndone in {time.monotonic() - started:.0f} s; JSON lines in {rec.path}")
    print(json.dumps({"verdicts": {c["id"]: c["result"] for c in checks}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
