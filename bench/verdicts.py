"""The targets of docs/quality.md#targets (L1–L4, T1, T2) checked against the medians of a run."""

from __future__ import annotations

from typing import Any

from bench.stats import ratio

# id: (profile, ratio P95, ratio P99, absolute P95 ms, absolute P99 ms)
LATENCY_TARGETS = {
    "L1": ("typical", 2.0, 3.0, 10.0, 20.0),
    "L2": ("busy", 2.0, 3.0, 10.0, 25.0),
    "L3": ("wide", 2.0, 3.0, 15.0, 30.0),
}
L4_P99_MS = 100.0
T1_ACK_P99_MS = 25.0
T1_MIN_RATE, T1_SQLITE_SHARE = 3000.0, 0.10
T2_CPU_RATIO = 3.5


def _verdict(id_: str, what: str, measured: str, target: str, misses: list[str]) -> dict[str, Any]:
    return {"id": id_, "what": what, "measured": measured, "target": target,
            "result": "pass" if not misses else "MISS: " + "; ".join(misses)}


def latency(id_: str, hub: dict[str, Any], relay: dict[str, Any]) -> dict[str, Any]:
    profile, r95, r99, a95, a99 = LATENCY_TARGETS[id_]
    p95, p99 = hub["e2eP95"], hub["e2eP99"]
    q95, q99 = ratio(p95, relay["e2eP95"]), ratio(p99, relay["e2eP99"])
    misses = []
    for name, value, limit, unit in (("P95 ratio", q95, r95, "×"), ("P99 ratio", q99, r99, "×"),
                                     ("P95", p95, a95, " ms"), ("P99", p99, a99, " ms")):
        if value is None or value > limit:
            misses.append(f"{name} {value}{unit} > {limit}{unit}" + (f" (+{(value / limit - 1) * 100:.0f} %)"
                                                                      if value is not None else ""))
    if hub.get("lost") or hub.get("dups") or hub.get("gaps"):
        misses.append(f"lost {hub.get('lost')}, dups {hub.get('dups')}, gaps {hub.get('gaps')}")
    return _verdict(id_, f"e2e {profile}",
                    f"P95 {p95} ms ({q95}×), P99 {p99} ms ({q99}×); relay P95 {relay['e2eP95']}, P99 {relay['e2eP99']}",
                    f"P95 ≤ {r95}× and ≤ {a95} ms; P99 ≤ {r99}× and ≤ {a99} ms", misses)


def stress(hub: dict[str, Any], offered: float) -> dict[str, Any]:
    misses = []
    if hub["achievedRate"] < 0.99 * offered or hub.get("unsent"):
        misses.append(f"achieved {hub['achievedRate']} ev/s of {offered}")
    if hub["lost"] or hub["dups"] or hub["gaps"]:
        misses.append(f"lost {hub['lost']}, dups {hub['dups']}, gaps {hub['gaps']}")
    if hub["e2eP99"] is None or hub["e2eP99"] > L4_P99_MS:
        misses.append(f"P99 {hub['e2eP99']} ms > {L4_P99_MS} ms")
    return _verdict("L4", "stress", f"{hub['achievedRate']} ev/s of {offered}, lost {hub['lost']}, dups {hub['dups']}, "
                    f"P99 {hub['e2eP99']} ms", f"sustains {offered:.0f} ev/s, 0 loss, 0 dups, P99 ≤ {L4_P99_MS} ms",
                    misses)


def ingest(best_rate: float | None, sqlite_rows_per_s: float | None) -> dict[str, Any]:
    need = max(T1_MIN_RATE, T1_SQLITE_SHARE * (sqlite_rows_per_s or 0))
    misses = [] if best_rate is not None and best_rate >= need else [
        f"{best_rate} ev/s < {need:.0f} ev/s" + (f" ({best_rate / need * 100:.0f} % of it)" if best_rate else "")]
    share = round(100 * best_rate / sqlite_rows_per_s, 1) if best_rate and sqlite_rows_per_s else None
    return _verdict("T1", "durable ingest at ack P99 ≤ 25 ms",
                    f"{best_rate} ev/s = {share} % of B_sqlite {sqlite_rows_per_s} rows/s",
                    f"≥ {T1_SQLITE_SHARE:.0%} of B_sqlite and ≥ {T1_MIN_RATE:.0f} ev/s (= {need:.0f})", misses)


def cpu(hub: dict[str, Any], relay: dict[str, Any]) -> dict[str, Any]:
    q = ratio(hub["cpuTarget"], relay["cpuTarget"])
    misses = [] if q is not None and q <= T2_CPU_RATIO else [f"{q}× > {T2_CPU_RATIO}×"]
    return _verdict("T2", "hub CPU, busy", f"hub {hub['cpuTarget']} % vs relay {relay['cpuTarget']} % = {q}×",
                    f"≤ {T2_CPU_RATIO}× B_relay", misses)
