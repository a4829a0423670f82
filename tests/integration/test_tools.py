"""The tool protocol (docs/protocol.md#tools) over real sockets: tool.list both ways, tool.call routed to the hub's
plugins, the person, apps and agents, and every failure answered with a tool.result (never with silence).

Most tests share one hub (loading tests/plugins/good as its extra plugins folder, with a short
LINEUP_TOOL_CALL_TIMEOUT_S); the drop-in plugin and the canvas restart start hubs of their own.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from hub.sdk import AgentClient, Credential, ToolCallError
from tests.integration.conftest import Connect
from tests.plugins.folders import GOOD, copy_folder
from tests.support.hubproc import HubProcess, pair_agent
from tests.support.inproc import InProcessHub
from tests.support.lap import LapClient
from tests.support.live import Team, make_team, of_type, pair, request_fresh
from tests.support.polling import eventually

TIMEOUT_S = 2.0  # LINEUP_TOOL_CALL_TIMEOUT_S of the shared hub
HUB_TOOLS = {"calculator", "canvas", "choice", "confirm", "input", "review"}
PLUGIN_TOOLS = {"echo", "later", "explode", "refuse", "tally", "greeter"}


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


@pytest.fixture(scope="module")
def tools_hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessHub]:
    root = tmp_path_factory.mktemp("tools")
    folder = copy_folder(GOOD, root / "plugins")
    hub = InProcessHub(root / "hub", env={"LINEUP_PLUGINS_DIR": str(folder),
                                          "LINEUP_TOOL_CALL_TIMEOUT_S": str(TIMEOUT_S)}).start()
    yield hub
    hub.stop()


@pytest.fixture
async def team(tools_hub: HubProcess, lap: Connect) -> Team:
    """A new agent and a new app device (each test's registrations are its own) in the shared hub."""
    token = await asyncio.to_thread(tools_hub.token)
    return await make_team(tools_hub, token, lap, conversation_id=fresh("conv"), agent_name=fresh("agent"))


# ---- helpers ------------------------------------------------------------------------------------------------


async def call(client: LapClient, name: str, arguments: dict[str, Any] | None = None, *, action: str | None = None,
               call_id: str | None = None, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
    """tool.call, insist on its ack, and return the stored tool.result paired with it (payload + envelope)."""
    call_id = call_id or fresh("call")
    payload: dict[str, Any] = {"call_id": call_id, "name": name, "arguments": arguments or {}}
    if action is not None:
        payload["action"] = action
    envelope_id = await client.send("tool.call", payload, **fields)
    answer = await client.answer(envelope_id)
    assert answer["type"] == "system.ack" and answer["payload"]["sequence"], answer
    result = await client.wait_for(lambda f: f["type"] == "tool.result" and f.get("sequence") is not None
                                   and f.get("correlationId") == envelope_id, timeout)
    # docs/design.md#tool-types: the result pairs with the call by call_id (and here by the call's envelope id too).
    assert result["payload"]["call_id"] == call_id and result["payload"]["name"] == name, result
    assert result["payload"]["action"] == action and result["payload"]["callEventId"] == envelope_id, result
    assert result["sequence"] > answer["payload"]["sequence"]
    return {**result["payload"], "_envelope": result, "_call_envelope_id": envelope_id}


def error_of(result: dict[str, Any]) -> str:
    assert "result" not in result and result["error"]["message"], result
    return str(result["error"]["code"])


async def listed(client: LapClient) -> dict[str, dict[str, Any]]:
    """tool.list without tools: the hub answers with a tool.list frame (not stored) paired by correlationId.

    Returns the first entry of each name: the one a call by that name reaches (the hub's, else the newest).
    """
    request_id = await client.send("tool.list", {})
    ack = await client.answer(request_id)
    assert ack["type"] == "system.ack" and ack["payload"]["sequence"] is None, ack
    frame = await client.wait_for(lambda f: f["type"] == "tool.list" and f.get("correlationId") == request_id)
    assert frame.get("sequence") is None
    tools = frame["payload"]["tools"]
    names = [tool["name"] for tool in tools]
    if client.kind == "agent":  # an agent calls by name alone: one entry per name
        assert len(names) == len(set(names)), names
    first: dict[str, dict[str, Any]] = {}
    for tool in tools:
        first.setdefault(tool["name"], tool)
    return first


async def health(hub: HubProcess) -> int:
    async with httpx.AsyncClient(timeout=5) as client:
        return (await client.get(hub.base + "/-/health")).status_code


async def running_task(team: Team) -> str:
    task_id = fresh("task")
    await team.new_task(task_id, accept=True)
    return task_id


LAMP = {"name": "lamp", "type": "toolset", "description": "A lamp in the person's room",
        "actions": [{"name": "toggle", "description": "Switch it",
                     "inputSchema": {"type": "object", "properties": {"on": {"type": "boolean"}}, "required": ["on"]}},
                    {"name": "status", "description": "Is it on?"}]}


# ---- a tool file dropped into a plugins folder ----------------------------------------------------------------

DICE = '''import random
from hub import hookimpl

def roll(action, arguments, context):
    return {"message": str(random.randint(1, arguments.get("sides", 6)))}

@hookimpl
def register_tools():
    return [{"name": "dice", "type": "action", "description": "Roll a die",
             "inputSchema": {"type": "object", "properties": {"sides": {"type": "integer", "minimum": 2}}},
             "handler": roll}]
'''


async def test_a_tool_file_dropped_into_the_plugins_folder_is_listed_and_called(hub_factory: Callable[..., HubProcess],
                                                                               lap: Connect) -> None:
    """plugins/README.md's one-file example, as a user would add it: into <data dir>/plugins/, then start."""
    hub = hub_factory("hub", start=False)
    (hub.data_dir / "plugins").mkdir(parents=True)
    (hub.data_dir / "plugins" / "dice.py").write_text(DICE)
    hub.start()
    token = hub.token()
    agent = await lap(hub, "agent", pair_agent(hub, token)["credential"])
    app = await lap(hub, "app", token)

    tools = await listed(agent)
    assert tools["dice"] == {"name": "dice", "type": "action", "description": "Roll a die",
                             "inputSchema": {"type": "object", "properties": {"sides": {"type": "integer",
                                                                                        "minimum": 2}}},
                             "provider": {"kind": "hub", "plugin": "dice"}}
    assert set(tools) >= HUB_TOOLS
    rolls = [int((await call(agent, "dice", {"sides": 20}, call_id=f"roll{i}"))["result"]["message"])
             for i in range(5)]
    assert all(1 <= value <= 20 for value in rolls), rolls
    assert error_of(await call(agent, "dice", {"sides": 1})) == "invalid_arguments"
    # The person's app sees each call and its result in the log, paired the same way.
    for i in range(5):
        seen_call = await app.event("tool.call", call_id=f"roll{i}")
        assert seen_call["payload"]["target"] == {"kind": "hub", "id": None}
        assert seen_call["payload"]["caller"]["kind"] == "agent"
        seen_result = await app.event("tool.result", call_id=f"roll{i}")
        assert seen_result["correlationId"] == seen_call["id"]
        assert seen_result["payload"]["result"]["message"] == str(rolls[i])


# ---- tool.list --------------------------------------------------------------------------------------------------


async def test_tool_list_offers_the_hubs_tools_to_both_sides_and_each_sides_tools_to_the_other(team: Team) -> None:
    for client in (team.agent, team.app):
        tools = await listed(client)
        assert set(tools) >= HUB_TOOLS | PLUGIN_TOOLS
        assert not {"badtype", "nohandler"} & set(tools)  # reported at start-up, never offered
        assert tools["echo"]["provider"] == {"kind": "hub", "plugin": "everyhook"}
        assert tools["calculator"]["provider"] == {"kind": "hub", "plugin": "calculator"}
        assert tools["canvas"]["ui"] == "/plugins/canvas/static/lineup-canvas.js"
        assert [a["name"] for a in tools["canvas"]["actions"]] == ["open", "draw", "undo", "clear", "export", "close"]
        # Only the public definition goes out: never the plugin's Python callables.
        assert all(not {"handler", "interaction", "result"} & set(tool) for tool in tools.values())

    # The agent registers its own tools (tool.list with tools, stored); apps are offered them, agents are not.
    stored = await team.agent.ok("tool.list", {"tools": [{**LAMP, "name": "agent_lamp"}]})
    assert stored["sequence"] is not None
    registered = await team.app.event("tools.registered", sequence=stored["sequence"])
    assert registered["payload"]["owner"] == {"kind": "agent", "id": team.agent_id}
    offered = await listed(team.app)
    assert offered["agent_lamp"]["provider"] == {"kind": "agent", "id": team.agent_id}
    assert "agent_lamp" not in await listed(team.agent)

    # The app registers its tools the same way; agents are offered them, other apps are not.
    device_id = team.app.welcome["deviceId"]
    await team.app.ok("tool.list", {"tools": [{**LAMP, "name": "app_lamp"}]})
    assert (await listed(team.agent))["app_lamp"]["provider"] == {"kind": "app", "id": device_id}
    assert "app_lamp" not in await listed(team.app)

    # Registering again replaces the earlier list.
    await team.app.ok("tool.list", {"tools": [{**LAMP, "name": "app_lamp_2"}]})
    now = await listed(team.agent)
    assert "app_lamp_2" in now and "app_lamp" not in now


BAD_DEFINITIONS = [
    ([{"name": "x", "type": "widget", "description": "d"}], "type must be one of"),
    ([{"name": "x", "type": "toolset", "description": "d", "actions": []}], "actions must be a non-empty list"),
    ([{"name": "x", "type": "app", "description": "d", "actions": [{"name": "draw"}]}], "needs an `open` action"),
    ([{"name": "x", "type": "action", "description": "d", "inputSchema": {"type": "nonsense"}}],
     "not a valid JSON Schema"),
    ([{"name": "x", "type": "action", "description": ""}], "description must be non-empty text"),
    ([{"name": "9lives", "type": "action", "description": "d"}], "must start with a letter"),
    ([{"name": "x", "type": "toolset", "description": "d", "actions": [{"name": "a"}, {"name": "a"}]}], "used twice"),
    ([{**LAMP, "name": "x"}, {**LAMP, "name": "x"}], "same name"),
]


async def test_a_bad_tool_definition_from_an_agent_or_app_is_refused_and_nothing_is_registered(team: Team) -> None:
    await team.agent.ok("tool.list", {"tools": [{**LAMP, "name": "kept_lamp"}]})
    for tools, words in BAD_DEFINITIONS:
        for client in (team.agent, team.app):
            answer = await client.request("tool.list", {"tools": tools})
            assert answer["type"] == "system.error" and answer["payload"]["code"] == "invalid_payload", answer
            assert words in answer["payload"]["message"], (words, answer["payload"])
    offered_to_app = await listed(team.app)
    assert "x" not in offered_to_app and "x" not in await listed(team.agent)
    assert offered_to_app["kept_lamp"]["provider"]["id"] == team.agent_id  # the earlier list stays


# ---- calls the hub's plugins answer, and every way a call can fail ---------------------------------------------


async def test_calls_to_plugin_tools_and_every_failure_is_a_tool_result(team: Team) -> None:
    agent = team.agent
    done = await call(agent, "calculator", {"a": 6, "b": 7}, action="multiply")
    assert done["result"] == {"message": "42", "value": 42} and "error" not in done
    echoed = await call(agent, "echo", {"text": "hi"}, action="shout")
    assert echoed["result"]["message"] == "HI!"
    # ToolContext: the handler learns the call_id, who calls and the workspace.
    assert echoed["result"]["callId"] == echoed["call_id"]
    assert echoed["result"]["caller"] == {"kind": "agent", "id": team.agent_id}
    assert echoed["result"]["workspaceId"] == team.workspace_id
    assert (await call(agent, "later", {"text": "async"}))["result"]["message"] == "later: async"
    assert (await call(agent, "greeter", {"who": "Ada"}, action="hello"))["result"]["message"] == "Hello, Ada!"

    failures: list[tuple[str, dict[str, Any], str | None, str]] = [
        ("no_such_tool", {"a": 1}, None, "unknown_tool"),
        ("calculator", {"a": 1, "b": 2}, "sqrt", "unknown_action"),
        ("calculator", {"a": 1, "b": 2}, None, "unknown_action"),  # a toolset needs its action
        ("calculator", {"a": "one", "b": 2}, "add", "invalid_arguments"),
        ("calculator", {"a": 1}, "add", "invalid_arguments"),
        ("calculator", {"a": 1, "b": 2, "c": 3}, "add", "invalid_arguments"),
        ("calculator", {"a": 1, "b": 0}, "divide", "division_by_zero"),  # the plugin's ToolError
        ("refuse", {}, None, "not_today"),
        ("explode", {}, None, "tool_failed"),  # the plugin raises inside its handler
        ("echo", {"text": ""}, "say", "invalid_arguments"),
        ("badtype", {}, None, "unknown_tool"),  # a definition that was refused at start-up
    ]
    for name, arguments, action, code in failures:
        result = await call(agent, name, arguments, action=action)
        assert error_of(result) == code, (name, action, code, result)
    exploded = await call(agent, "explode", {})
    assert "kaboom from the everyhook plugin" in exploded["error"]["message"]
    invalid = await call(agent, "calculator", {"a": "one", "b": 2}, action="add")
    assert "a: 'one' is not of type 'number'" in invalid["error"]["message"]
    unknown_action = await call(agent, "calculator", {"a": 1, "b": 2}, action="sqrt")
    assert "add, divide, multiply, subtract" in unknown_action["error"]["message"]

    # A call_id is used once per caller: a second call with it is refused, and nothing is stored for it.
    answer = await agent.request("tool.call", {"call_id": done["call_id"], "name": "calculator", "action": "add",
                                               "arguments": {"a": 1, "b": 1}})
    assert answer["type"] == "system.error" and answer["payload"]["code"] == "conflict", answer
    # After all that, the hub keeps serving, the same socket included.
    assert (await call(agent, "calculator", {"a": 1, "b": 2}, action="add"))["result"]["value"] == 3
    assert await health(team.hub) == 200
    assert "tool explode (plugin everyhook) raised" in team.hub.log()

    # An app may call the hub's tools too; the result is stored for it (apps see it in the log).
    by_app = await call(team.app, "calculator", {"a": 2, "b": 3}, action="subtract")
    assert by_app["result"]["value"] == -1
    assert by_app["_envelope"]["payload"]["call_id"] == by_app["call_id"]


async def test_an_app_type_plugin_tool_keeps_its_state_until_closed(team: Team) -> None:
    agent = team.agent
    opened = await call(agent, "tally", {"start": 10}, action="open")
    instance_id = opened["result"]["instance_id"]
    assert opened["result"]["message"] == "10" and instance_id.startswith("inst")
    assert opened["instance"]["state"] == {"count": 10} and opened["instance"]["status"] == "open"
    assert (await call(agent, "tally", {"instance_id": instance_id, "by": 5}, action="add"))["result"]["count"] == 15
    added = await call(agent, "tally", {"instance_id": instance_id, "by": -3}, action="add")
    assert added["result"]["count"] == 12 and added["instance"]["state"] == {"count": 12}
    other = (await call(agent, "tally", {}, action="open"))["result"]["instance_id"]
    assert (await call(agent, "tally", {"instance_id": other, "by": 1}, action="add"))["result"]["count"] == 1

    closed = await call(agent, "tally", {"instance_id": instance_id}, action="close")
    assert closed["instance"]["status"] == "closed"
    after = await call(agent, "tally", {"instance_id": instance_id, "by": 1}, action="add")
    assert error_of(after) == "instance_closed" and instance_id in after["error"]["message"]
    assert error_of(await call(agent, "tally", {"instance_id": instance_id}, action="close")) == "instance_closed"
    assert error_of(await call(agent, "tally", {"instance_id": "inst_nope", "by": 1}, action="add")) == "unknown_instance"
    # An instance of another tool is not this tool's instance.
    canvas = (await call(agent, "canvas", {"width": 10, "height": 10}, action="open"))["result"]["instance_id"]
    assert error_of(await call(agent, "tally", {"instance_id": canvas, "by": 1}, action="add")) == "unknown_instance"
    # The other instance is untouched by all of this.
    assert (await call(agent, "tally", {"instance_id": other, "by": 1}, action="add"))["result"]["count"] == 2

    # Calls sent back to back are run one at a time in the order they were stored: no update is lost.
    results = await asyncio.gather(*(call(agent, "tally", {"instance_id": other, "by": 1}, action="add",
                                          call_id=f"burst-{i:02d}") for i in range(20)))
    by_sequence = sorted(results, key=lambda r: r["_envelope"]["sequence"])
    assert [r["result"]["count"] for r in by_sequence] == list(range(3, 23))


# ---- tools that ask the person (docs/design.md#tools-that-ask-the-person) --------------------------------------------


async def test_seed_000_5_1_choice_is_asked_and_the_persons_pick_is_the_result(team: Team) -> None:
    task_id = await running_task(team)
    envelope_id = await team.agent.send("tool.call", {
        "call_id": "c1", "name": "choice", "action": "select",
        "arguments": {"question": "部署到哪个环境？", "options": ["测试", "预发布", "生产"]}}, taskId=task_id)
    assert (await team.agent.answer(envelope_id))["type"] == "system.ack"

    # The app renders the choice: an interaction linked to the call; the task waits for the person.
    requested = await team.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence")
                                        and f["taskId"] == task_id)
    spec = requested["payload"]["interaction"]
    assert spec["type"] == "choice" and spec["title"] == "部署到哪个环境？"
    assert [o["label"] for o in spec["options"]] == ["测试", "预发布", "生产"]
    assert spec["toolCall"] == {"callEventId": envelope_id, "call_id": "c1", "name": "choice", "action": "select"}
    await team.app.event("task.status_changed", taskId=task_id, status="waiting_for_human",
                         cause="interaction_requested")
    assert (await team.api.task(task_id))["task"]["status"] == "waiting_for_human"
    assert not of_type(team.agent, "tool.result", call_id="c1")  # nothing until the person answers

    picked = next(o["id"] for o in spec["options"] if o["label"] == "预发布")
    await team.app.ok("interaction.respond", {"interactionId": spec["id"], "response": {"optionId": picked}})
    result = await team.agent.event("tool.result", call_id="c1")
    assert result["correlationId"] == envelope_id
    assert result["payload"]["name"] == "choice" and result["payload"]["action"] == "select"
    assert result["payload"]["result"]["message"] == "预发布"
    assert result["payload"]["result"]["selected"] == ["预发布"] and result["payload"]["result"]["outcome"] == "answered"
    await team.app.event("task.status_changed", taskId=task_id, status="running", cause="interaction_resolved")
    # The agent also learns the interaction's outcome, as for any question it asks.
    assert (await team.agent.event("interaction.resolved", interactionId=spec["id"]))["payload"]["outcome"] == "answered"


HUMAN_CASES = [
    ("confirm", {"question": "Deploy?", "risk": "high", "impact": "prod"}, "approval",
     {"optionId": "approve", "comment": "go"}, {"message": "approved", "approved": True, "comment": "go"}),
    ("confirm", {"question": "Drop the table?"}, "approval",
     {"optionId": "reject"}, {"message": "rejected", "approved": False}),
    ("input", {"question": "Release name?", "format": "text", "maxLength": 20}, "input",
     {"text": "Aurora"}, {"message": "Aurora", "text": "Aurora"}),
    ("review", {"title": "Review the changelog", "content": "- fixed things"}, "review",
     {"decision": "request_changes", "comment": "more detail"},
     {"message": "request_changes", "decision": "request_changes", "comment": "more detail"}),
    ("choice", {"question": "Which?", "options": ["a", "b", "c"], "multiple": True}, "choice",
     {"optionIds": ["o1", "o3"]}, {"message": "a, c", "selected": ["a", "c"]}),
    ("input", {"question": "Anything?"}, "input",
     {"declined": True, "comment": "not now"}, {"message": "declined", "declined": True, "comment": "not now"}),
]


@pytest.mark.parametrize("name, arguments, kind, response, expected", HUMAN_CASES,
                         ids=["confirm-approve", "confirm-reject", "input", "review", "choice-multiple", "declined"])
async def test_each_human_tool_asks_and_the_answer_becomes_the_result(team: Team, name: str, arguments: dict[str, Any],
                                                                      kind: str, response: dict[str, Any],
                                                                      expected: dict[str, Any]) -> None:
    task_id = await running_task(team)
    pending = asyncio.create_task(call(team.agent, name, arguments, taskId=task_id))
    requested = await team.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence")
                                        and f["taskId"] == task_id)
    spec = requested["payload"]["interaction"]
    assert spec["type"] == kind and spec["toolCall"]["name"] == name
    await team.app.event("task.status_changed", taskId=task_id, status="waiting_for_human")
    await team.app.ok("interaction.respond", {"interactionId": spec["id"], "response": response})
    result = await asyncio.wait_for(pending, 10)
    outcome = "declined" if response.get("declined") or response.get("optionId") == "reject" else "answered"
    assert result["result"] == {**expected, "outcome": outcome}
    await team.app.event("task.status_changed", taskId=task_id, status="running", cause="interaction_resolved")


