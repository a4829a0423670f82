"""When an SDK agent's handler goes wrong, the person sees it (issue "When something goes wrong, the person sees
it", item 1): a real hub on loopback, real SDK agents in the test's loop, the person on an app socket.

- a handler that raises fails its task with `handler_error` and the exception's type and message (never a
  traceback, which stays in the agent's log);
- a handler that returns without finishing fails it with `handler_returned`;
- a cancel stays a cancel: a handler that raises CancelledError, returns, or raises after the person's cancel
  ends the task `cancelled`, and the SDK's own stop (close) leaves the task to be resumed, which then fails once;
- a refusal the SDK retries (storage_full) does not fail the task: the task says it waits, then carries on;
  an `internal` refusal that lasts is given up and fails the task.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from hub.domain import collaboration
from hub.protocol.errors import LapError
from hub.sdk import TaskHandle
from tests.integration.test_sdk import World, count, eventually, world  # noqa: F401 - `world` is the fixture

FAULTS: dict[str, str] = {}  # event type -> the code the hub refuses it with, while set


@pytest.fixture(autouse=True)
def faults(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Refuse an agent's envelopes of a type with a code (storage_full, internal) while FAULTS names it: the hub's
    own refusal path (the writer rolls the command back and answers system.error), set before the hub starts."""
    for type_, handler in list(collaboration.AGENT_HANDLERS.items()):
        def refusing(tx: Any, actor: Any, env: Any, parsed: Any, _type: str = type_, _handler: Any = handler) -> Any:
            code = FAULTS.get(_type)
            if code is not None:
                raise LapError(code, "The hub's disk is full; nothing was stored." if code == "storage_full"
                               else "The hub failed to process this envelope (RuntimeError).")
            return _handler(tx, actor, env, parsed)
        monkeypatch.setitem(collaboration.AGENT_HANDLERS, type_, refusing)
    FAULTS.clear()
    yield FAULTS
    FAULTS.clear()


async def task_row(w: World, task_id: str) -> dict[str, Any]:
    return dict((await w.api.get(f"/api/tasks/{task_id}"))["task"])


async def test_a_handler_that_raises_fails_the_task_with_the_error(world: World,
                                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="lineup.sdk")
    client = world.client()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await task.progress(10, "Fetching the report")
        if task.id == "t-url":  # the report from the issue: an artifact whose url is too long for the hub
            await task.artifact("report", "https://example.com/" + "a" * 5000)
        raise ValueError("the input file is empty")

    await client.start(timeout_s=10)
    await world.new_task("t-url")
    failed = await world.finished("t-url", status="failed")
    error = failed["payload"]["error"]
    assert error["code"] == "handler_error"
    assert error["message"].startswith("HubError: invalid_payload")
    assert "4000" in error["message"] and "artifact.created" in error["message"]
    assert "Traceback" not in error["message"] and 'File "' not in error["message"]

    await world.new_task("t-value")
    failed = await world.finished("t-value", status="failed")
    assert failed["payload"]["error"] == {"code": "handler_error", "message": "ValueError: the input file is empty"}
    assert (await task_row(world, "t-value"))["status"] == "failed"

    # The traceback is in the agent's own log, where its author looks.
    logged = "\n".join(r.getMessage() + "\n" + (r.exc_text or "") for r in caplog.records)
    assert "Traceback" in logged and "ValueError: the input file is empty" in logged


async def test_a_handler_that_returns_without_finishing_fails_the_task(world: World) -> None:
    client = world.client()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        if task.id == "t-ignored":
            return  # never even accepted
        await task.accept()
        await task.progress(50, "Halfway")

    await client.start(timeout_s=10)
    await world.new_task("t-half")
    failed = await world.finished("t-half", status="failed")
    assert failed["payload"]["error"]["code"] == "handler_returned"
    assert "returned without finishing" in failed["payload"]["error"]["message"]

    await world.new_task("t-ignored")
    failed = await world.finished("t-ignored", status="failed")
    assert failed["payload"]["error"]["code"] == "handler_returned"


async def test_a_handler_that_raises_while_a_question_waits_fails_the_task(world: World) -> None:
    """The task waits for the person: the SDK withdraws the question, then fails the task (a failed task never
    keeps a question open)."""
    client = world.client()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await asyncio.wait_for(task.ask_approval("Deploy?", interaction_id="i-deploy"), 0.5)

    await client.start(timeout_s=10)
    await world.new_task("t-wait")
    await world.app.event("interaction.requested", taskId="t-wait")
    failed = await world.finished("t-wait", status="failed")
    assert failed["payload"]["error"]["code"] == "handler_error"
    assert failed["payload"]["error"]["message"].startswith("TimeoutError")
    detail = await world.api.get("/api/tasks/t-wait")
    [question] = detail["interactions"]
    assert question["status"] == "cancelled" and question["response"]["cause"] == "withdrawn"


