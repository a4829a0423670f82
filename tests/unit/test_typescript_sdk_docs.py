"""The TypeScript SDK's docs say what its code takes: every option of `new AgentClient(…)` and of each `ask*` is named
in docs/sdk-typescript.md's reference (`askApproval`'s `options` was missing), and sdk/typescript/README.md says how to
install the package before its first example (it had no install step)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "sdk" / "typescript" / "src"
REFERENCE = (ROOT / "docs" / "sdk-typescript.md").read_text()


def interface_keys(file: str, name: str) -> list[str]:
    """The property names of `export interface <name> { … }` in the SDK's source."""
    text = (SOURCE / file).read_text()
    body = re.search(rf"export interface {name} \{{(.*?)\n\}}", text, re.S)
    assert body, f"no interface {name} in {file}"
    return re.findall(r"^\s+(\w+)\??:", body[1], re.M)


def reference_row(call: str) -> str:
    """The reference table's row that starts with this call."""
    row = next((line for line in REFERENCE.splitlines() if line.startswith(f"| `{call}")), None)
    assert row, f"docs/sdk-typescript.md has no reference row for {call}"
    return row


@pytest.mark.parametrize(("call", "file", "interface"), [
    ("new AgentClient(", "client.ts", "AgentClientOptions"),
    ("await task.askApproval(", "tasks.ts", "ApprovalOptions"),
    ("await task.askChoice(", "tasks.ts", "ChoiceOptions"),
    ("await task.askInput(", "tasks.ts", "InputOptions"),
    ("await task.askReview(", "tasks.ts", "ReviewOptions"),
])
def test_every_option_the_code_takes_is_in_the_reference(call: str, file: str, interface: str) -> None:
    keys = interface_keys(file, interface)
    signature = reference_row(call).split("|")[1]
    missing = [key for key in keys if not re.search(rf"\b{key}\b", signature)]
    assert not missing, f"docs/sdk-typescript.md's {call}…) row does not name {missing} ({interface})"


def test_the_readme_installs_the_package_before_its_first_example() -> None:
    readme = (ROOT / "sdk" / "typescript" / "README.md").read_text()
    install = readme.find("npm install /path/to/lineup-agents/sdk/typescript")
    example = readme.find('import { AgentClient, pairOrLoad } from "@lineup-agents/sdk";')
    assert 0 <= install < example, "sdk/typescript/README.md shows no install step before its example"
    assert readme.find("npm ci") < install, "the package is built (npm ci) before it is installed from its folder"
