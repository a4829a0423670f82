"""Hermes and OpenClaw run by a real hub over ACP (`lineup agents add hermes|openclaw`), with the real packages.

Hermes (`hermes-agent[acp]` from PyPI, in a venv of its own: it pins agent-client-protocol 0.9) and OpenClaw
(`openclaw` from npm, run by Node 24 from npm, bridging to the file's one OpenClaw Gateway on loopback,
tests/support/openclaw_lean.py) talk to tests/support/fake_models/openai_chat.py: a task saying `RUN: <command>`
makes the agent call its shell tool; the permission request arrives as an approval card with the agent's own
options, and the person's answer decides whether the command runs. Hermes denies by itself after 60 s and tells
the client nothing: its card carries that deadline and is withdrawn when it passes (the one test that waits the real
minute), and the task does not count as succeeded. An OpenClaw Gateway that crashes while a task waits, and comes
back, takes the next task as usual.

`.ci/run` installs both (cached); a test skips when they are missing, except in CI, where that is a failure.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp", reason="the acp runtime needs the agent-client-protocol package")

from tests.integration.conftest import Connect
from tests.integration.test_real_agents import Agent, RealAgentHub, base_env, start_hub
from tests.support.fake_models.openai_chat import FakeChat
from tests.support.openclaw_gateway import Gateway, need
from tests.support.openclaw_lean import lean_gateway

pytestmark = pytest.mark.real_agent

HERMES_VENV = Path(os.environ.get("LINEUP_TEST_HERMES_VENV") or Path.home() / ".cache" / "lineup-agents" / "hermes")
TURN_S = 90.0


# ---- Hermes -------------------------------------------------------------------------------------------------

def hermes_agent(tmp_path: Path, model: FakeChat) -> Agent:
    binary = need(HERMES_VENV / "bin" / "hermes", "hermes-agent[acp]")
    home, work = tmp_path / "hermes-home", tmp_path / "hermes-work"
    (home / ".hermes").mkdir(parents=True)
    work.mkdir()
    # `manual`: every command on Hermes's dangerous list asks (its default, smart, has a model screen it first).
    (home / ".hermes" / "config.yaml").write_text(
        f"model:\n  provider: custom\n  default: fake-model\n  base_url: {model.base_url}\n  api_key: fake-key\n"
        "approvals:\n  mode: manual\n")
    # No lazy installs: Hermes otherwise pip-installs optional packages into its (shared, cached) venv on first use.
    env = {**base_env(home), "HERMES_HOME": str(home / ".hermes"), "HERMES_DISABLE_LAZY_INSTALLS": "1"}
    return Agent("Hermes", [str(binary), "acp"], env, model, lambda *_: None, home, work)  # type: ignore[arg-type]


@pytest.fixture
def chat() -> Iterator[FakeChat]:
    model = FakeChat()
    yield model
    model.close()


async def hermes_hub(hub_factory: Any, lap: Connect, tmp_path: Path, chat: FakeChat) -> RealAgentHub:
    # The preset's own option: Hermes denies by itself after 60 s (hub/agents_add.py).
    return await start_hub(hub_factory, lap, hermes_agent(tmp_path, chat), "permission_timeout_s = 60")


async def test_hermes_asks_with_its_own_options_and_the_answer_decides(
        hub_factory: Any, lap: Connect, tmp_path: Path, chat: FakeChat) -> None:
    h = await hermes_hub(hub_factory, lap, tmp_path, chat)
    for task_id, answer in (("t1", "allow_once"), ("t2", "reject_once")):  # one hub and agent for both answers
        junk = h.agent.work / f"junk-{task_id}"
        junk.mkdir()
        await h.task(task_id, f"RUN: rm -rf {junk}")
        card = await h.card(task_id)
        # Hermes's own five options, worded as Hermes words them; "for session" is not "always".
        assert [(o["id"], o["label"]) for o in card["options"]] == [
            ("allow_once", "Allow once"), ("allow_session", "Allow for session"), ("allow_always", "Allow always"),
            ("reject_once", "Deny"), ("reject_always", "Deny always")], card["options"]
        session = next(o for o in card["options"] if o["id"] == "allow_session")
        assert "session" in session["description"] and "stops asking" not in session["description"]
        assert card["approves"][0] == {**card["approves"][0], "kind": "command", "command": f"rm -rf {junk}"}
        # A folder in the agent's work folder under /tmp: medium, saying what it deletes (the hub's own judgement).
        assert card["risk"] == "medium" and card["riskReasons"][0].startswith("deletes "), card
        left = datetime.fromisoformat(card["expiresAt"].replace("Z", "+00:00")) - datetime.now(UTC)
        assert 40 <= left.total_seconds() <= 61, card["expiresAt"]  # the 60 s deadline, shown from the start
        assert junk.exists()
        await h.answer(card, answer)
        await h.ended(task_id, "succeeded")
        assert junk.exists() == (answer == "reject_once"), answer


async def test_hermes_stopping_after_60_s_ends_its_card(hub_factory: Any, lap: Connect, tmp_path: Path,
                                                        chat: FakeChat) -> None:
    """Nobody answers: Hermes denies by itself at 60 s. The card ends as withdrawn, saying so, and cannot be
    approved; the task, whose command Hermes denied, ends failed saying why (it was shown as succeeded)."""
    h = await hermes_hub(hub_factory, lap, tmp_path, chat)
    junk = h.agent.work / "junk"
    junk.mkdir()
    await h.task("t1", f"RUN: rm -rf {junk}")
    card = await h.card("t1")
    closed = await h.app.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                  and f["payload"]["interactionId"] == card["id"], 75)
    assert closed["payload"]["outcome"] == "cancelled" and closed["payload"]["response"]["cause"] == "withdrawn"
    assert "60 s" in closed["payload"]["response"]["reason"]
    late = await h.app.request("interaction.respond", {"interactionId": card["id"],
                                                       "response": {"optionId": "allow_once"}})
    assert late["type"] == "system.error" and "withdrew" in late["payload"]["message"]
    ended = await h.ended("t1", "failed", timeout=30)
    assert ended["error"]["code"] == "approval_timed_out", ended
    assert ended["error"]["message"].startswith("Nobody answered in time, so the agent denied this request and did "
                                                "not run it: “"), ended
    assert "60 s" in ended["error"]["message"], ended
    assert junk.exists()  # Hermes denied it


# ---- OpenClaw ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def openclaw_chat() -> Iterator[FakeChat]:
    """The fake model of the file's one OpenClaw Gateway (its config names the model's address)."""
    model = FakeChat()
    yield model
    model.close()


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory, openclaw_chat: FakeChat) -> Iterator[Gateway]:
    """One Gateway for the file's OpenClaw tests, each with a hub and `openclaw acp` bridge of its own: a Gateway
    start and its first agent turn cost ~25 CPU-s, most of what a test paid when each started its own. The crash test
    kills it and starts it again, which leaves it running; each test's files and approvals are its own, and each
    resolves every approval it was asked."""
    started = lean_gateway(tmp_path_factory.mktemp("openclaw"), openclaw_chat)
    started.start()
    yield started
    started.stop()


async def test_openclaw_asks_through_its_gateway_and_the_answer_decides(
        hub_factory: Any, lap: Connect, gateway: Gateway, openclaw_chat: FakeChat) -> None:
    agent = Agent("OpenClaw", [str(gateway.binary), "acp"], gateway.env, openclaw_chat,
                  lambda *_: None, gateway.home, gateway.work)  # type: ignore[arg-type]
    h = await start_hub(hub_factory, lap, agent)
    for task_id, answer in (("t1", "allow_once"), ("t2", "reject_once")):  # one gateway, hub and agent for both
        made = gateway.work / f"made-{task_id}.txt"
        await h.task(task_id, f"RUN: touch {made}")
        card = await h.card(task_id)
        assert [(o["id"], o["label"]) for o in card["options"]] == [("allow_once", "Allow once"),
                                                                  ("reject_once", "Deny")]
        assert card["approves"][0]["command"] == f"touch {made}"
        assert not made.exists()
        await h.answer(card, answer)
        await h.ended(task_id, "succeeded")
        assert made.exists() == (answer == "allow_once"), answer


@pytest.mark.timeout(600)
async def test_openclaw_whose_gateway_crashed_and_restarted_takes_the_next_task(
        hub_factory: Any, lap: Connect, gateway: Gateway, openclaw_chat: FakeChat) -> None:
    """The Gateway is killed while a task's card waits, then started again. The task ends saying the link to the
    Gateway was lost (it failed with `Internal error {'details': 'Gateway disconnected: 1006: '}`), its card ends, and
    the next task, sent as soon as the Gateway listens, asks on the phone and runs. Before, it failed with "gateway not
    connected" (`openclaw acp` reconnects only about 5 s after a restart): the hub now replaces the bridge and sends
    the prompt again, since it never left the bridge. And it goes to a new ACP session: the Gateway reruns the
    interrupted turn of the old one by itself, a prompt there was queued behind that rerun, the bridge counted it done
    at once (the task "succeeded", nothing ran) and its approval waited in the Gateway where no card showed it."""
    agent = Agent("OpenClaw", [str(gateway.binary), "acp"], gateway.env, openclaw_chat,
                  lambda *_: None, gateway.home, gateway.work)  # type: ignore[arg-type]
    h = await start_hub(hub_factory, lap, agent)
    first = gateway.work / "made-while-it-crashed.txt"
    await h.task("t1", f"RUN: touch {first}")
    card = await h.card("t1")
    assert gateway.process is not None
    os.killpg(gateway.process.pid, signal.SIGKILL)  # a crash: its sockets close with 1006
    await asyncio.to_thread(gateway.process.wait, 10)
    ended = await h.ended("t1", "failed", timeout=60)
    assert ended["error"]["code"] == "agent_disconnected", ended
    assert "Gateway disconnected" in ended["error"]["message"] and "Send the task again" in ended["error"]["message"]
    closed = await h.app.wait_for(lambda f: f["type"] == "interaction.resolved" and f.get("sequence")
                                  and f["payload"]["interactionId"] == card["id"], 30)
    assert closed["payload"]["outcome"] == "cancelled", closed["payload"]

    await asyncio.to_thread(gateway.start)
    after = gateway.work / "made-after-the-restart.txt"
    got: dict[str, Any] = {}
    for task_id in ("t2", "t3"):
        await h.task(task_id, f"RUN: touch {after}")
        got = await h.app.wait_for(lambda f, task_id=task_id: f.get("sequence") is not None and (
            f.get("taskId") == task_id) and (f["type"] == "interaction.requested" or (
                f["type"] == "task.status_changed" and f["payload"]["status"] in ("failed", "succeeded"))), 180)
        # On a busy machine the restarted Gateway's own session-store upkeep can fail the first turn inside OpenClaw
        # ("SQLite automatic maintenance … changed before commit"): that task fails saying so, and the next one runs.
        # Any other end is the fault this test is about.
        error = str(got["payload"].get("error", {}).get("message", "")) if got["type"] == "task.status_changed" else ""
        if task_id == "t2" and "SQLite automatic maintenance" in error:
            continue
        break
    assert got["type"] == "interaction.requested", (got, gateway.tail(3000))
    card = dict(got["payload"]["interaction"])
    assert card["approves"][0]["command"] == f"touch {after}"
    await h.answer(card, "allow_once")
    await h.ended(task_id, "succeeded")
    assert after.exists() and not first.exists()
    pending = json.loads((await asyncio.to_thread(gateway.openclaw, "approvals", "pending", "--json")).stdout)
    assert pending.get("approvals") == [], pending  # none left waiting unseen