async def test_a_human_tool_question_that_expires_or_is_cancelled_ends_the_call_with_an_error(team: Team) -> None:
    expiring = await running_task(team)
    soon = (time.time() + 1.0)
    expires_at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(soon)) + f".{int(soon % 1 * 1000):03d}Z"
    result = await call(team.agent, "confirm", {"question": "Quick?", "expiresAt": expires_at}, taskId=expiring)
    assert error_of(result) == "expired"

    cancelled = await running_task(team)
    pending = asyncio.create_task(call(team.agent, "input", {"question": "Name?"}, taskId=cancelled))
    await team.app.event("task.status_changed", taskId=cancelled, status="waiting_for_human")
    await team.app.ok("task.cancel_requested", {"reason": "changed my mind"}, taskId=cancelled)
    assert error_of(await asyncio.wait_for(pending, 10)) == "cancelled"


async def test_only_agents_call_tools_that_ask_the_person(team: Team) -> None:
    question = fresh("Should I?")
    result = await call(team.app, "confirm", {"question": question})
    assert error_of(result) == "forbidden"
    pending = await team.api.get("/api/interactions", status="pending")
    assert not [i for i in pending["interactions"] if i.get("title") == question]
    # Without a task the question is asked all the same; the answer is the result.
    asking = asyncio.create_task(call(team.agent, "confirm", {"question": question}))
    requested = await team.app.wait_for(lambda f: f["type"] == "interaction.requested" and f.get("sequence")
                                        and f["payload"]["interaction"]["title"] == question)
    assert requested.get("taskId") is None
    await team.app.ok("interaction.respond", {"interactionId": requested["payload"]["interaction"]["id"],
                                              "response": {"optionId": "approve"}})
    assert (await asyncio.wait_for(asking, 10))["result"]["approved"] is True
    # A human tool's arguments are checked like any other's, before anyone is asked.
    task_id = await running_task(team)
    assert error_of(await call(team.agent, "choice", {"question": "Pick", "options": ["only one"]},
                               taskId=task_id)) == "invalid_arguments"
    assert (await team.api.task(task_id))["task"]["status"] == "running"


