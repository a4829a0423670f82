"""Starting a session as the person sees it, in real Chromium: New session's agent list, Start → conversation, → output.

Runs a real hub (`lineup serve`) with `[sessions] roots` over a scratch git repository and, on its PATH, a `gemini`
whose `--help` never answers (the hub asks it in the background; the list must not wait for it). In Chromium at
390×844 it measures, on one clock per run:
  - list: New session opened → its agent list on screen (GET /api/sessions/agents behind it);
  - conversation: Start tapped → the session's conversation on screen with its bar (target ≤ 1 s);
  - starting: the bar said "Starting <agent>… N s" in between (yes/no; never Idle);
  - output: Start tapped → the agent's first words in the conversation (target ≤ 5 s with the fake model).

The agent is the scripted ACP agent of the tests (its `stream` reply), or with `--agent claude` the real
claude-code-acp against the fake Anthropic API (bench/sessions.py agent_table).

    python -m bench.session_start [--agent scripted|claude] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.sessions import agent_table, make_repo
from tests.support.hubproc import HubProcess

CHROMIUM = "/usr/bin/chromium"
PHONE = {"width": 390, "height": 844}
EXPECTED = {"scripted": "hello", "claude": "Hello from the fake model"}


def hanging_gemini(folder: Path) -> None:
    folder.mkdir()
    gemini = folder / "gemini"
    gemini.write_text("#!/bin/sh\nexec sleep 600\n")
    gemini.chmod(gemini.stat().st_mode | stat.S_IXUSR)


def measure(kind: str, runs: int) -> dict[str, Any]:
    from playwright.sync_api import expect, sync_playwright

    with tempfile.TemporaryDirectory() as scratch:
        tmp = Path(scratch)
        make_repo(tmp / "code" / "proj")
        hanging_gemini(tmp / "bin")
        lines, model = agent_table(kind, tmp)
        data_dir = tmp / "hub"
        data_dir.mkdir()
        (data_dir / "lineup.toml").write_text("\n".join([
            "[sessions]", f"roots = [{json.dumps(str(tmp / 'code'))}]", "max_running = 8",
            "[sessions.agents.bench]", 'name = "Bench agent"', *lines, ""]))
        hub = HubProcess(data_dir, env={"PATH": f"{tmp / 'bin'}{os.pathsep}{os.environ['PATH']}"}).start()
        rows: list[dict[str, Any]] = []
        try:
            token = httpx.post(hub.base + "/api/setup", json={
                "username": "bench", "displayName": "Bench", "password": "correct horse battery staple",
                "workspaceName": "Bench", "deviceName": "bench"}, timeout=10).json()["token"]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM)
                context = browser.new_context(viewport=PHONE, base_url=hub.base, service_workers="block")
                context.set_default_timeout(120_000)
                context.add_init_script(f"localStorage.setItem('lineup.token', {token!r});")
                page = context.new_page()
                page.goto("/#/inbox")
                page.locator("lineup-top-bar").wait_for()
                for n in range(runs):
                    opened = time.monotonic()
                    page.goto(f"/#/sessions/new?run={n}")
                    steps = page.locator("lineup-new-session section.new-session")
                    steps.locator(".agent-pick[data-agent='bench']").wait_for()
                    listed = time.monotonic() - opened
                    steps.locator(".agent-pick[data-agent='bench']").click()
                    steps.locator(".project-pick").first.click()
                    if steps.get_attribute("data-step") == "where":
                        steps.locator(".step-next").click()
                    if steps.get_attribute("data-step") == "settings":
                        steps.locator(".step-next").click()
                    steps.locator(".first-message").fill(f"stream hello number {n}")
                    tapped = time.monotonic()
                    steps.locator(".start-session").click()
                    bar = page.locator("lineup-session-bar .session-bar")
                    bar.wait_for()
                    on_screen = time.monotonic() - tapped
                    said_starting = bar.get_attribute("data-status") == "starting"
                    expect(page.locator(".stream")).to_contain_text(EXPECTED[kind], timeout=120_000)
                    output = time.monotonic() - tapped
                    rows.append({"listMs": round(listed * 1000), "conversationMs": round(on_screen * 1000),
                                 "saidStarting": said_starting, "outputMs": round(output * 1000)})
                browser.close()
        finally:
            hub.stop()
            if model is not None:
                model.close()
    return {"agent": kind, "runs": rows,
            "median": {key: statistics.median(r[key] for r in rows) for key in ("listMs", "conversationMs", "outputMs")}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", choices=["scripted", "claude"], default="scripted")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    result = measure(args.agent, args.runs)
    print(json.dumps(result, indent=2))
    median = result["median"]
    print(f"agent list {median['listMs']:.0f} ms · conversation on screen {median['conversationMs']:.0f} ms "
          f"(target ≤ 1000) · first output {median['outputMs']:.0f} ms (target ≤ 5000) · said Starting: "
          f"{sum(r['saidStarting'] for r in result['runs'])}/{len(result['runs'])}")


if __name__ == "__main__":
    main()
