"""The Python SDK for agents: pair once, connect, receive tasks, report progress, ask the person.

```python
from hub.sdk import AgentClient, pair_or_load

credential = await pair_or_load("http://127.0.0.1:9527", code="ABCD-EFGH", path="agent.json")
agent = AgentClient(credential)

@agent.on_task
async def work(task):
    await task.accept()
    await task.progress(50, "Halfway there")
    if (await task.ask_approval("Deploy to production?", risk="high")).approved:
        await task.succeed("Deployed")
    else:
        await task.fail("declined", "The person said no")

await agent.run()
```
"""

from hub.sdk import approvals, files
from hub.sdk.cleartext import InsecureHub
from hub.sdk.client import AgentClient
from hub.sdk.credentials import Credential, load_credential, pair, pair_or_load, save_credential
from hub.sdk.errors import AuthError, HubError, OutboxFull, ReplacedError, SdkError, ToolCallError
from hub.sdk.tasks import ChildTask, MessageStream, Outcome, TaskHandle, stable_id

__all__ = [
    "AgentClient", "Credential", "pair", "pair_or_load", "load_credential", "save_credential",
    "AuthError", "HubError", "InsecureHub", "OutboxFull", "ReplacedError", "SdkError", "ToolCallError",
    "Outcome", "TaskHandle", "MessageStream", "ChildTask", "approvals", "files", "stable_id",
]
