"""The demo agent tells the person how to give it work (issue "When something goes wrong, the person sees it",
item 6): a plain message (the app's composer sends one unless "Track as task" is ticked) is answered with the hint
to tick it, in the conversation and in the agent's terminal; a tracked message is worked on as a task, no hint."""

from __future__ import annotations

from tests.integration.test_demo_agent import Stage, stage  # noqa: F401 - `stage` is the fixture


async def test_a_plain_message_is_answered_with_how_to_make_it_a_task(stage: Stage) -> None:
    demo, agent_id = await stage.launch()
    await stage.app.ok("conversation.create", {"title": "Chat", "agentIds": [agent_id]}, conversationId="c-chat")
    await stage.app.ok("message.create", {"content": "Migrate the database"}, conversationId="c-chat")
    reply = await stage.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                     and f["payload"]["author"]["kind"] == "agent", timeout=15)
    content = reply["payload"]["content"]
    assert content.startswith("I received: Migrate the database")
    assert "**Track as task**" in content and "not a task" in content
    await demo.said("tick \"Track as task\"")  # its terminal says so too

    # The same words sent as the app sends a tracked message: task.create, then the message in the task.
    await stage.app.ok("task.create", {"title": "Migrate the database", "description": "Migrate the database"},
                       conversationId="c-chat", taskId="t-tracked")
    await stage.app.ok("message.create", {"content": "Migrate the database"}, conversationId="c-chat",
                       taskId="t-tracked")
    await stage.app.event("interaction.requested", taskId="t-tracked", timeout=15)  # it works on the task
    answer = await stage.app.wait_for(lambda f: f["type"] == "message.created" and f.get("sequence") is not None
                                      and f["payload"]["author"]["kind"] == "agent" and f.get("taskId") == "t-tracked"
                                      and f["payload"]["content"].startswith("I received"), timeout=15)
    assert "Track as task" not in answer["payload"]["content"]
