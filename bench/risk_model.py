"""The risk model's figures and speed: the corpora's verdicts (docs/security.md#how-the-hub-judges-the-risk) and how
long a judgement takes, for everyday commands and for the pathological ones a hostile agent can send.

Run: python -m bench.risk_model [--repeats 5]

In-process, no hub: assess_command is what hub/domain/approvals.py runs in a worker thread before the writer.
Bounded: each input is judged --repeats times.
"""

from __future__ import annotations

import argparse
import statistics
import time

from hub.domain.command_risk import assess_command
from tests.support.risk_corpus import CWD, DANGEROUS, EVERYDAY

PATHOLOGICAL = {
    "$( ×3000 nested": "$(" * 3000 + "rm -rf ~" + ")" * 3000,
    "( ×8000": "(" * 8000 + "rm -rf ~" + ")" * 8000,
    "&& true ×8000 (64 KiB)": "npm run lint " + "&& true " * 8000,
    "6,000 distinct commands": " ; ".join(f"echo step{i}" for i in range(6000)),
    "6,000-stage pipe": " | ".join(f"cat f{i}" for i in range(6000)),
    "300 nested heredocs": "".join(f"bash <<E{i}\n" for i in range(300)) + "rm -rf ~\n"
                           + "".join(f"E{i}\n" for i in reversed(range(300))),
    "sudo ×3000": "sudo " * 3000 + "rm -rf ~",
    "64 KiB of python -c": "python3 -c '" + "x = 1\n" * 10_000 + "'",
    "64 KiB of SQL": "psql -c '" + "SELECT 1; " * 6000 + "'",
    "1,000 writes, then runs": " ; ".join(f"echo x > f{i}; make t{i}" for i in range(1000)),
    "1,500 links followed": " ; ".join(f"ln -s d{i} l{i}; rm -rf l{i}/x" for i in range(1500)),
    "1,000 lines of python": "python3 - <<'EOF'\n" + "\n".join(f"import m{i}; print(m{i}.f([i for i in range(3)]))"
                                                               for i in range(1000)) + "\nEOF",
}


def timed(command: str, repeats: int) -> tuple[float, str]:
    """The median milliseconds of `repeats` judgements, and the level."""
    times, level = [], ""
    for _ in range(repeats):
        started = time.perf_counter()
        level = assess_command(command, CWD).level
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), level


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    dangerous = [(form, assess_command(form.command, CWD)) for form in DANGEROUS]
    high = sum(found.level == "high" for _, found in dangerous)
    named = sum(found.level == "high" and any(form.effect in r for r in found.reasons) for form, found in dangerous)
    everyday = [(command, assess_command(command, CWD)) for command in EVERYDAY]
    levels = {level: sum(found.level == level for _, found in everyday) for level in ("low", "medium", "high")}
    print(f"dangerous forms: {len(dangerous)}; high: {high}; high with the effect named: {named}; twins run in the "
          f"sandbox: {sum(not form.skip for form in DANGEROUS)}")
    print(f"everyday commands: {len(everyday)}; low {levels['low']}, medium {levels['medium']}, high {levels['high']} "
          f"({100 * levels['high'] / len(everyday):.1f} %)")
    for command, found in everyday:
        if found.level == "high":
            print(f"  high: {command}: {found.reasons}")
    everyday_ms = [timed(command, args.repeats)[0] for command in EVERYDAY]
    print(f"everyday judgement: median {statistics.median(everyday_ms):.2f} ms, slowest {max(everyday_ms):.2f} ms")
    for name, command in PATHOLOGICAL.items():
        milliseconds, level = timed(command, args.repeats)
        print(f"  {name:26} {len(command):>7,} chars  {milliseconds:8.1f} ms  {level}")


if __name__ == "__main__":
    main()
