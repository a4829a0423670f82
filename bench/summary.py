"""The latest figures from bench/results/*.jsonl as the Markdown table kept in bench/README.md.

Run: python -m bench.summary
"""

from __future__ import annotations

import json
from typing import Any

from bench.report import RESULTS_DIR


def latest(prefix: str) -> list[dict[str, Any]]:
    """The records of the newest results file whose name starts with `prefix` and that has any verdict-like line."""
    for path in sorted(RESULTS_DIR.glob(f"{prefix}-*.jsonl"), reverse=True):
        records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        if records:
            return records
    return []


def latest_verdicts() -> dict[str, dict[str, Any]]:
    """The verdicts of the newest run file that checked the most targets (a full run beats a newer partial one)."""
    best: tuple[int, str] | None = None
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(RESULTS_DIR.glob("run-*.jsonl")):
        verdicts = {}
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if record.get("kind") == "verdict":
                verdicts[record["id"]] = record | {"file": path.name}
        if verdicts and (best is None or len(verdicts) >= best[0]):
            best, found = (len(verdicts), path.name), verdicts
    return found


def rows() -> list[tuple[str, str, str, str]]:
    out = []
    for id_, v in sorted(latest_verdicts().items()):
        out.append((id_, v["measured"], v["target"], "pass" if v["result"] == "pass" else v["result"]))
    catchup = [r for r in latest("catchup") if r.get("kind") == "catchup"]
    if catchup:
        measured = "; ".join(f"{r['case']}: {r['medianS']} s ({r['events']} ev, {r['rate']} ev/s)" for r in catchup)
        ok = all(r["result"] == "pass" for r in catchup)
        out.append(("R1", measured + ("; no gaps, no dups" if not any(r["problems"] for r in catchup) else ""),
                    "100 %, no gaps/dups; 10k ≤ 0.5 s, 100k ≤ 5 s", "pass" if ok else "MISS"))
    storm = [r for r in latest("storm") if r.get("kind") == "storm"]
    if storm:
        st = storm[-1]
        out.append(("R2", f"{st['apps']} apps {st['behind']} behind at {st['liveRate']:.0f} ev/s: all caught up after "
                    f"{st['caughtUpMaxS']} s (median {st['caughtUpMedianS']} s); live ack P99 {st['ackP99Ms']} ms; "
                    f"lost {st['lost']}, dups {st['dups']}, gaps {st['gaps']}; hub RSS {st['duringStorm'].get('rssMB')} MB",
                    "all caught up ≤ 5 s; live ack P99 ≤ 250 ms", st["result"] if st["result"] == "pass"
                    else "MISS: " + "; ".join(st["problems"])))
    kill = [r for r in latest("kill9") if r.get("kind") == "summary"]
    if kill:
        k = kill[-1]
        out.append(("R3", f"{k['runs']} runs, {k['acked']} acked, lost {k['lost']}, dup rows {k['dupRows']}, holes "
                    f"{k['holes']}; accepting after median {k['acceptMedianS']} s, max {k['acceptMaxS']} s",
                    "0 lost / dup / holes; accepting ≤ 1 s after spawn", "pass" if k["failed"] == 0 else
                    f"MISS ({k['failed']} of {k['runs']} runs)"))
    memory = [r for r in latest("memory") if r.get("kind") == "memory"]
    if memory:
        m = memory[-1]
        out.append(("M1", f"idle {m['idleMB']} MB; {m['connections']} apps {m['loadedMB']} MB; "
                    f"{m['perConnectionKiB']} KiB per connection", "idle ≤ 80 MB; ≤ 150 MB at 500; ≤ 64 KiB each",
                    m["result"]))
    return out


def markdown() -> str:
    lines = ["| id | measured | target | result |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