# ---- tools offered by apps ---------------------------------------------------------------------------------------


async def test_a_call_to_an_app_tool_is_answered_by_the_app_that_registered_it(team: Team, lap: Connect) -> None:
    await team.app.ok("tool.list", {"tools": [LAMP]})
    other_app = await lap(team.hub, "app", await asyncio.to_thread(team.hub.token))

    pending = asyncio.create_task(call(team.agent, "lamp", {"on": True}, action="toggle"))
    delivered = await team.app.wait_for(lambda f: f["type"] == "tool.call" and f.get("sequence")
                                        and f["payload"]["name"] == "lamp")
    assert delivered["payload"]["target"] == {"kind": "app", "id": team.app.welcome["deviceId"]}
    assert delivered["payload"]["caller"] == {"kind": "agent", "id": team.agent_id}
    assert delivered["payload"]["arguments"] == {"on": True} and delivered["payload"]["action"] == "toggle"
    call_id = delivered["payload"]["call_id"]
    answer = {"call_id": call_id, "name": "lamp", "action": "toggle", "result": {"message": "the lamp is on"}}

    # Only the registering app answers it; another device of the same person is refused.
    refused = await other_app.request("tool.result", answer, correlationId=delivered["id"])
    assert refused["type"] == "system.error" and refused["payload"]["code"] == "not_found", refused
    # An answer carries exactly one of result and error.
    both = await team.app.request("tool.result", {**answer, "error": {"code": "x", "message": "y"}},
                                  correlationId=delivered["id"])
    assert both["type"] == "system.error" and both["payload"]["code"] == "invalid_payload", both
    await team.app.ok("tool.result", answer, correlationId=delivered["id"])

    result = await asyncio.wait_for(pending, 10)
    assert result["result"] == {"message": "the lamp is on"}
    assert result["_envelope"]["correlationId"] == delivered["id"]
    # Answered once: a second answer is refused and the agent gets nothing more.
    again = await request_fresh(team.app, "tool.result", answer, correlationId=delivered["id"])
    assert again["type"] == "system.error" and again["payload"]["code"] == "not_found"

    # The app may answer with an error; the agent gets it as the call's error.
    pending = asyncio.create_task(call(team.agent, "lamp", {}, action="status"))
    delivered = await team.app.wait_for(lambda f: f["type"] == "tool.call" and f.get("sequence")
                                        and f["payload"]["name"] == "lamp" and f["payload"]["action"] == "status")
    await team.app.ok("tool.result", {"call_id": delivered["payload"]["call_id"], "name": "lamp",
                                      "error": {"code": "bulb_broken", "message": "The bulb is broken."}},
                      correlationId=delivered["id"])
    assert (await asyncio.wait_for(pending, 10))["error"] == {"code": "bulb_broken", "message": "The bulb is broken."}

    # Arguments are checked against the app's own schema before the call reaches it.
    assert error_of(await call(team.agent, "lamp", {"on": "yes"}, action="toggle")) == "invalid_arguments"
    assert error_of(await call(team.agent, "lamp", {}, action="dim")) == "unknown_action"
    assert len([f for f in team.app.events() if f["type"] == "tool.call" and f["payload"]["name"] == "lamp"
                and f["payload"]["target"]["kind"] == "app"]) == 2
    # An app tool named like a hub tool does not take the hub's place.
    await team.app.ok("tool.list", {"tools": [LAMP, {**LAMP, "name": "calculator"}]})
    assert (await listed(team.agent))["calculator"]["provider"]["kind"] == "hub"
    assert (await call(team.agent, "calculator", {"a": 1, "b": 1}, action="add"))["result"]["value"] == 2


