"""R2: reconnect storm. 200 apps, each 500 events behind, reconnect at once while 200 ev/s flow.

Run: python -m bench.storm [--apps 200] [--behind 500] [--rate 200]
Target: every app caught up ≤ 5 s after the storm starts; live ack P99 ≤ 250 ms during it; nothing lost.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import psutil

from bench.ipc import Child
from bench.report import Recorder
from bench.sampler import Sampler
from bench.targets import HubTarget

CAUGHT_UP_LIMIT_S, ACK_P99_LIMIT_MS = 5.0, 250.0
AGENTS = 10


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.storm", description=__doc__)
    parser.add_argument("--apps", type=int, default=200)
    parser.add_argument("--behind", type=int, default=500)
    parser.add_argument("--rate", type=float, default=200.0, help="live events per second during the storm")
    parser.add_argument("--run-s", type=float, default=10.0)
    args = parser.parse_args(argv)
    target = HubTarget()
    apps = agents = None
    try:
        target.start()
        fixture = target.prepare(AGENTS).as_dict()
        apps, agents = Child("bench.apps"), Child("bench.agents")
        apps.call({"cmd": "connect", "fixture": fixture, "n": args.apps, "batch": 50}, timeout_s=300)
        left = apps.call({"cmd": "disconnect"}, timeout_s=60)["lastSequence"]
        agents.call({"cmd": "connect", "fixture": fixture}, timeout_s=60)
        filled = agents.call({"cmd": "fill", "count": args.behind, "window": 100}, timeout_s=120)
        warmup_s = 2.0
        start_ns = time.monotonic_ns() + 300_000_000
        agents.send({"cmd": "run", "startNs": start_ns, "rate": args.rate / AGENTS, "warmupS": warmup_s,
                     "runS": args.run_s, "drainS": 15.0})
        # The storm begins one second into the run phase: every app at once, from where it left.
        time.sleep(max(0.0, start_ns / 1e9 + warmup_s + 1.0 - time.monotonic()))
        sampler = Sampler({"target": target.pid, "agents": agents.pid, "apps": apps.pid}, target.base + "/-/metrics",
                          interval_s=0.25)
        sampler.start()
        storm = apps.call({"cmd": "connect", "fixture": fixture, "n": args.apps, "batch": args.apps,
                           "lastSequence": left, "replayToo": True}, timeout_s=120)
        sampler.stop()
        sent = agents.recv(timeout_s=args.run_s + warmup_s + 60)
        received = apps.call({"cmd": "drain", "expected": sent["sent"], "timeoutS": 20.0, "quietS": 5.0},
                             timeout_s=60)
        time.sleep(2.0)
        rss_after_mb = round(psutil.Process(target.pid).memory_info().rss / 2**20, 1)  # does the storm's memory return?
    finally:
        for child in (agents, apps):
            if child is not None:
                child.close()
        target.stop()
        target.cleanup()
    slowest_s = (storm["catchUp"]["max"] or 0) / 1000
    result = {"apps": args.apps, "behind": filled["acked"], "liveRate": args.rate,
              "caughtUpMedianS": round((storm["catchUp"]["p50"] or 0) / 1000, 3), "caughtUpMaxS": round(slowest_s, 3),
              "ackP99Ms": sent["ack"]["p99"], "ackMaxMs": sent["ack"]["max"], "sent": sent["sent"],
              "acked": sent["acked"], "lost": received["lost"], "dups": received["duplicates"],
              "gaps": received["gaps"], "e2eP99Ms": received["e2e"]["p99"],
              "duringStorm": sampler.summary(), "rssAfterMB": rss_after_mb}
    problems = []
    if slowest_s > CAUGHT_UP_LIMIT_S:
        problems.append(f"slowest app caught up after {slowest_s:.2f} s > {CAUGHT_UP_LIMIT_S} s")
    if (sent["ack"]["p99"] or 1e9) > ACK_P99_LIMIT_MS:
        problems.append(f"ack P99 {sent['ack']['p99']} ms > {ACK_P99_LIMIT_MS} ms")
    if received["lost"] or received["duplicates"] or received["gaps"] or sent["unacked"]:
        problems.append("lost, duplicated, gapped or unacked events")
    result["problems"] = problems
    result["result"] = "pass" if not problems else "MISS"
    Recorder("storm").write("storm", result)
    print(json.dumps(result))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