@pytest.mark.parametrize("how", ["raises CancelledError", "returns", "raises RuntimeError"])
async def test_a_cancel_stays_a_cancel_whatever_the_handler_does(world: World, how: str) -> None:
    client = world.client()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await asyncio.wait_for(task.cancel_requested.wait(), 10)
        if how == "raises CancelledError":
            raise asyncio.CancelledError
        if how == "raises RuntimeError":
            raise RuntimeError("the clean-up broke")

    await client.start(timeout_s=10)
    await world.new_task("t1")
    await world.app.event("task.status_changed", taskId="t1", status="running")
    await world.app.ok("task.cancel_requested", {"reason": "enough"}, taskId="t1")
    done = await world.finished("t1", status="cancelled", timeout=4)  # the agent, not the 5 s cancel timeout
    assert done["payload"].get("cause") != "cancel_timeout"
    events = await world.api.events()
    assert count(events, "task.status_changed", taskId="t1", status="failed") == 0
    if how == "raises RuntimeError":
        assert "RuntimeError: the clean-up broke" in done["payload"]["summary"]


async def test_the_sdk_stopping_leaves_the_task_and_a_resumed_handler_that_fails_fails_it_once(world: World) -> None:
    state = world.tmp / "agent.state.json"
    first = world.client(state_path=state)
    reached = asyncio.Event()

    @first.on_task
    async def wait_forever(task: TaskHandle) -> None:
        await task.accept()
        await task.progress(20, "Working")
        reached.set()
        await asyncio.Event().wait()

    await first.start(timeout_s=10)
    await world.new_task("t-resume")
    await asyncio.wait_for(reached.wait(), 10)
    await first.close()  # the SDK's own cancel: nothing is decided about the task
    assert (await task_row(world, "t-resume"))["status"] == "running"

    runs: list[bool] = []
    for attempt in range(2):  # the failing run, then a third copy: the task is not handed over again
        again = world.client(state_path=state)

        @again.on_task
        async def broken(task: TaskHandle) -> None:
            runs.append(task.resumed)
            await task.accept()
            await task.progress(20, "Working")
            raise KeyError("settings.yaml")

        await again.start(timeout_s=10)
        if attempt == 0:
            failed = await world.finished("t-resume", status="failed")
            assert failed["payload"]["error"] == {"code": "handler_error", "message": "KeyError: 'settings.yaml'"}
        await again.close()
    assert runs == [True]
    events = await world.api.events()
    assert count(events, "task.status_changed", taskId="t-resume", status="failed") == 1


async def test_a_refusal_the_sdk_retries_does_not_fail_the_task_and_the_task_says_it_waits(
        world: World, faults: dict[str, str]) -> None:
    client = world.client()
    client.retry_note_after_s = 0.5

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await task.progress(40, "Writing the report")
        await task.artifact("report", "https://example.com/report")
        await task.succeed("Report written")

    faults["artifact.created"] = "storage_full"
    await client.start(timeout_s=10)
    await world.new_task("t-full")
    note = await world.app.event("task.status_changed", taskId="t-full",
                                 summary="Waiting to retry: the hub is out of disk space")
    assert (await task_row(world, "t-full"))["status"] == "running"
    faults.clear()  # space again
    done = await world.finished("t-full")
    events = await world.api.events()
    assert count(events, "artifact.created", taskId="t-full") == 1
    restored = [e for e in events if e["type"] == "task.status_changed" and e.get("taskId") == "t-full"
                and e["sequence"] > note["sequence"] and e["sequence"] < done["sequence"]]
    assert [e["payload"].get("summary") for e in restored] == ["Writing the report"]  # what it said before the wait
    assert count(events, "task.status_changed", taskId="t-full", status="failed") == 0


async def test_an_internal_refusal_that_lasts_fails_the_task(world: World, faults: dict[str, str]) -> None:
    client = world.client()
    client.retry_internal_s = 1.0

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await task.artifact("report", "https://example.com/report")
        await task.succeed("Report written")

    faults["artifact.created"] = "internal"
    await client.start(timeout_s=10)
    await world.new_task("t-internal")
    failed = await world.finished("t-internal", status="failed")
    assert failed["payload"]["error"]["code"] == "handler_error"
    assert failed["payload"]["error"]["message"].startswith("HubError: internal")


async def test_a_handler_that_carries_on_after_the_person_cancelled_leaves_no_traceback(
        world: World, caplog: pytest.LogCaptureFixture) -> None:
    """Cancelled while its question waits, the hub ends the task at once; a handler that does not look at the
    outcome and reports progress is refused (illegal_transition). That is the cancel, not a crash: the task stays
    cancelled and the agent's log says what happened in one line, without a traceback."""
    caplog.set_level(logging.INFO, logger="lineup.sdk")
    client = world.client()
    done = asyncio.Event()

    @client.on_task
    async def work(task: TaskHandle) -> None:
        try:
            await task.accept()
            await task.ask_approval("Deploy?", interaction_id="i-deploy")
            await task.progress(90, "Deploying")  # the outcome was `cancelled`: the task has ended
        finally:
            done.set()

    await client.start(timeout_s=10)
    await world.new_task("t1")
    await world.app.event("task.status_changed", taskId="t1", status="waiting_for_human")
    await world.app.ok("task.cancel_requested", {"reason": "not today"}, taskId="t1")
    await world.finished("t1", status="cancelled")
    await asyncio.wait_for(done.wait(), 10)
    await eventually(lambda: any("t1" in r.getMessage() and "had ended" in r.getMessage()
                                 for r in caplog.records if r.name == "lineup.sdk"), what="the log line")
    sdk = [r for r in caplog.records if r.name == "lineup.sdk"]
    assert not any(r.exc_info for r in sdk), [r.getMessage() for r in sdk if r.exc_info]
    assert (await task_row(world, "t1"))["status"] == "cancelled"
