"""The app on a phone: bytes on the wire for a cold load of the signed-in inbox, and what a repeat visit fetches.

Run: python -m bench.phone_load [--runs 3] [--lighthouse-runs 3]

A real hub on loopback (with a workspace, a paired agent and a few questions waiting, so the inbox has content),
Debian's Chromium through Playwright with a phone's viewport, touch and user agent, and the DevTools protocol's
network events: every response's encoded size (what crossed the wire, compressed) and whether it came from the
network, the HTTP cache or the service worker. Targets: cold load ≤ 150 KB on the wire, a repeat visit
fetches no static file from the network; and, where the Lighthouse CLI is installed, Lighthouse mobile on a cold load
of the same inbox (a profile holding the device's token, nothing cached; `--sign-in-link` adds a run through a
one-time sign-in link, for information): performance ≥ 95, LCP ≤ 2.0 s, accessibility 100.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from tests.support.hubproc import HubProcess

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 3, "is_mobile": True, "has_touch": True,
         "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                       "Chrome/126.0 Mobile Safari/537.36"}
COLD_LIMIT_KB = 150.0
PASSWORD = "correct horse battery staple"


def prepare(hub: HubProcess) -> str:
    """An owner, an agent and three questions waiting: the inbox a person opens on their phone."""
    import asyncio

    from hub.sdk import AgentClient, pair

    setup = httpx.post(hub.base + "/api/setup", json={"username": "ada", "displayName": "Ada", "password": PASSWORD,
                                                      "workspaceName": "Bench", "deviceName": "bench"}, timeout=10)
    setup.raise_for_status()
    token = str(setup.json()["token"])
    code = httpx.post(hub.base + "/api/pairing-codes", json={"name": "Bench agent"}, timeout=10,
                      headers={"Authorization": f"Bearer {token}"}).json()["code"]

    async def ask() -> None:
        client = AgentClient(await pair(hub.base, code, name="Bench agent"))
        await client.start()
        await client.send("conversation.create", {"title": "Release"}, conversationId="c-bench")
        acks = [client.send_nowait("interaction.requested", {"interaction": {
            "id": f"q{n}", "type": "approval", "title": f"Deploy build {n} to production?", "risk": "high",
            "description": "Ships the reviewed changes to every customer."}}, conversationId="c-bench") for n in range(3)]
        await asyncio.gather(*acks)  # stored; the agent then leaves (its questions stay, unanswered)
        await client.close()

    asyncio.run(ask())
    return token


class Wire:
    """Responses seen through CDP: url, encoded bytes, and where they came from."""

    def __init__(self, cdp: Any) -> None:
        self.requests: dict[str, dict[str, Any]] = {}
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.requestServedFromCache", lambda e: self.requests.setdefault(e["requestId"], {}).update(cache=True))
        cdp.send("Network.enable")

    def _response(self, event: dict[str, Any]) -> None:
        response = event["response"]
        entry = self.requests.setdefault(event["requestId"], {})
        entry.update(url=response["url"], status=response["status"], sw=response.get("fromServiceWorker", False),
                     disk=response.get("fromDiskCache", False), type=event.get("type"))

    def _finished(self, event: dict[str, Any]) -> None:
        self.requests.setdefault(event["requestId"], {})["bytes"] = event.get("encodedDataLength", 0)

    def summary(self) -> dict[str, Any]:
        seen = [r for r in self.requests.values() if r.get("url", "").startswith("http")]
        # Static: the app's own files and plugins' files; not the page itself, the API, sockets or /-/ JSON.
        static = [r for r in seen if "/api/" not in r["url"] and "/ws/" not in r["url"] and "/-/" not in r["url"]
                  and r.get("type") not in ("Document",)]
        from_network = [r for r in static if not (r.get("sw") or r.get("disk") or r.get("cache"))]
        return {"requests": len(seen), "bytes": sum(r.get("bytes", 0) for r in seen),
                "staticFromNetwork": len(from_network), "staticTotal": len(static),
                "networkStaticUrls": [r["url"] for r in from_network][:10],
                "largest": [(r["url"].split("/", 3)[-1], r.get("bytes", 0))
                            for r in sorted(seen, key=lambda r: -r.get("bytes", 0))[:8]]}


def run_once(browser: Any, hub: HubProcess, token: str) -> dict[str, Any]:
    context = browser.new_context(base_url=hub.base, **PHONE)
    context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        wire = Wire(cdp)
        started = time.perf_counter()
        page.goto("/#/inbox", wait_until="networkidle")
        page.locator("lineup-inbox h1").wait_for()
        cold_s = time.perf_counter() - started
        # Let a service worker (if the app registers one) finish installing: it fills its cache in the background.
        page.evaluate("Promise.race([navigator.serviceWorker ? navigator.serviceWorker.ready.then(() => true) "
                      ": false, new Promise((done) => setTimeout(() => done(false), 3000))])")
        cold = wire.summary()
        repeat_page = context.new_page()
        repeat_wire = Wire(context.new_cdp_session(repeat_page))
        started = time.perf_counter()
        repeat_page.goto("/#/inbox", wait_until="networkidle")
        repeat_page.locator("lineup-inbox h1").wait_for()
        repeat_s = time.perf_counter() - started
        return {"cold": cold, "coldS": round(cold_s, 3), "repeat": repeat_wire.summary(), "repeatS": round(repeat_s, 3)}
    finally:
        context.close()


def signed_in_profile(hub: HubProcess, token: str, folder: Path) -> Path:
    """A browser profile that holds this device's token, as a phone that signed in before does, with nothing of the
    app in its HTTP cache, service worker or Cache Storage: Lighthouse then measures a cold load of the signed-in
    inbox itself, not a sign-in."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(str(folder), executable_path="/usr/bin/chromium", args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"])
        try:
            page = context.new_page()
            page.goto(hub.base + "/-/health")  # the hub's origin, so the token goes into its localStorage
            page.evaluate("(token) => localStorage.setItem('lineup.token', token)", token)
            page.evaluate("""async () => {
              for (const r of await navigator.serviceWorker.getRegistrations()) await r.unregister();
              for (const key of await caches.keys()) await caches.delete(key);
            }""")
            context.new_cdp_session(page).send("Network.clearBrowserCache")
        finally:
            context.close()
    return folder


