"""hub/connect/codex.py and codex_approvals.py: the PermissionRequest hook LineUp writes into Codex's config.toml,
and the trust entry beside it (the real CLI obeys them: tests/integration/test_codex_terminal.py)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from hub.connect import codex_approvals
from hub.connect.codex import HOOK_TIMEOUT_S, merged, without_ours

CONFIG = Path("/home/ada/.codex/config.toml")
HOOK = "/usr/bin/lineup hook codex-permission --credential-file /home/ada/c.json --wait-seconds 900"


def test_the_hook_is_trusted_under_its_own_index_after_the_persons_hooks() -> None:
    mine = ('model = "o4"\n\n[[hooks.PermissionRequest]]\n[[hooks.PermissionRequest.hooks]]\n'
            'type = "command"\ncommand = "my-audit"\n')
    text, _ = merged(mine, ["mcp"], ["lineup", "hook", "codex-notify"], approvals=(CONFIG, HOOK))
    parsed = tomllib.loads(text)
    groups = parsed["hooks"]["PermissionRequest"]
    assert [g["hooks"][0]["command"] for g in groups] == ["my-audit", HOOK]
    assert groups[1]["hooks"][0]["timeout"] == HOOK_TIMEOUT_S
    # Codex's trust key: <file>:<event>:<group index>:<handler index>; the person's own hook is not trusted by us.
    assert parsed["hooks"]["state"] == {f"{CONFIG}:permission_request:1:0": {
        "trusted_hash": codex_approvals.trusted_hash(HOOK, HOOK_TIMEOUT_S)}}
    assert without_ours(text) == mine


def test_the_trust_hash_follows_every_part_of_the_definition() -> None:
    base = codex_approvals.trusted_hash(HOOK, 930)
    assert base.startswith("sha256:") and len(base) == 7 + 64
    assert codex_approvals.trusted_hash(HOOK + " ", 930) != base   # another command
    assert codex_approvals.trusted_hash(HOOK, 931) != base         # another timeout
    assert codex_approvals.trusted_hash(HOOK, 930, matcher="Bash") != base


def test_a_config_whose_hooks_cannot_take_ours_is_refused() -> None:
    inline = 'hooks = { PermissionRequest = [] }\n'
    with pytest.raises(ValueError):
        merged(inline, ["mcp"], ["x"], approvals=(CONFIG, HOOK))
