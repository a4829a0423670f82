"""Browser tests: Playwright's Python package driving Debian's Chromium against a real hub and the real demo agent.

Every test gets a fresh hub, in this process like the rest of the suite (tests/conftest.py; its sockets are closed
before its loop stops, so none is left to the garbage collector to warn in a later test). Pages are opened with `open_page(...)`; uncaught script errors and
Content-Security-Policy violations on any page fail the test. Screenshots go to tests/e2e/artifacts/<test>/.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.e2e.main_thread import MainThreadTasks
from tests.support import browsers
from tests.support.hubproc import HubProcess

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

ARTIFACTS = Path(__file__).parent / "artifacts"
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 390, "height": 844}
PASSWORD = "correct-horse-battery"

try:
    from playwright.sync_api import Browser, BrowserContext, Page, Playwright, expect, sync_playwright
except ImportError:  # pragma: no cover - the test extra installs it
    sync_playwright = None  # type: ignore[assignment]  # playwright is optional; the fixture below needs it
else:
    expect.set_options(timeout=10_000)  # CI shares two cores with the hub and the agents


@pytest.fixture(scope="package")
def playwright() -> Iterator[Playwright]:
    """Playwright for the e2e package. Package scope, not session: its sync API keeps an event loop running in the
    main thread while it is open, and pytest-asyncio's tests after this package need it gone."""
    browsers.require_chromium()
    with sync_playwright() as instance:
        yield instance


@pytest.fixture(scope="package")
def browser(playwright: Playwright) -> Iterator[Browser]:
    """One Chromium for the e2e package: Debian's headless shell (tests/support/browsers.py says why)."""
    instance = browsers.launch(playwright)
    yield instance
    instance.close()


@pytest.fixture(scope="package")
def full_browser(playwright: Playwright) -> Iterator[Browser]:
    """The full /usr/bin/chromium, for what the headless shell does not do as a person's browser does
    (notifications); launched only in a worker whose tests ask for it."""
    instance = browsers.launch(playwright, full=True)
    yield instance
    instance.close()


@dataclass
class PageProblems:
    """What went wrong in the pages of one test: uncaught errors and CSP violations fail it."""

    errors: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> None:
        page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        text = message.text
        if message.type == "error" and ("Content Security Policy" in text or "Refused to" in text):
            self.errors.append(f"csp: {text}")


def wait_for_js(page: Page, expression: str, timeout_ms: float = 10_000) -> Any:
    """page.wait_for_function's job, polling with page.evaluate: wait_for_function re-evaluates its string in the
    page, which the app's CSP (script-src 'self', no 'unsafe-eval') refuses whenever the first check is not yet
    true (an EvalError, seen on a loaded machine); evaluate goes through the debugger protocol, which the CSP does
    not govern. Returns the first truthy value."""
    deadline = time.monotonic() + timeout_ms / 1000
    while True:
        value = page.evaluate(expression)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout_ms / 1000:.0f} s: {expression}")
        page.wait_for_timeout(50)


@pytest.fixture
def shots(request: pytest.FixtureRequest) -> Callable[[Page, str], Path]:
    """`shots(page, "name")` saves a full-page screenshot under tests/e2e/artifacts/<test name>/."""
    folder = ARTIFACTS / re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.name)
    folder.mkdir(parents=True, exist_ok=True)

    def take(page: Page, name: str) -> Path:
        path = folder / f"{name}.png"
        page.screenshot(path=str(path), animations="disabled")
        return path

    return take