def lighthouse(hub: HubProcess, token: str, runs: int, *, sign_in_link: bool = False) -> dict[str, Any] | None:
    """Lighthouse 12 (mobile: simulated slow 4G and a mid-range phone) on a cold load of the signed-in inbox: a
    profile holding the device's token (signed_in_profile), or with `sign_in_link` a fresh profile opening a one-time
    sign-in link (the inbox then waits for the link's redemption too).
    None when the CLI is not installed (`npm install --prefix ~/.cache/lineup-agents/npm lighthouse@12`)."""
    import os
    import subprocess

    prefix = Path(os.environ.get("LINEUP_TEST_NPM_PREFIX", Path.home() / ".cache/lineup-agents/npm"))
    cli = prefix / "node_modules" / ".bin" / "lighthouse"
    if not cli.exists():
        return None
    flags = ("--headless=new --no-sandbox --disable-gpu --disable-background-networking --disable-component-update "
             "--no-first-run")
    scores = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as out:
            if sign_in_link:
                link = httpx.post(hub.base + "/api/sign-in-links", json={}, timeout=10,
                                  headers={"Authorization": f"Bearer {token}"}).json()["url"].split("#", 1)[1]
                target, extra, chrome_flags = f"{hub.base}/#{link}", [], flags
            else:
                profile = signed_in_profile(hub, token, Path(out) / "profile")
                # Lighthouse would clear the origin's storage, the token with it: the profile is emptied above instead.
                target, extra = f"{hub.base}/", ["--disable-storage-reset"]
                chrome_flags = f"{flags} --user-data-dir={profile}"
            report = Path(out) / "lh.json"
            subprocess.run([str(cli), target, "--chrome-path=/usr/bin/chromium", "--quiet",
                            f"--chrome-flags={chrome_flags}", *extra, "--output=json",
                            f"--output-path={report}", "--only-categories=performance,accessibility,best-practices"],
                           check=True, timeout=240, capture_output=True)
            data = json.loads(report.read_text())
        audits = data["audits"]
        scores.append({"performance": round(data["categories"]["performance"]["score"] * 100),
                       "accessibility": round(data["categories"]["accessibility"]["score"] * 100),
                       "lcpS": round(audits["largest-contentful-paint"]["numericValue"] / 1000, 2),
                       "fcpS": round(audits["first-contentful-paint"]["numericValue"] / 1000, 2),
                       "tbtMs": round(audits["total-blocking-time"]["numericValue"])})
    return {"runs": scores, "performance": statistics.median(s["performance"] for s in scores),
            "accessibility": min(s["accessibility"] for s in scores),
            "lcpS": statistics.median(s["lcpS"] for s in scores)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.phone_load", description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lighthouse-runs", type=int, default=3, help="0 to leave Lighthouse out")
    parser.add_argument("--sign-in-link", action="store_true",
                        help="also run Lighthouse on a fresh profile opening a one-time sign-in link (for information)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as folder:
        hub = HubProcess(Path(folder) / "hub").start()
        try:
            token = prepare(hub)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                    "--no-first-run", "--disable-sync"])
                runs = [run_once(browser, hub, token) for _ in range(args.runs)]
                browser.close()
            audit = lighthouse(hub, token, args.lighthouse_runs) if args.lighthouse_runs else None
            link_audit = (lighthouse(hub, token, args.lighthouse_runs, sign_in_link=True)
                          if args.lighthouse_runs and args.sign_in_link else None)
        finally:
            hub.stop()
    cold_kb = [r["cold"]["bytes"] / 1024 for r in runs]
    repeat_static = [r["repeat"]["staticFromNetwork"] for r in runs]
    figures = {"runs": runs, "coldKB": {"median": round(statistics.median(cold_kb), 1), "max": round(max(cold_kb), 1)},
               "coldRequests": runs[0]["cold"]["requests"], "repeatStaticFromNetwork": max(repeat_static),
               "coldS": statistics.median(r["coldS"] for r in runs),
               "repeatS": statistics.median(r["repeatS"] for r in runs)}
    print(json.dumps(figures, indent=1))
    ok_cold = figures["coldKB"]["max"] <= COLD_LIMIT_KB
    ok_repeat = figures["repeatStaticFromNetwork"] == 0
    print(f"{'PASS' if ok_cold else 'MISS'}  cold load of the signed-in inbox  {figures['coldKB']['max']} KB on the "
          f"wire, {figures['coldRequests']} requests  [target <= {COLD_LIMIT_KB:g} KB]")
    print(f"{'PASS' if ok_repeat else 'MISS'}  repeat visit: static files from the network  "
          f"{figures['repeatStaticFromNetwork']}  [target 0]")
    ok = ok_cold and ok_repeat
    if audit is None:
        print("(Lighthouse not installed: its figures are left out)")
    else:
        print(json.dumps(audit))
        ok_perf, ok_lcp = audit["performance"] >= 95, audit["lcpS"] <= 2.0
        print(f"{'PASS' if ok_perf else 'MISS'}  Lighthouse mobile performance (median)  {audit['performance']}  "
              f"[target >= 95]")
        print(f"{'PASS' if ok_lcp else 'MISS'}  Lighthouse LCP (median)  {audit['lcpS']} s  [target <= 2.0 s]")
        print(f"{'PASS' if audit['accessibility'] == 100 else 'MISS'}  Lighthouse accessibility (lowest)  "
              f"{audit['accessibility']}  [target 100]")
        ok = ok and ok_perf and ok_lcp and audit["accessibility"] == 100
    if link_audit is not None:
        print(f"(for information) Lighthouse through a sign-in link: {json.dumps(link_audit)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