async def test_nobody_answers_an_offline_app_or_agent_in_time_and_the_caller_gets_no_answer(team: Team,
                                                                                           lap: Connect) -> None:
    # The app registers its tool and goes away; a second agent registers one and goes away too.
    await team.app.ok("tool.list", {"tools": [{**LAMP, "name": "away_lamp"}]})
    app_last_sequence = team.app.events()[-1]["sequence"]
    await team.app.close()
    away = await pair(team.hub, team.token, fresh("away-agent"))
    away_agent = await lap(team.hub, "agent", away["credential"], tools=[{**LAMP, "name": "away_tool"}])
    await away_agent.close()

    started = time.monotonic()
    from_agent = asyncio.create_task(call(team.agent, "away_lamp", {"on": True}, action="toggle",
                                          timeout=TIMEOUT_S + 8))
    app = await lap(team.hub, "app", team.token)
    from_app = asyncio.create_task(call(app, "away_tool", {"on": False}, action="toggle", timeout=TIMEOUT_S + 8))
    agent_result, app_result = await asyncio.gather(from_agent, from_app)
    waited = time.monotonic() - started
    assert error_of(agent_result) == "no_answer" and error_of(app_result) == "no_answer"
    assert "offline" in agent_result["error"]["message"]
    assert TIMEOUT_S - 0.3 <= waited < TIMEOUT_S + 6, waited

    # The app comes back: it receives the call it missed, but its late answer is refused (already answered).
    back = await lap(team.hub, "app", team.token, last_sequence=app_last_sequence)
    missed = await back.wait_for(lambda f: f["type"] == "tool.call" and f.get("sequence")
                                 and f["payload"]["name"] == "away_lamp")
    late = await back.request("tool.result", {"call_id": missed["payload"]["call_id"], "name": "away_lamp",
                                              "result": {"message": "too late"}}, correlationId=missed["id"])
    assert late["type"] == "system.error" and late["payload"]["code"] == "not_found"
    assert not [f for f in team.agent.frames if f["type"] == "tool.result"
                and f["payload"]["call_id"] == agent_result["call_id"] and "result" in f["payload"]]

    # Within the timeout, an app that reconnects answers the call that waited for it.
    before = back.events()[-1]["sequence"]
    await back.close()
    pending = asyncio.create_task(call(team.agent, "away_lamp", {"on": False}, action="toggle"))
    await eventually(lambda: [f for f in team.agent.frames if f["type"] == "system.ack"
                              and (f["payload"].get("sequence") or 0) > before],
                     timeout=30, what="the call stored while no app is there")
    again = await lap(team.hub, "app", team.token, last_sequence=before)
    waiting = await again.wait_for(lambda f: f["type"] == "tool.call" and f.get("sequence")
                                   and f["payload"]["name"] == "away_lamp")
    await again.ok("tool.result", {"call_id": waiting["payload"]["call_id"], "name": "away_lamp",
                                   "result": {"message": "off now"}}, correlationId=waiting["id"])
    assert (await asyncio.wait_for(pending, 10))["result"] == {"message": "off now"}
    assert await health(team.hub) == 200


