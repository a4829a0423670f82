"""ReDoS (docs/security.md#agents): an agent's `input` pattern can never freeze the hub.

A real `lineup serve`: patterns RE2 cannot run (backreferences, lookaround, too complex) are refused when asked, by
`interaction.requested` and by the `input` human tool, with `invalid_payload` naming the pattern; patterns that are
catastrophic for a backtracking engine (`(.|.)*Z`, `(a+)+$`) are valid RE2 and are checked in linear time: a long
non-matching answer is refused at once while `/-/health` keeps answering.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest

from tests.integration.conftest import Connect
from tests.support.hubproc import HubProcess
from tests.support.live import Team, make_team, request_fresh

# Valid RE2, exponential for a backtracking engine (Python's re, the browser's RegExp) on the answers below.
CATASTROPHIC = [("(.|.)*Z", "a" * 9000 + "!", "a" * 40 + "Z"),
                ("(a+)+$", "a" * 9000 + "!", "a" * 40),
                ("(x+x+)+y", "x" * 9000, "xxy")]
# What RE2 cannot run, or could only run slowly: refused when the question is asked.
REFUSED = [r"(\w)\1", r"(?=\d)\d+", r"(?<!x)y", r"(a{0,999}){0,999}", r".*a.{900}"]


@pytest.fixture
async def team(hub: HubProcess, owner_token: str, lap: Connect) -> Team:
    return await make_team(hub, owner_token, lap)


def ask_input(pattern: str, interaction_id: str | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "input", "title": "Which code?", "pattern": pattern}
    if interaction_id:
        spec["id"] = interaction_id
    return {"interaction": spec}


async def test_a_pattern_re2_cannot_run_is_refused_when_asked_naming_it(team: Team) -> None:
    for pattern in REFUSED:
        answer = await team.agent.request("interaction.requested", ask_input(pattern),
                                          conversationId=team.conversation_id)
        assert answer["type"] == "system.error", (pattern, answer)
        assert answer["payload"]["code"] == "invalid_payload"
        assert pattern in answer["payload"]["message"], answer["payload"]
    # The `input` human tool creates the same kind of question: the same refusal, the call is not stored.
    answer = await team.agent.request("tool.call", {"call_id": "ask-1", "name": "input", "arguments": {
        "question": "Which code?", "pattern": r"(\w)\1"}}, conversationId=team.conversation_id)
    assert answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload", answer
    assert r"(\w)\1" in answer["payload"]["message"]
    assert (await team.api.get("/api/interactions"))["interactions"] == []


async def probe_health(base: str, work: asyncio.Future[Any]) -> list[float]:
    """GET /-/health again and again until `work` is done: each latency (an error or a 2 s wait fails the test)."""
    latencies: list[float] = []
    async with httpx.AsyncClient(base_url=base, timeout=2.0) as http:
        while True:
            start = time.monotonic()
            response = await http.get("/-/health")
            latencies.append(time.monotonic() - start)
            assert response.status_code == 200, response.text
            if work.done():
                return latencies
            await asyncio.sleep(0.02)


async def test_a_catastrophic_pattern_is_checked_in_linear_time_and_the_hub_keeps_answering(team: Team) -> None:
    for n, (pattern, bad, good) in enumerate(CATASTROPHIC):
        interaction_id = f"evil-{n}"
        await team.ask(None, ask_input(pattern, interaction_id)["interaction"])
        started = time.monotonic()
        respond = asyncio.ensure_future(request_fresh(team.app, "interaction.respond", {
            "interactionId": interaction_id, "response": {"text": bad}}))
        latencies = await asyncio.wait_for(probe_health(team.hub.base, respond), 15)
        answer = await respond
        elapsed = time.monotonic() - started
        assert answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload", answer
        assert pattern in answer["payload"]["message"]
        assert elapsed < 2.0, f"{pattern}: refused after {elapsed:.2f} s"
        assert max(latencies) < 1.0, f"{pattern}: /-/health took {max(latencies):.2f} s"
        # The pattern still works: a matching answer is taken, and the agent receives it.
        ack = await request_fresh(team.app, "interaction.respond", {"interactionId": interaction_id,
                                                                    "response": {"text": good}})
        assert ack["type"] == "system.ack", ack
        resolved = await team.agent.event("interaction.resolved", interactionId=interaction_id)
        assert resolved["payload"]["response"]["text"] == good


async def test_an_answer_too_long_to_check_against_a_pattern_is_refused(team: Team) -> None:
    await team.ask(None, ask_input("[a-z]+", "long")["interaction"])
    answer = await request_fresh(team.app, "interaction.respond", {"interactionId": "long",
                                                                    "response": {"text": "a" * 10_001}})
    assert answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload", answer
    assert "at most 10000 characters" in answer["payload"]["message"]
