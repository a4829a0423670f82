"""Sessions from the phone (docs/sessions.md): Start → first streamed output, and reading a 2,000-line change.

Runs a real hub (`lineup serve`) with `[sessions] roots` over a scratch git repository, an app socket on loopback,
and measures on one clock:
  - start: POST /api/sessions sent → its 201 answer, and → the first `message.delta` of the agent's reply in the
    session's conversation (target: first streamed output within 5 s). The first session of an agent
    also pairs the hub's agent for it; the next ones show the usual case.
  - changes: a 2,000-line file added and a 1,000-line file rewritten in the session's folder, then
    GET /api/sessions/{id}/changes and GET /api/sessions/{id}/diff of the larger file, each read N times.

The agent is the scripted ACP agent of the tests (tests/support/acp_agent.py: a Python process), or with
`--agent claude` the real claude-code-acp from the npm prefix of the tests (LINEUP_TEST_NPM_PREFIX, default
~/.cache/lineup-agents/npm) against the fake Anthropic API on loopback (tests/support/fake_models).

    python -m bench.sessions [--agent scripted|claude] [--sessions 3] [--reads 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.hubproc import HubProcess  # the same real-process helpers as the tests
from tests.support.lap import LapClient

ROOT = Path(__file__).resolve().parent.parent
NPM_PREFIX = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX") or Path.home() / ".cache" / "lineup-agents" / "npm")


def git(cwd: Path, *args: str) -> None:
    program = shutil.which("git")
    if program is None:
        raise SystemExit("git is not installed")
    subprocess.run([program, *args], cwd=cwd, check=True, capture_output=True, timeout=60)


def make_repo(path: Path) -> None:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Bench")
    git(path, "config", "user.email", "bench@example.com")
    (path / "big.txt").write_text("".join(f"original line {n}\n" for n in range(1000)))
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "Start")


def agent_table(kind: str, tmp: Path) -> tuple[list[str], Any]:
    """The [sessions.agents.bench] lines, and the fake model server to close (or None)."""
    if kind == "scripted":
        command = [sys.executable, str(ROOT / "tests" / "support" / "acp_agent.py")]
        return [f"command = {json.dumps(command)}", 'env = { ACP_TEST_LOG = "' + str(tmp / "acp.jsonl") + '" }'], None
    from tests.support.fake_models import text
    from tests.support.fake_models.anthropic import FakeAnthropic

    binary = NPM_PREFIX / "node_modules" / ".bin" / "claude-code-acp"
    if not binary.exists():
        raise SystemExit(f"{binary} is not installed: `bash .ci/run` installs the agent CLIs there")
    model = FakeAnthropic([text("Hello from the fake model, streaming.") for _ in range(50)])
    home = tmp / "home"
    home.mkdir()
    env = {"HOME": str(home), "ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": "sk-test-not-a-secret",
           "DISABLE_TELEMETRY": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"}
    if os.geteuid() == 0:
        env["IS_SANDBOX"] = "1"
    return [f"command = {json.dumps([str(binary)])}",
            "env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }",
            "init_timeout_s = 60"], model


def summary(values: list[float], unit: str = "ms") -> str:
    ordered = sorted(values)
    return f"n={len(ordered)} median={statistics.median(ordered):.0f} max={ordered[-1]:.0f} {unit}"


async def run(kind: str, sessions: int, reads: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        repo = tmp / "code" / "proj"
        make_repo(repo)
        lines, model = agent_table(kind, tmp)
        data_dir = tmp / "hub"
        data_dir.mkdir()
        (data_dir / "lineup.toml").write_text("\n".join([
            "[sessions]", f"roots = [{json.dumps(str(tmp / 'code'))}]", "max_running = 8",
            "[sessions.agents.bench]", 'name = "Bench agent"', *lines, ""]))
        hub = HubProcess(data_dir).start()
        try:
            token = hub.token()
            app = await LapClient.connect(hub.ws_base, "app", token)
            headers = {"Authorization": f"Bearer {token}"}
            answered_ms, first_output_ms = [], []
            session_id = ""
            async with httpx.AsyncClient(base_url=hub.base, headers=headers, timeout=60) as http:
                for n in range(sessions):
                    start = len(app.frames)
                    sent = time.monotonic()
                    response = await http.post("/api/sessions", json={
                        "agent": "bench", "project": str(repo), "message": f"stream hello number {n}"})
                    response.raise_for_status()
                    answered_ms.append((time.monotonic() - sent) * 1000)
                    conversation_id = response.json()["conversationId"]
                    session_id = response.json()["sessionId"]
                    await app.wait_for(lambda f, c=conversation_id: f["type"] == "message.delta"
                                       and f.get("conversationId") == c, timeout=120, start=start)
                    first_output_ms.append((time.monotonic() - sent) * 1000)
                # A 2,000-line change in the last session's folder: a new file, and a rewritten one.
                (repo / "added.txt").write_text("".join(f"new line {n} with some words in it\n" for n in range(2000)))
                (repo / "big.txt").write_text("".join(f"changed line {n}\n" for n in range(1000)))
                changes_ms, diff_ms = [], []
                files = diff_size = None
                for _ in range(reads):
                    sent = time.monotonic()
                    listed = await http.get(f"/api/sessions/{session_id}/changes", params={"against": "start"})
                    changes_ms.append((time.monotonic() - sent) * 1000)
                    files = listed.json()["files"]
                    sent = time.monotonic()
                    diff = await http.get(f"/api/sessions/{session_id}/diff", params={"path": "added.txt"})
                    diff_ms.append((time.monotonic() - sent) * 1000)
                    diff_size = len(diff.json()["diff"])
            await app.close()
        finally:
            hub.stop()
            if model is not None:
                model.close()
    return {"agent": kind, "startAnsweredMs": [round(v) for v in answered_ms],
            "firstOutputMs": [round(v) for v in first_output_ms], "changesMs": summary(changes_ms),
            "diffMs": summary(diff_ms), "files": files, "diffChars": diff_size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sessions", description=__doc__)
    parser.add_argument("--agent", choices=("scripted", "claude"), default="scripted")
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--reads", type=int, default=10)
    args = parser.parse_args(argv)
    result = asyncio.run(run(args.agent, max(1, min(args.sessions, 8)), max(1, min(args.reads, 100))))
    first = result["firstOutputMs"]
    print(f"Start → answer (ms): {result['startAnsweredMs']}")
    print(f"Start → first streamed output (ms): {first}  (target ≤ 5000: "
          f"{'met' if max(first) <= 5000 else 'NOT met'})")
    print(f"changes of a 2,000-line change ({len(result['files'] or [])} files): {result['changesMs']}")
    print(f"diff of the 2,000-line file ({result['diffChars']} characters): {result['diffMs']}")
    print(json.dumps({k: v for k, v in result.items() if k != "files"}))
    return 0 if max(first) <= 5000 else 1


if __name__ == "__main__":
    sys.exit(main())
