"""A test agent on the SDK that asks the other three kinds of card in turn: a multiple choice, a URL, a review.

Run as `python -m tests.e2e.asker_agent HUB_URL CODE CREDENTIAL_FILE`; the browser tests answer its cards.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any, cast

from hub.sdk import AgentClient, MessageStream, TaskHandle, pair_or_load


async def main(hub_url: str, code: str, credential_path: str) -> None:
    credential = await pair_or_load(hub_url, code, credential_path, name="Asker", runtime="test-asker",
                                    agent_version="0.1")
    client = AgentClient(credential, runtime="test-asker", agent_version="0.1",
                         capabilities=["choice", "input", "review"])

    @client.on_task
    async def work(task: TaskHandle) -> None:
        await task.accept()
        await task.progress(20, "Asking where to release")
        regions = await task.ask_choice(
            "Which regions get the release?",
            cast(list[dict[str, Any]], [{"id": "eu", "label": "Europe"},
                                        {"id": "us", "label": "United States", "recommended": True},
                                        {"id": "ap", "label": "Asia Pacific"}]),
            multiple=True, description="The release goes out region by region.")
        await task.progress(50, "Asking for the staging address")
        staging = await task.ask_input("What is the staging URL?", format="url",
                                       placeholder="https://staging.example.com",
                                       description="The smoke tests run against it.")
        await task.progress(80, "Asking for a review")
        review = await task.ask_review("Check the release notes", "## 2.3\n- Faster sync\n- Fixed sign-in on phones")
        await task.message(f"Regions {','.join(regions.option_ids)}; staging {staging.text}; review {review.decision}")
        await task.succeed("All answers received")

    @client.on("message.delivered")
    async def reply(envelope: dict[str, object]) -> None:
        payload = envelope["payload"]
        assert isinstance(payload, dict)
        if not str(payload.get("content", "")).startswith("Stream"):
            return
        async with MessageStream(client, str(envelope["conversationId"]), None) as stream:
            for word in ["Streaming", "a", "long", "answer", "word", "by", "word", "so", "that", "it", "can", "be", "watched"]:
                await stream.write(word + " ")
                await asyncio.sleep(0.3)

    await client.run()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
