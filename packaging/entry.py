"""The packaged executable's entry point: `lineup` exactly as the installed command, plus what freezing needs."""

from __future__ import annotations

import os
import sys


def restore_child_environment() -> None:
    """Programs the hub starts (the browser, agents) must not inherit the bundle's private library path.

    PyInstaller's Linux bootloader prepends its unpack folder to LD_LIBRARY_PATH and keeps the original in
    LD_LIBRARY_PATH_ORIG (PyInstaller docs, "Launching external programs from the frozen application"). The
    dynamic loader of this process read the variable at start-up already, so changing os.environ now only
    affects the children: an agent's `python`, `xdg-open`, a browser.
    """
    for name in ("LD_LIBRARY_PATH", "LIBPATH"):
        original = os.environ.pop(name + "_ORIG", None)
        if original is not None:
            os.environ[name] = original
        elif name in os.environ and getattr(sys, "_MEIPASS", None):
            kept = [p for p in os.environ[name].split(os.pathsep) if p and p != sys._MEIPASS]
            if kept:
                os.environ[name] = os.pathsep.join(kept)
            else:
                del os.environ[name]


def attach_windows_console() -> None:
    """A windowed Windows build has no console: started from cmd or PowerShell, write to that one instead.

    A double-click then shows no console window at all (the hub logs to <data dir>/lineup.log and opens the
    browser), while `lineup.exe --version` typed in a terminal still prints there.
    """
    if sys.platform != "win32" or sys.stdout is not None:
        return
    try:
        import ctypes

        if not ctypes.windll.kernel32.AttachConsole(-1):  # ATTACH_PARENT_PROCESS; fails after a double-click
            return
        sys.stdout = open("CONOUT$", "w", encoding="utf-8", errors="replace")  # noqa: SIM115 - for the process
        sys.stderr = open("CONOUT$", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
    except (OSError, AttributeError):
        return


if __name__ == "__main__":
    if getattr(sys, "frozen", False):
        # A plugin using multiprocessing starts this executable again as its worker: let it be one, not a hub.
        import multiprocessing

        multiprocessing.freeze_support()
        restore_child_environment()
        attach_windows_console()
    from hub.cli import main

    main(prog_name="lineup")