# ---- tools offered by agents (the SDK) ---------------------------------------------------------------------------


WEATHER = {"name": "weather", "type": "action", "description": "The weather where the agent runs",
           "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}},
                           "required": ["city"]}}


async def test_an_app_calls_an_agents_tool_and_the_sdk_answers_it(team: Team, tools_hub: HubProcess) -> None:
    paired = await pair(tools_hub, team.token, fresh("sdk-agent"))
    credential = Credential(tools_hub.base, paired["agentId"], paired["workspaceId"], paired["credential"])
    sdk = AgentClient(credential, tools=[WEATHER, {**LAMP, "name": "sdk_lamp"}])
    seen: list[tuple[str | None, dict[str, Any]]] = []

    @sdk.on_tool("weather")
    async def weather(action: str | None, arguments: dict[str, Any]) -> dict[str, Any]:
        seen.append((action, arguments))
        if arguments["city"] == "Atlantis":
            raise ToolCallError("no_such_city", "Atlantis is not on the map.")
        if arguments["city"] == "Crash":
            raise RuntimeError("sensor fell off")
        return {"message": f"sunny in {arguments['city']}"}

    await sdk.start(timeout_s=10)
    try:
        offered = await listed(team.app)
        assert offered["weather"]["provider"] == {"kind": "agent", "id": paired["agentId"]}
        assert offered["sdk_lamp"]["provider"] == {"kind": "agent", "id": paired["agentId"]}

        sunny = await call(team.app, "weather", {"city": "Paris"})
        assert sunny["result"] == {"message": "sunny in Paris"}
        assert seen == [(None, {"city": "Paris"})]
        assert error_of(await call(team.app, "weather", {"city": "Atlantis"})) == "no_such_city"
        crashed = await call(team.app, "weather", {"city": "Crash"})
        assert error_of(crashed) == "tool_failed" and "sensor fell off" in crashed["error"]["message"]
        # A tool the agent offers but has no handler for: the SDK answers instead of leaving the call hanging.
        assert error_of(await call(team.app, "sdk_lamp", {"on": True}, action="toggle")) == "unknown_tool"
        # Invalid arguments never reach the agent.
        assert error_of(await call(team.app, "weather", {"city": ""})) == "invalid_arguments"
        assert len(seen) == 3

        # Two agents offer the same name: targetAgentId picks one.
        await team.agent.ok("tool.list", {"tools": [WEATHER]})
        oslo = fresh("oslo")
        pending = asyncio.create_task(call(team.app, "weather", {"city": "Oslo"}, call_id=oslo,
                                           targetAgentId=team.agent_id))
        routed = await team.agent.event("tool.call", call_id=oslo)
        assert routed["payload"]["target"] == {"kind": "agent", "id": team.agent_id}
        await team.agent.ok("tool.result", {"call_id": routed["payload"]["call_id"], "name": "weather",
                                            "result": {"message": "snow in Oslo"}}, correlationId=routed["id"])
        assert (await asyncio.wait_for(pending, 10))["result"] == {"message": "snow in Oslo"}
        assert len(seen) == 3  # the SDK agent was not asked

        # The SDK calls tools too: list_tools and call_tool; an error raises ToolCallError with the code.
        names = {tool["name"] for tool in await sdk.list_tools()}
        assert names >= HUB_TOOLS | PLUGIN_TOOLS and "weather" not in names
        assert (await sdk.call_tool("calculator", {"a": 2, "b": 40}, action="add"))["value"] == 42
        with pytest.raises(ToolCallError) as raised:
            await sdk.call_tool("calculator", {"a": 1, "b": 0}, action="divide")
        assert raised.value.code == "division_by_zero"
        with pytest.raises(ToolCallError) as raised:
            await sdk.call_tool("explode", {})
        assert raised.value.code == "tool_failed"
    finally:
        await sdk.close()


