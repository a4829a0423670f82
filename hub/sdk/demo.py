"""The demo agent (`lineup demo-agent`): plays docs/design.md#the-mvp-demo on every task it is given, and obeys
cancel."""

from __future__ import annotations

import asyncio
import base64
import logging
from pathlib import Path
from typing import Any

from hub.sdk.client import AgentClient
from hub.sdk.credentials import Credential
from hub.sdk.tasks import TaskHandle

log = logging.getLogger("lineup.demo")

REPORT = """# Migration report

- Repository scanned: 3 services, 41 dependencies
- Migrations applied: 3 (0007_orders, 0008_invoices, 0009_indexes)
- Downtime: none
"""


# The app's composer sends a plain message unless "Track as task" is ticked (ui/components/lineup-composer.js);
# the demo only works on tasks, so it says how to give it one (Markdown: messages are shown as Markdown).
NOT_A_TASK = ("This is a plain message, not a task, so I only answer it. To have me work on it (progress, a "
              "question for you, a result you can open), tick **Track as task** under the message box before you "
              "send it.")


class Cancelled(Exception):
    """The person asked to stop: the demo confirms and ends the task as cancelled."""


class DemoAgent:
    def __init__(self, client: AgentClient, step_s: float = 1.0) -> None:
        self.client = client
        self.step_s = step_s
        client.on_task(self.play)
        client.on("message.delivered")(self.reply)

    async def _step(self, task: TaskHandle, name: str) -> None:
        """Do one step (here: wait), or stop at once if a cancel was requested meanwhile."""
        try:
            async with asyncio.timeout(self.step_s):
                await task.cancel_requested.wait()
        except TimeoutError:
            log.info("finished step %r of task %s", name, task.id)  # once per task, whatever restarts
            return
        raise Cancelled

    async def play(self, task: TaskHandle) -> None:
        """docs/design.md#the-mvp-demo, restart-safe: every step is done once per task, also when this agent was killed
        or replaced mid-task and runs the task again (docs/sdk.md "Restart-safe handlers")."""
        log.info("%s task %r (%s)", "resuming" if task.resumed else "working on", task.title, task.id)
        try:
            await task.accept()
            await task.progress(10, "Reading the task")
            scan = await task.child("Scan the repository")
            await task.once("scan", self._step, task, "scan")
            await scan.succeed("3 services, 41 dependencies")
            await task.progress(40, "Dependencies mapped")
            plan = await task.child("Prepare the migration plan")
            await task.once("plan", self._step, task, "plan")
            await plan.succeed("3 migrations, reviewed")
            await task.progress(60, "Waiting for your approval")
            log.info("waiting for your answer in the app: %r (task %r)", "Run the database migration?", task.title)
            outcome = await task.ask_approval(
                "Run the database migration?",
                "This applies 3 reviewed migrations to the production database.",
                risk="high", impact="Production data is changed; the migrations can be rolled back within 24 h.",
                details={"migrationCount": 3, "environment": "production"})
            log.info("your answer: %s%s", outcome.outcome, " (approved)" if outcome.approved else "")
            if outcome.outcome == "cancelled" or task.cancel_requested.is_set():
                raise Cancelled
            if not outcome.approved:
                await self._say(task, f"Understood: I did not run the migration ({outcome.outcome}).")
                await task.succeed("Migration skipped at your request")
                log.info("task %r done: migration skipped", task.title)
                return
            apply = await task.child("Apply the migrations")
            await task.once("apply", self._step, task, "apply")
            await apply.succeed("3 applied")
            await task.progress(90, "Migration applied; writing the report")
            await self._say(task, "The migration is done: 3 migrations applied, no downtime. The report is attached.")
            data_url = "data:text/markdown;base64," + base64.b64encode(REPORT.encode()).decode()
            await task.artifact("migration-report.md", data_url, mime_type="text/markdown",
                                summary="3 migrations applied, no downtime")
            await task.succeed("Migration applied")
            log.info("task %r done: migration applied", task.title)
        except Cancelled:
            if task.ended_status is None:  # running: clean up briefly, as a real agent would, then confirm
                await asyncio.sleep(min(self.step_s, 1.0))  # meanwhile the app shows "cancel requested"
            await task.cancelled("Stopped on your request")
            log.info("task %r cancelled on your request", task.title)

    async def _say(self, task: TaskHandle, text: str) -> None:
        if task.conversation_id is not None:
            await task.message(text)

    async def reply(self, envelope: dict[str, Any]) -> None:
        """Answer a person's message with streamed text, so streaming can be seen in the app. A plain message (not
        a task: the app sends one unless "Track as task" is ticked) is answered with how to make it a task too."""
        conversation_id = envelope.get("conversationId")
        if not conversation_id or envelope["payload"].get("author", {}).get("kind") != "user":
            return
        from hub.sdk.tasks import MessageStream, stable_id

        text = f"I received: {envelope['payload'].get('content', '')}"
        if not envelope.get("taskId"):
            text += "\n\n" + NOT_A_TASK
            log.info('a message in %s is not a task: I only answer it. To have me work on it, tick "Track as task" '
                     "under the message box in the app before you send it", conversation_id)
        # One reply per message: a message delivered again (a replay after a restart, a takeover) is not answered
        # twice, because the reply's id comes from the message it answers.
        reply_id = f"msg_{stable_id('reply', envelope['id'])}"
        async with MessageStream(self.client, conversation_id, envelope.get("taskId"), reply_id) as stream:
            for word in text.split(" "):
                await stream.write(word + " ")
                await asyncio.sleep(min(0.05, self.step_s / 10))


async def run_demo(credential: Credential, state_path: Path | None, step_s: float, *,
                   credential_path: Path | None = None, pair_command: str | None = None) -> None:
    client = AgentClient(credential, state_path=state_path, runtime="demo", agent_version="1.0",
                         capabilities=["tasks", "approval", "streaming", "artifacts"],
                         credential_path=credential_path, pair_command=pair_command)
    DemoAgent(client, step_s)
    log.info("demo agent %s connecting to %s", credential.agent_id, credential.hub_url)  # said once, by the log
    log.info('give it work in the app: a message sent with "Track as task" ticked becomes a task it plays the demo '
             "on; a plain message is only answered")
    await client.run()
