"""Printing result tables to stdout and appending JSON lines to bench/results/ (gitignored)."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).resolve().parent / "results"

PROFILE_COLUMNS = (
    ("profile", "profile"), ("target", "target"), ("rate", "achievedRate"),
    ("e2e p50", "e2eP50"), ("p95", "e2eP95"), ("p99", "e2eP99"), ("max", "e2eMax"),
    ("ack p50", "ackP50"), ("p95", "ackP95"), ("p99", "ackP99"), ("max", "ackMax"),
    ("sent", "sent"), ("acked", "acked"), ("stored", "stored"), ("deliv", "delivered"), ("lost", "lost"),
    ("dups", "dups"), ("gaps", "gaps"), ("cpu%", "cpuTarget"), ("rssMB", "rssMB"), ("fds", "fds"),
    ("lag", "loopLagMaxMs"), ("batch", "batchMean"), ("bmax", "batchMax"), ("cmt50", "commitP50"),
    ("cmt99", "commitP99"), ("cli%", "clientCpu"), ("oth%", "foreignCpu"), ("psi%", "cpuPressure"),
)


class Recorder:
    """One JSON-lines file per invocation: every raw run, every summary, every verdict."""

    def __init__(self, name: str = "bench") -> None:
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        self.path = RESULTS_DIR / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"

    def write(self, kind: str, data: dict[str, Any]) -> None:
        with open(self.path, "a") as f:
            f.write(json.dumps({"kind": kind, "at": time.strftime("%Y-%m-%dT%H:%M:%S"), **data}) + "\n")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.2f}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)


def table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]]) -> str:
    cells = [[h for h, _ in columns]] + [[_fmt(row.get(key)) for _, key in columns] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=False)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def profile_table(rows: Sequence[dict[str, Any]]) -> str:
    return table(rows, PROFILE_COLUMNS)


def verdict_table(verdicts: Sequence[dict[str, Any]]) -> str:
    return table(verdicts, (("id", "id"), ("what", "what"), ("measured", "measured"), ("target", "target"),
                            ("result", "result")))
