"""`lineup keep -- COMMAND …`: keep an agent's program running, starting it again when it crashes or is killed."""

# An agent built on the SDK resumes where it left off when it is started again (its credential and its task state are
# on disk), but something has to start it: the person at its machine. Away from it (the point of LineUp), a crash
# at 3 a.m. waited for the morning. This keeper is that something, as systemd's Restart=on-failure or pm2 would be,
# in the one command the connect dialog already shows: it starts the program, and when it ends by a crash or a
# signal from outside, starts it again after a pause that grows while it keeps crashing (1 s, 2 s, 4 s … 30 s; back
# to 1 s once it has run a minute). It stops for good when the program ends on its own with exit code 0, when the
# person stops the keeper (Ctrl-C, SIGTERM: passed on to the program, which gets its time to end), or when the
# program cannot start or crashes CRASH_LOOP times in a row within a minute each (a mistake in the command, which
# starting again would not mend): then it says so and exits with the program's code.

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import click

FIRST_PAUSE_S = 1.0
LONGEST_PAUSE_S = 30.0
STEADY_S = 60.0        # a program that ran this long is well: the next pause starts at FIRST_PAUSE_S again
CRASH_LOOP = 5         # crashes in a row, each before STEADY_S: the keeper gives up
STOP_GRACE_S = 10.0    # how long a program asked to stop gets before it is killed


def ended_how(code: int) -> str:
    """A program's end in words: "exited with code 1", "was killed (SIGKILL)"."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed ({name})"
    return f"exited with code {code}"


@dataclass
class Keeper:
    """Runs `command` until it ends well, the keeper is stopped, or it crash-loops. `say` prints a line for the
    person; `sleep` and `clock` are the real ones outside tests of the policy."""

    command: Sequence[str]
    say: Callable[[str], None]
    env: dict[str, str] | None = None   # the program's environment (None: the keeper's own)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    stopping: bool = False
    child: subprocess.Popen[bytes] | None = None
    crashes: int = 0
    pause: float = FIRST_PAUSE_S
    starts: int = 0

    def run(self) -> int:
        name = os.path.basename(self.command[0])
        while True:
            started = self.clock()
            try:
                # Its own process group: Ctrl-C in the terminal reaches the keeper alone, which passes it on once.
                self.child = subprocess.Popen(list(self.command), process_group=0, env=self.env)
            except OSError as exc:
                self.say(f"lineup keep: cannot start {name}: {exc.strerror or exc}")
                return 127
            self.starts += 1
            code = self.child.wait()
            self.child = None
            if self.stopping:
                return 0 if code in (0, -signal.SIGTERM, -signal.SIGINT) else code
            if code == 0:
                self.say(f"lineup keep: {name} ended on its own (exit code 0); not starting it again.")
                return 0
            ran = self.clock() - started
            if ran >= STEADY_S:
                self.crashes, self.pause = 0, FIRST_PAUSE_S
            self.crashes += 1
            if self.crashes >= CRASH_LOOP:
                self.say(f"lineup keep: {name} {ended_how(code)} {self.crashes} times in a row, each within "
                         f"{STEADY_S:.0f} s of starting: not starting it again. Run the command by itself to see why.")
                return code if code > 0 else 1
            self.say(f"lineup keep: {name} {ended_how(code)} after {ran:.0f} s; starting it again in "
                     f"{self.pause:.0f} s (it resumes where it left off).")
            self._wait(self.pause)
            if self.stopping:
                return 0
            self.pause = min(self.pause * 2, LONGEST_PAUSE_S)

    def _wait(self, seconds: float) -> None:
        deadline = self.clock() + seconds
        while not self.stopping and self.clock() < deadline:
            self.sleep(min(0.1, max(0.0, deadline - self.clock())))

    def stop(self, signum: int) -> None:
        """The person stops the keeper: the program is asked to stop the same way, and is not started again."""
        self.stopping = True
        child = self.child
        if child is not None and child.poll() is None:
            child.send_signal(signum)
            # A program that does not end when asked is ended after STOP_GRACE_S.
            timer = threading.Timer(STOP_GRACE_S, _kill_if_running, (child,))
            timer.daemon = True
            timer.start()


def _kill_if_running(child: subprocess.Popen[bytes]) -> None:
    if child.poll() is None:
        child.kill()


# What the connect dialog's one line hands the program: the SDK's pair_or_load reads these when it is given no
# address or code of its own (hub/sdk/credentials.py, sdk/typescript/src/credentials.ts).
PAIRING_ENV = {"hub": "LINEUP_HUB", "code": "LINEUP_CODE", "tls_fingerprint": "LINEUP_TLS_FINGERPRINT"}


def program_env(given: dict[str, str | None]) -> dict[str, str] | None:
    """The program's environment: the keeper's own, with the pairing values given on the command line added."""
    extra = {PAIRING_ENV[name]: value for name, value in given.items() if value}
    return {**os.environ, **extra} if extra else None


@click.command("keep", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--hub", "hub_url", metavar="URL", help="The hub's address, handed to the program as LINEUP_HUB.")
@click.option("--code", metavar="CODE", help="A pairing code, handed to the program as LINEUP_CODE (used once: "
              "later starts load the credential it made).")
@click.option("--fingerprint", "tls_fingerprint", metavar="SHA256",
              help="The SHA-256 fingerprint of the hub's TLS certificate to pin, as LINEUP_TLS_FINGERPRINT.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def keep(hub_url: str | None, code: str | None, tls_fingerprint: str | None, command: tuple[str, ...]) -> None:
    """Keep an agent's program running: start COMMAND, and start it again whenever it crashes or is killed.

    \b
    Example: lineup keep --hub http://192.168.1.20:8765 --code ABCD-EFGH -- python my_agent.py
    --hub, --code and --fingerprint reach the program as LINEUP_HUB, LINEUP_CODE and LINEUP_TLS_FINGERPRINT,
    which the SDK's pair_or_load reads when the program gives it no address or code of its own.
    It stops when the program ends with exit code 0, when you press Ctrl-C, or after 5 crashes in a row each
    within a minute of starting."""
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise click.UsageError("say which program to keep running: lineup keep -- python my_agent.py")
    env = program_env({"hub": hub_url, "code": code, "tls_fingerprint": tls_fingerprint})
    keeper = Keeper(command, say=lambda line: click.echo(line, err=True), env=env)
    asked: list[int] = []

    def on_signal(signum: int, _frame: object) -> None:
        asked.append(signum)
        keeper.stop(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    click.echo(f"lineup keep: running {shlex.join(command)}; it is started again if it crashes. Ctrl-C stops it.",
               err=True)
    sys.exit(keeper.run())
