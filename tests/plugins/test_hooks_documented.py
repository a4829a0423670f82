"""Every hook in hub/hookspecs.py has a docstring and a `### `<hook>(` section in plugins/README.md, and back."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from hub import hookspecs

README = Path(__file__).resolve().parents[2] / "plugins" / "README.md"
SECTION = re.compile(r"^### `(\w+)\(([^)]*)\)`", re.MULTILINE)


def hook_specs(module: ModuleType) -> dict[str, Callable[..., object]]:
    """The functions pluggy treats as hook specifications (marked with `@hookspec` of the `lineup` project)."""
    return {name: fn for name, fn in vars(module).items()
            if inspect.isfunction(fn) and hasattr(fn, "lineup_spec")}


def documented(readme: str) -> dict[str, list[str]]:
    """The `### `hook(args)`` sections of the README: hook name -> argument names."""
    return {m.group(1): [a.strip() for a in m.group(2).split(",") if a.strip()] for m in SECTION.finditer(readme)}


def problems(module: ModuleType, readme: str) -> list[str]:
    found = []
    sections = documented(readme)
    specs = hook_specs(module)
    for name, fn in sorted(specs.items()):
        if not (fn.__doc__ or "").strip():
            found.append(f"hook {name} has no docstring in hub/hookspecs.py")
        if name not in sections:
            found.append(f"hook {name} has no `### `{name}(` section in plugins/README.md")
        elif sections[name] != list(inspect.signature(fn).parameters):
            found.append(f"plugins/README.md documents {name}({', '.join(sections[name])}) but the spec takes "
                         f"({', '.join(inspect.signature(fn).parameters)})")
    for name in sorted(set(sections) - set(specs)):
        found.append(f"plugins/README.md documents `{name}(`, which is not a hook in hub/hookspecs.py")
    return found


def test_every_hook_has_a_docstring_and_a_readme_section() -> None:
    specs = hook_specs(hookspecs)
    # The hooks the issue lists; a spec lost by accident (or a marker that stopped working) fails here too.
    assert {"register_tools", "register_runtimes", "register_notifiers", "register_ui_modules", "register_routes",
            "startup", "shutdown", "after_commit"} <= set(specs)
    assert problems(hookspecs, README.read_text(encoding="utf-8")) == []


def test_the_check_notices_a_missing_section_a_missing_docstring_and_a_stale_one() -> None:
    """The check itself can fail: a spec without docstring, an undocumented hook, a section for no hook."""
    fake: Any = ModuleType("fake_hookspecs")  # given its hook specs below

    @hookspecs.hookspec
    def documented_hook(hub: object) -> None:
        """Has a docstring and a section."""

    @hookspecs.hookspec
    def undocumented_hook(hub: object, events: list[object]) -> None:
        pass

    fake.documented_hook = documented_hook
    fake.undocumented_hook = undocumented_hook
    readme = "## The hooks\n\n### `documented_hook(hub)`\n\ntext\n\n### `removed_hook(hub)`\n"
    found = problems(fake, readme)
    assert any("undocumented_hook has no docstring" in p for p in found), found
    assert any("undocumented_hook has no `### `undocumented_hook(` section" in p for p in found), found
    assert any("`removed_hook(`, which is not a hook" in p for p in found), found
    assert not any("documented_hook has no" in p and "undocumented" not in p for p in found), found


@pytest.mark.parametrize("section, expected", [
    ("### `documented_hook(hub)`", []),
    ("### `documented_hook(hub, events)`", ["plugins/README.md documents documented_hook(hub, events)"]),
])
def test_the_check_compares_the_documented_arguments(section: str, expected: list[str]) -> None:
    fake: Any = ModuleType("fake_hookspecs")  # given its hook specs below

    @hookspecs.hookspec
    def documented_hook(hub: object) -> None:
        """Documented."""

    fake.documented_hook = documented_hook
    found = problems(fake, section + "\n")
    assert [p[:len(e)] for p, e in zip(found, expected, strict=False)] == expected and len(found) == len(expected), found
