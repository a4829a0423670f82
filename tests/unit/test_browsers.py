"""Which Chromium the browser tests launch (tests/support/browsers.py): the headless shell, the full browser where asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import browsers


@pytest.fixture
def both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    full, shell = tmp_path / "chromium", tmp_path / "chromium-headless-shell"
    full.touch()
    shell.touch()
    monkeypatch.setattr(browsers, "FULL", str(full))
    monkeypatch.setattr(browsers, "SHELL", str(shell))
    return full, shell


def test_the_headless_shell_unless_the_full_browser_is_asked_for(both: tuple[Path, Path]) -> None:
    full, shell = both
    assert browsers.executable() == str(shell)
    assert browsers.executable(full=True) == str(full)


def test_without_the_shell_every_test_drives_the_full_browser(both: tuple[Path, Path]) -> None:
    full, shell = both
    shell.unlink()
    assert browsers.executable() == str(full)


def test_a_missing_chromium_fails_in_ci_and_skips_elsewhere(both: tuple[Path, Path],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    full, _ = both
    full.unlink()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="Chromium is missing"):
        browsers.require_chromium()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="Chromium is missing"):
        browsers.require_chromium()


def test_a_browser_for_a_test_outside_e2e_is_only_launched_with_chromium_there(both: tuple[Path, Path],
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    full, _ = both
    full.unlink()
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match="Chromium is missing"), browsers.chromium():
        raise AssertionError("no browser without Chromium")
