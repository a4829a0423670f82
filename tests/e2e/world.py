"""The `world` of many browser tests: the owner and a paired SDK agent in a thread of the test's process, sending what a
test needs (`say`, `ask`, `send`), with the sample contents they send (agent Markdown, a unified diff) and how a test
opens a conversation or reads an image's loaded width."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from typing import Any, cast

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import Owner, api, create_owner
from tests.support.fixtures import OpenPage
from tests.support.hubproc import HubProcess

MARKDOWN = """Here is the plan:

## Steps

- read the **schema**
- write the migration
- run the `tests`

| table | rows |
|:------|-----:|
| users | 1200 |
| orders | 52 |

```python
def migrate(db):
    return db.execute("ALTER TABLE users ADD COLUMN plan TEXT")
```

See [the docs](https://example.com/docs)."""

DIFF = """diff --git a/app/models.py b/app/models.py
index 3b18e51..a9c0f3d 100644
--- a/app/models.py
+++ b/app/models.py
@@ -10,6 +10,7 @@ class User(Model):
     id = Integer(primary_key=True)
     name = Text()
-    email = Text()
+    email = Text(unique=True)
+    plan = Text(default="free")
     created = DateTime()

     def __str__(self):
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1,2 +1,2 @@
-# Old <script>window.__pwned='diff'</script>
+# New title
 Text
"""


class Agent:
    """A paired SDK agent running in a thread with its own loop; `send` waits for the hub's ack."""

    def __init__(self, hub: HubProcess, owner_token: str, name: str = "Writer") -> None:
        from hub.sdk import AgentClient, pair

        code = api(hub, owner_token, "POST", "/api/pairing-codes", {"name": name})["code"]
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

        async def start() -> Any:
            client = AgentClient(await pair(hub.base, code, name=name), runtime="test-writer",
                                 capabilities=["approval", "choice", "input", "review", "artifacts"])
            await client.start()
            return client

        self.client = self.run(start())

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(30)

    def send(self, type_: str, payload: dict[str, Any], **fields: Any) -> dict[str, Any]:
        return cast(dict[str, Any], self.run(self.client.send(type_, payload, **fields)))

    def conversation(self, title: str) -> str:
        conversation_id = f"c-{uuid.uuid4().hex[:10]}"
        self.send("conversation.create", {"title": title}, conversationId=conversation_id)
        return conversation_id

    def say(self, conversation_id: str, text: str) -> None:
        self.send("message.create", {"content": text}, conversationId=conversation_id)

    def ask(self, conversation_id: str, spec: dict[str, Any], task_id: str | None = None) -> str:
        spec = {"id": f"q-{uuid.uuid4().hex[:10]}", **spec}
        self.send("interaction.requested", {"interaction": spec}, conversationId=conversation_id, taskId=task_id)
        return str(spec["id"])

    def close(self) -> None:
        self.run(self.client.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


World = tuple[Owner, Agent]  # the `world` fixture's owner and SDK agent


@pytest.fixture
def world(hub: HubProcess) -> Iterator[World]:
    owner = create_owner(hub)
    agent = Agent(hub, owner.token)
    yield owner, agent
    agent.close()


def open_conversation(open_page: OpenPage, hub: HubProcess, token: str, conversation_id: str, **options: Any) -> Page:
    page = open_page(hub, token=token, path=f"/#/conversations/{conversation_id}", **options)
    expect(page.locator("lineup-conversation .stream")).to_be_visible()
    return page


def loaded_width(image: Any) -> int:
    """The image's natural width once it has loaded (0 if it failed), waiting in the page for its load event: not
    page.wait_for_function, whose polling evaluates strings, which the app's CSP forbids."""
    return int(image.evaluate("""img => img.complete ? img.naturalWidth : new Promise((done) => {
        img.addEventListener('load', () => done(img.naturalWidth)); img.addEventListener('error', () => done(0));
        setTimeout(() => done(-1), 10000); })"""))
