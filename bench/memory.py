"""M1: RSS of an idle hub, after 500 idle app connections, and the cost of one idle connection.

Run: python -m bench.memory [--connections 500]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import psutil

from bench.ipc import Child
from bench.report import Recorder
from bench.targets import HubTarget

IDLE_LIMIT_MB, LOADED_LIMIT_MB, PER_CONNECTION_LIMIT_KIB = 80.0, 150.0, 64.0


def settled_rss(pid: int, settle_s: float = 2.0) -> int:
    """RSS after the process has been left alone for `settle_s` (max of three readings, a second apart)."""
    time.sleep(settle_s)
    proc = psutil.Process(pid)
    readings = []
    for _ in range(3):
        readings.append(proc.memory_info().rss)
        time.sleep(1.0)
    return max(readings)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.memory", description=__doc__)
    parser.add_argument("--connections", type=int, default=500)
    args = parser.parse_args(argv)
    target = HubTarget()
    apps = None
    try:
        target.start()
        fixture = target.prepare(1).as_dict()  # a token, one paired agent and its conversation, as in real use
        idle = settled_rss(target.pid)
        apps = Child("bench.apps")
        connected = apps.call({"cmd": "connect", "fixture": fixture, "n": args.connections, "batch": 50},
                              timeout_s=300)
        loaded = settled_rss(target.pid)
        fds = psutil.Process(target.pid).num_fds()
    finally:
        if apps is not None:
            apps.close()
        target.stop()
        target.cleanup()
    per_conn_kib = (loaded - idle) / 1024 / max(1, connected["connected"])
    result = {"idleMB": round(idle / 2**20, 1), "connections": connected["connected"],
              "loadedMB": round(loaded / 2**20, 1), "perConnectionKiB": round(per_conn_kib, 1), "fds": fds,
              "limits": {"idleMB": IDLE_LIMIT_MB, "loadedMB": LOADED_LIMIT_MB, "perConnectionKiB": PER_CONNECTION_LIMIT_KIB}}
    ok = (result["idleMB"] <= IDLE_LIMIT_MB and result["loadedMB"] <= LOADED_LIMIT_MB
          and per_conn_kib <= PER_CONNECTION_LIMIT_KIB)
    result["result"] = "pass" if ok else "MISS"
    Recorder("memory").write("memory", result)
    print(json.dumps(result))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
