"""The TypeScript SDK (sdk/typescript, docs/sdk-typescript.md) passes its own tests against a real hub from this
checkout: `npm test` there builds the package and its tests (tsc, strict) and runs them with Node's test runner, each
file starting `python -m hub serve` processes with this interpreter (the conformance scenarios of the Python SDK:
resume after kill -9, duplicate envelope ids, an answer given while the agent was down, a throwing handler,
cancellation; TLS pinning, a hostile hub, the README's ten-line agent).

Needs Node and the package's dependencies (`npm ci` in sdk/typescript, which .ci/run does): skipped without them on a
developer's machine, failed in CI (CI set)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest

from tests.support.needs import missing

PACKAGE = Path(__file__).resolve().parents[2] / "sdk" / "typescript"


def need(what: str) -> NoReturn:
    missing(f"{what}: the TypeScript SDK's tests need it; .ci/run installs it before the suite")


@pytest.mark.hub_process
@pytest.mark.timeout(600)
def test_the_typescript_sdk_passes_npm_test_against_a_real_hub() -> None:
    npm = shutil.which("npm")
    if shutil.which("node") is None or npm is None:
        need("node and npm are not installed")
    assert npm is not None
    if not (PACKAGE / "node_modules" / "typescript").is_dir() or not (PACKAGE / "node_modules" / "ws").is_dir():
        need("the TypeScript SDK's dependencies are not installed (run `npm ci` in sdk/typescript)")
    env = {**os.environ, "LINEUP_PYTHON": sys.executable, "NO_COLOR": "1"}
    env.pop("LINEUP_HUB_DIR", None)  # the hub of this checkout
    result = subprocess.run([npm, "test", "--silent"], cwd=PACKAGE, env=env, capture_output=True, text=True,
                            timeout=540, check=False)
    summary = "\n".join(line for line in result.stdout.splitlines()
                        if line.startswith(("# tests", "# pass", "# fail", "# cancelled", "# duration")))
    assert result.returncode == 0, f"npm test failed ({result.returncode}):\n{summary}\n{_failures(result.stdout)}\n" \
                                   f"{result.stderr[-4000:]}"
    assert "# fail 0" in result.stdout and "# pass " in result.stdout, summary


def _failures(tap: str) -> str:
    """The `not ok` blocks of the TAP output (what failed and why), at most 12,000 characters."""
    lines = tap.splitlines()
    out: list[str] = []
    for i, line in enumerate(lines):
        if line.lstrip().startswith("not ok"):
            out.extend(lines[i:i + 30])
    return "\n".join(out)[:12000]