# ---- the canvas (docs/design.md#the-canvas), across a restart --------------------------------------------------------


async def test_seed_000_5_2_canvas_lifecycle_survives_a_hub_restart(hub_factory: Callable[..., HubProcess],
                                                                    lap: Connect) -> None:
    hub = hub_factory("hub")
    token = hub.token()
    credential = pair_agent(hub, token)["credential"]
    agent = await lap(hub, "agent", credential)
    app = await lap(hub, "app", token)

    opened = await call(agent, "canvas", {"width": 800, "height": 600}, action="open", call_id="c1")
    instance_id = opened["result"]["instance_id"]
    assert opened["result"]["message"] == f"instance_id: {instance_id}"
    drawn = await call(agent, "canvas", {"instance_id": instance_id, "path": "M10 10 L50 50", "color": "red"},
                       action="draw", call_id="c2")
    assert drawn["result"]["message"] == "drawn; 1 strokes"
    # The app observes the drawing: every result carries the instance's state.
    seen = await app.event("tool.result", call_id="c2")
    assert seen["payload"]["instance"]["state"]["strokes"] == [{"path": "M10 10 L50 50", "color": "red", "width": 2}]
    assert (await app.event("tool.call", call_id="c2"))["id"] == seen["correlationId"]
    # A second canvas, closed before the restart.
    scrap = (await call(agent, "canvas", {"width": 10, "height": 10}, action="open"))["result"]["instance_id"]
    assert (await call(agent, "canvas", {"instance_id": scrap}, action="close"))["instance"]["status"] == "closed"
    assert error_of(await call(agent, "canvas", {"instance_id": instance_id, "path": "<script>"},
                               action="draw")) == "invalid_path"
    # A call to an app's tool is still waiting for its answer when the hub stops.
    await app.ok("tool.list", {"tools": [LAMP]})
    await agent.ok("tool.call", {"call_id": "lamp-1", "name": "lamp", "action": "toggle", "arguments": {"on": True}})
    waiting = await app.event("tool.call", call_id="lamp-1")

    await agent.close()
    await app.close()
    hub.stop()
    hub.start()

    # After the restart the app answers the call that waited, and the agent gets the result.
    app = await lap(hub, "app", token, last_sequence=waiting["sequence"] - 1)
    assert (await app.event("tool.call", call_id="lamp-1"))["id"] == waiting["id"]
    agent = await lap(hub, "agent", credential)
    await app.ok("tool.result", {"call_id": "lamp-1", "name": "lamp", "action": "toggle",
                                 "result": {"message": "on after the restart"}}, correlationId=waiting["id"])
    answered = await agent.event("tool.result", call_id="lamp-1")
    assert answered["correlationId"] == waiting["id"]
    assert answered["payload"]["result"] == {"message": "on after the restart"}
    await app.close()

    drawn = await call(agent, "canvas", {"instance_id": instance_id, "path": "M0 0 H100", "color": "#00f", "width": 4},
                       action="draw", call_id="c2b")
    assert drawn["result"]["message"] == "drawn; 2 strokes"  # the stroke from before the restart is still there
    exported = await call(agent, "canvas", {"instance_id": instance_id}, action="export", call_id="c2c")
    svg = exported["result"]["svg"]
    assert 'width="800" height="600"' in svg and 'd="M10 10 L50 50" stroke="red"' in svg
    assert 'd="M0 0 H100" stroke="#00f" stroke-width="4"' in svg
    assert error_of(await call(agent, "canvas", {"instance_id": scrap, "path": "M1 1"}, action="draw")) == "instance_closed"
    undone = await call(agent, "canvas", {"instance_id": instance_id}, action="undo")
    assert undone["instance"]["state"]["strokes"] == [{"path": "M10 10 L50 50", "color": "red", "width": 2}]
    closed = await call(agent, "canvas", {"instance_id": instance_id}, action="close", call_id="c3")
    assert closed["result"]["message"] == "closed" and closed["instance"]["status"] == "closed"
    assert error_of(await call(agent, "canvas", {"instance_id": instance_id, "path": "M1 1"},
                               action="draw")) == "instance_closed"

    # An app that connects after the restart replays the whole lifecycle from the log, paired by call_id.
    app = await lap(hub, "app", token)
    results = {f["payload"]["call_id"]: f for f in app.events() if f["type"] == "tool.result"}
    calls = {f["payload"]["call_id"]: f for f in app.events() if f["type"] == "tool.call"}
    for call_id in ("c1", "c2", "c2b", "c2c", "c3", "lamp-1"):
        assert results[call_id]["correlationId"] == calls[call_id]["id"]
        assert results[call_id]["sequence"] > calls[call_id]["sequence"]
    assert [results[c]["payload"]["instance"]["status"] for c in ("c1", "c2", "c2b", "c3")] == ["open"] * 3 + ["closed"]


