"""The TypeScript SDK's types are the hub's schema: sdk/typescript/src/protocol.ts is generated from `lineup schema`
(sdk/typescript/scripts/schema.mjs), so a change to a payload, an event type or a rule in hub/protocol/ fails here
until `npm run schema` is run in sdk/typescript and the result committed. The generator runs on Node; without Node the
test is skipped on a developer's machine and fails in CI (CI set), where Node is installed by .ci/run."""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from hub.protocol import vocabulary
from hub.protocol.schema import protocol_schema
from tests.support.needs import missing

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "sdk" / "typescript"
SCRIPT = PACKAGE / "scripts" / "schema.mjs"


def node() -> str:
    found = shutil.which("node")
    if found is None:
        missing("node is not installed (the TypeScript SDK's schema check needs it): .ci/run installs it")
    return found


def check(schema: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([node(), str(SCRIPT), "--check", "--schema", "-"], input=json.dumps(schema),
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_committed_typescript_types_match_the_hubs_schema() -> None:
    result = check(protocol_schema())
    assert result.returncode == 0, result.stderr


def test_a_changed_schema_fails_the_check() -> None:
    """The check has teeth: a payload field renamed in the hub's schema is a difference, named with its line."""
    schema = protocol_schema()
    changed = copy.deepcopy(schema)
    fields = changed["$defs"]["TaskStatusChanged"]["properties"]
    fields["percent"] = fields.pop("progress")
    result = check(changed)
    assert result.returncode == 1
    assert "does not match the hub's schema" in result.stderr and "percent" in result.stderr


def test_the_sdks_task_statuses_are_the_hubs_vocabulary() -> None:
    """The statuses the TypeScript SDK treats as finished and active are hub/protocol/vocabulary.py's."""
    source = (PACKAGE / "src" / "tasks.ts").read_text()

    def listed(name: str) -> set[str]:
        found = re.search(rf"export const {name}: readonly TaskStatus\[\] = \[([^\]]*)\]", source)
        assert found, f"{name} not found in sdk/typescript/src/tasks.ts"
        return set(re.findall(r'"([a-z_]+)"', found.group(1)))

    assert listed("TERMINAL_TASK_STATUSES") == set(vocabulary.TERMINAL_TASK_STATUSES)
    assert listed("ACTIVE_TASK_STATUSES") == set(vocabulary.ACTIVE_TASK_STATUSES)
