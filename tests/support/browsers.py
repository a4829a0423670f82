"""Which of Debian's Chromium builds a browser test drives, and how it is launched (one place for the suite).

Two builds of the same Chromium come from Debian. The suite drives `chromium-headless-shell`, Chromium's own
headless browser (the one Playwright itself uses for headless runs): the same Blink, V8, network stack, storage and
Content-Security-Policy as the browser, without the browser's window and its UI layers. It costs about 40 % less CPU
per test than `/usr/bin/chromium` in its headless mode (bench/README.md, "The test suite"), and the suite is
CPU-bound on two cores. The full browser (`full=True`) is driven where the shell is not the browser a person has:
browser notifications, which the shell refuses whatever the permission. Without the shell installed, every test
drives the full browser (slower, the same results).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.needs import missing

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

FULL = os.environ.get("LINEUP_E2E_CHROMIUM", "/usr/bin/chromium")
SHELL = os.environ.get("LINEUP_E2E_HEADLESS_SHELL", "/usr/bin/chromium-headless-shell")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


def executable(full: bool = False) -> str:
    """The Chromium to launch: the headless shell unless `full` is asked for or the shell is not installed."""
    if not full and Path(SHELL).exists():
        return SHELL
    return FULL


def require_chromium() -> None:
    """Skip the test on a developer's machine without Playwright or Chromium; fail it in CI, which installs both."""
    problem = None
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:  # pragma: no cover - the test extra installs it
        problem = "the playwright package is missing (pip install -e '.[test]')"
    else:
        if not Path(FULL).exists():
            problem = f"Chromium is missing at {FULL} (apt-get install chromium chromium-headless-shell; .ci/run does it)"
    if problem:
        missing(problem)


def launch(playwright: Playwright, full: bool = False) -> Browser:
    """A headless Chromium with the suite's flags (no sandbox: tests run as root in CI; no GPU; nothing phoning home)."""
    return playwright.chromium.launch(executable_path=executable(full), headless=True, args=ARGS)


@contextlib.contextmanager
def chromium(full: bool = False) -> Iterator[Browser]:
    """A launched Chromium for a test outside tests/e2e (whose conftest shares one per package): skipped or failed as
    `require_chromium` says, and closed, with its Playwright, at the end."""
    require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright, full)
        try:
            yield browser
        finally:
            browser.close()
