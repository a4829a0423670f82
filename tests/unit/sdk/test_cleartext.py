"""hub/sdk/cleartext.py: the SDK sends no credential and no pairing code in clear to a hub beyond this
machine, unless told to; the refusal comes before any connection and names the https address to use. 10.255.255.1
is never connected to: a try would hang until the timeout instead of raising at once."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hub.sdk import AgentClient, Credential, InsecureHub, load_credential, pair, save_credential
from hub.sdk.cleartext import ENV

FAR = "http://10.255.255.1:9527"
CREDENTIAL = Credential(FAR, "agt_x", "ws_x", "lu_agt_SECRET_SENT_IN_CLEAR")


def test_a_plain_hub_beyond_this_machine_gets_no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with pytest.raises(InsecureHub) as refused:
        AgentClient(CREDENTIAL)
    assert "https://10.255.255.1:9528" in str(refused.value) and "SECRET" not in str(refused.value)
    for url in (FAR, "http://hub.example:9527", "http://[fd00::1]:9527"):
        with pytest.raises(InsecureHub):
            asyncio.run(pair(url, "ABCD-EFGH"))


def test_this_machine_https_and_the_explicit_choice_are_allowed(monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    monkeypatch.delenv(ENV, raising=False)
    for url in ("http://127.0.0.1:9527", "http://127.8.9.10:1", "http://localhost:9527", "http://[::1]:9527",
                "https://10.0.0.5:9528"):
        AgentClient(Credential(url, "a", "w", "s"))
    AgentClient(CREDENTIAL, allow_insecure=True)
    monkeypatch.setenv(ENV, "1")
    AgentClient(CREDENTIAL)
    monkeypatch.delenv(ENV)
    # A credential paired over plain http by that choice keeps it in its file; others do not carry the key at all.
    path = tmp_path / "agent.json"
    save_credential(Credential(FAR, "a", "w", "s", insecure=True), path)
    assert json.loads(path.read_text())["insecure"] is True
    AgentClient(load_credential(path))
    save_credential(Credential("http://127.0.0.1:9527", "a", "w", "s"), path)
    assert "insecure" not in json.loads(path.read_text())
