"""Percentiles of latency samples (nearest rank) and the median of repeated runs."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from typing import Any


def summarize_ns(samples: Iterable[int]) -> dict[str, float | int | None]:
    """P50/P95/P99/P99.9/max/mean in milliseconds of nanosecond samples; nearest-rank percentiles."""
    data = sorted(samples)
    n = len(data)
    if n == 0:
        return {"n": 0, "p50": None, "p95": None, "p99": None, "p999": None, "max": None, "mean": None}

    def rank(p: float) -> float:
        return round(data[max(0, math.ceil(p * n) - 1)] / 1e6, 3)

    return {"n": n, "p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99), "p999": rank(0.999),
            "max": round(data[-1] / 1e6, 3), "mean": round(sum(data) / n / 1e6, 3)}


def median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Field-wise median of repeated results (numbers only; nested dicts recursively; else the first value)."""
    if not runs:
        return {}
    if len(runs) == 1:
        return runs[0]
    out: dict[str, Any] = {}
    for key in runs[0]:
        values = [r.get(key) for r in runs if key in r]
        if all(isinstance(v, dict) for v in values):
            out[key] = median_of(values)
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            m = statistics.median(values)
            out[key] = round(m, 3) if isinstance(m, float) else m
        else:
            out[key] = values[0]
    return out


def ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b not in (None, 0) else None