SLOW = '''
import threading
import time

from hub import hookimpl

def crawl(action, arguments, context):
    # A plain function that blocks, as a plugin's HTTP request without asyncio would.
    time.sleep(arguments.get("seconds", 1.5))
    return {"message": "done", "thread": threading.current_thread().name}

@hookimpl
def register_tools():
    return [{"name": "crawl", "type": "action", "description": "Block for a while", "handler": crawl}]
'''


async def test_a_blocking_plugin_handler_does_not_stall_the_hub(hub_factory: Callable[..., HubProcess],
                                                                lap: Connect) -> None:
    """A synchronous handler runs in a worker thread, so other agents' envelopes are acked meanwhile."""
    hub = hub_factory("hub", start=False)
    (hub.data_dir / "plugins").mkdir(parents=True)
    (hub.data_dir / "plugins" / "slow.py").write_text(SLOW)
    hub.start()
    token = hub.token()
    agent = await lap(hub, "agent", pair_agent(hub, token)["credential"])
    app = await lap(hub, "app", token)
    await app.ok("conversation.create", {"title": "busy", "agentIds": []}, conversationId="c-busy")
    envelope_id = await agent.send("tool.call", {"call_id": "slow-1", "name": "crawl", "arguments": {"seconds": 3}})
    assert (await agent.answer(envelope_id))["type"] == "system.ack"
    # While the handler sleeps, the hub answers the app at once (on the loop it would wait the 3 s out).
    started = time.monotonic()
    await app.ok("message.create", {"content": "still here?"}, conversationId="c-busy")
    answered_in = time.monotonic() - started
    result = await agent.wait_for(lambda f: f["type"] == "tool.result" and f.get("correlationId") == envelope_id, 10)
    assert result["payload"]["result"]["message"] == "done"
    assert result["payload"]["result"]["thread"] != "MainThread"
    assert answered_in < 2.0, f"the hub answered after {answered_in:.2f} s: the handler blocked its loop"
