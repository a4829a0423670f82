"""Benchmark harness for the LineUp hub: load, baselines, drills (see bench/README.md)."""