@pytest.fixture
def main_thread(browser: Browser) -> Iterator[Callable[[], MainThreadTasks]]:
    """`main_thread()`: Chromium's trace of the pages' main-thread tasks, started (tests/e2e/main_thread.py); a trace
    still running when the test ends is stopped."""
    started: list[MainThreadTasks] = []

    def start() -> MainThreadTasks:
        started.append(MainThreadTasks(browser).start())
        return started[-1]

    yield start
    for tasks in started:
        tasks.close()


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """`open_page(hub, viewport=DESKTOP, locale="en-US", token=None)`: a page of its own browser context."""
    contexts: list[BrowserContext] = []
    problems = PageProblems()

    def open_(hub: HubProcess, viewport: ViewportSize = DESKTOP, locale: str = "en-US",
              token: str | None = None, path: str = "/", context: BrowserContext | None = None) -> Page:
        if context is None:
            context = browser.new_context(viewport=viewport, locale=locale, base_url=hub.base,
                                          service_workers="block")
            context.set_default_timeout(10_000)
            contexts.append(context)
            if token:
                # The app keeps its token in localStorage; a script the browser runs before the page's own.
                context.add_init_script(f"localStorage.getItem('lineup.token') || localStorage.setItem('lineup.token', {token!r});")
        page = context.new_page()
        problems.watch(page)
        page.goto(path)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not problems.errors, "\n".join(problems.errors)


@dataclass
class Owner:
    username: str
    password: str
    token: str
    display_name: str


def create_owner(hub: HubProcess, username: str = "ada", display_name: str = "Ada Lovelace",
                 workspace: str = "Demo") -> Owner:
    """First-run setup over HTTP from loopback (no setup code needed), as a person would in the app."""
    answer = httpx.post(hub.base + "/api/setup", json={"username": username, "displayName": display_name,
                                                       "password": PASSWORD, "workspaceName": workspace,
                                                       "deviceName": "test setup"}, timeout=10)
    answer.raise_for_status()
    return Owner(username, PASSWORD, answer.json()["token"], display_name)


def api(hub: HubProcess, token: str, method: str, path: str, body: Any = None) -> Any:
    response = httpx.request(method, hub.base + path, json=body, timeout=10,
                             headers={"Authorization": f"Bearer {token}"})
    response.raise_for_status()
    return response.json()


class DemoAgent:
    """The real demo agent (`python -m hub demo-agent`) as a child process that a test can kill and restart."""

    def __init__(self, hub: HubProcess, folder: Path, code: str, step_s: float) -> None:
        self.hub = hub
        self.folder = folder
        self.code = code
        self.step_s = step_s
        self.credential = folder / "demo-agent.json"
        self.log_path = folder / "demo-agent.log"
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> DemoAgent:
        args = [sys.executable, "-m", "hub", "demo-agent", "--hub", self.hub.base, "--credential-file",
                str(self.credential), "--step-seconds", str(self.step_s)]
        if not self.credential.exists():
            args += ["--code", self.code]
        with open(self.log_path, "a") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, text=True)
        return self

    def kill(self) -> None:
        """SIGKILL, like a crash or a pulled cable: the hub notices the closed socket."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)

    def log(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""


@pytest.fixture
def demo_agents(tmp_path: Path) -> Iterator[Callable[..., DemoAgent]]:
    """`demo_agents(hub, code, step_s=0.3)`: start the demo agent; every one is stopped at the end."""
    started: list[DemoAgent] = []

    def start(hub: HubProcess, code: str, step_s: float = 0.3) -> DemoAgent:
        folder = tmp_path / f"agent-{len(started)}"
        folder.mkdir()
        agent = DemoAgent(hub, folder, code, step_s).start()
        started.append(agent)
        return agent

    yield start
    for agent in started:
        agent.stop()


@pytest.fixture
def asker_agent(tmp_path: Path) -> Iterator[Callable[[HubProcess, str], subprocess.Popen[str]]]:
    """`asker_agent(hub, code)`: tests/e2e/asker_agent.py, which asks a choice, an input and a review."""
    started: list[subprocess.Popen[str]] = []

    def start(hub: HubProcess, code: str) -> subprocess.Popen[str]:
        log = open(tmp_path / "asker.log", "a")  # noqa: SIM115 - the agent process writes it while it runs
        proc = subprocess.Popen([sys.executable, "-m", "tests.e2e.asker_agent", hub.base, code,
                                 str(tmp_path / "asker.json")], stdout=log, stderr=subprocess.STDOUT, text=True,
                                cwd=Path(__file__).parents[2])
        log.close()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
