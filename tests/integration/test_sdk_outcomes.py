"""What an answer says: a choice returns the option's id, and `Outcome.option_label` / `option_labels` give the
label the person picked (docs/sdk.md "Asking the person")."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest

from hub.sdk import HubError, Outcome, TaskHandle
from tests.integration.test_sdk import World, world  # noqa: F401 - `world` is the fixture
from tests.support.typed import FramePredicate


async def test_a_choice_returns_the_option_id_and_its_label(world: World) -> None:
    client = world.client()
    outcomes: dict[str, Outcome] = {}

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        outcomes["colour"] = await task.ask_choice("Colour?", ["red", "blue", "green"], interaction_id="i-colour")
        sizes = [{"id": "s", "label": "Small"}, {"id": "m", "label": "Medium"}, {"id": "l", "label": "Large"}]
        outcomes["sizes"] = await task.ask_choice("Sizes?", sizes, multiple=True, interaction_id="i-sizes")
        outcomes["deploy"] = await task.ask_approval("Deploy?", interaction_id="i-deploy")
        outcomes["again"] = await task.ask_choice("Colour?", ["red", "blue", "green"], interaction_id="i-colour")
        await task.succeed("asked")

    await client.start(timeout_s=10)
    await world.new_task("t1")
    answers: dict[str, dict[str, Any]] = {"i-colour": {"optionId": "o2"}, "i-sizes": {"optionIds": ["s", "l"]},
                                          "i-deploy": {"optionId": "approve"}}
    for interaction_id, response in answers.items():
        await world.app.wait_for(cast(FramePredicate, lambda f, i=interaction_id: f["type"] == "interaction.requested"
                                      and f.get("sequence") is not None and f["payload"]["interaction"]["id"] == i))
        await world.app.ok("interaction.respond", {"interactionId": interaction_id, "response": response})
    await world.finished("t1")
    assert (outcomes["colour"].option_id, outcomes["colour"].option_label) == ("o2", "blue")
    assert outcomes["sizes"].option_ids == ["s", "l"] and outcomes["sizes"].option_labels == ["Small", "Large"]
    assert outcomes["deploy"].option_label == "Approve" and outcomes["deploy"].approved
    assert outcomes["again"].option_label == "blue"  # known already: not asked again, the label still there


async def test_a_review_whose_diff_is_malformed_is_refused_to_the_agent(world: World) -> None:
    """A review's `content` that starts as a unified diff but is not one (a hunk shorter than its header) was
    stored and shown to the person as plain +/- text; the agent now hears why (docs/protocol.md#interactions)."""
    client = world.client()
    await client.start(timeout_s=10)
    await world.new_task("t1")
    handle = TaskHandle(client, "t1", "c1", {"title": "Do it"})
    await handle.accept()
    cut_short = "--- a/app.py\n+++ b/app.py\n@@ -1,3 +1,3 @@\n import os\n-DEBUG = True\n+DEBUG = False\n"
    with pytest.raises(HubError) as refused:
        async with asyncio.timeout(10):  # before: stored, and the ask waited for the person
            await handle.ask_review("Review the change", cut_short)
    assert refused.value.code == "invalid_payload"
    assert "not a unified diff" in refused.value.message and "fewer lines than its header" in refused.value.message
    whole = cut_short + " print(os.getcwd())\n"
    asking = asyncio.ensure_future(handle.ask_review("Review the change", whole))
    requested = await world.app.event("interaction.requested", taskId="t1")
    assert requested["payload"]["interaction"]["content"] == whole
    asking.cancel()
