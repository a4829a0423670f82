// The conformance scenarios the Python SDK passes (tests/integration/test_sdk.py, test_never_ask_twice.py), with real
// agent processes killed with SIGKILL: resume after kill -9 (no envelope lost or stored twice, checked in the hub's
// log through GET /api/events), the cursor (an event handled before the kill is not handled again), and an answer
// given while the agent is down (the restarted agent gets the outcome and does not ask again).

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { pair, saveCredential } from "@lineup-agents/sdk";

import { AgentProcess } from "./support/agentproc.js";
import { App } from "./support/app.js";
import { count, eventually, Hub, select, tempDir } from "./support/hub.js";

let hub: Hub;
let app: App;
const processes: AgentProcess[] = [];

before(async () => {
  hub = await Hub.start({ env: { LINEUP_HEARTBEAT_INTERVAL_S: "1" } });
  app = await App.connect(hub);
});

after(async () => {
  for (const p of processes) await p.kill9().catch(() => {});
  app?.close();
  await hub?.close();
});

async function agentFiles(name: string): Promise<{ credentialPath: string; statePath: string; agentId: string }> {
  const folder = tempDir(name);
  const credential = await pair(hub.base, await hub.code(name), { name });
  const credentialPath = join(folder, "agent.json");
  saveCredential(credential, credentialPath);
  return { credentialPath, statePath: join(folder, "agent.state.json"), agentId: credential.agentId };
}

function launch(files: { credentialPath: string; statePath: string }, scenario: string): AgentProcess {
  const agent = new AgentProcess(files.credentialPath, files.statePath, scenario);
  processes.push(agent);
  return agent;
}

test("kill -9 mid-task: the restarted agent resumes, and every message is stored exactly once", async () => {
  const files = await agentFiles("ts steps");
  const first = launch(files, "steps");
  await first.waitFor("ready");
  const steps = 30;
  const { taskId } = await app.task(files.agentId, "Thirty steps", String(steps));
  await first.waitFor("step", (s) => s.n === 8);
  await first.kill9();
  const doneBefore = Math.max(...first.events("step").map((s) => Number(s.n)));

  const second = launch(files, "steps");
  const resumed = await second.waitFor("task");
  assert.equal(resumed.taskId, taskId);
  assert.equal(resumed.resumed, true, "the hub's openTasks hands the task back as resumed");
  const end = await app.finished(taskId, 30_000);
  assert.equal(end.payload.status, "succeeded");
  assert.equal(end.payload.summary, `${steps} steps`);

  const events = await hub.events();
  const messages = select(events, "message.created", { taskId }).map((e) => e.payload.content as string);
  assert.deepEqual(messages, Array.from({ length: steps }, (_, i) => `step ${i + 1} of ${steps}`),
    "each step's message stored once, in order (those the first process sent were re-sent with the same ids)");
  assert.equal(new Set(select(events, "message.created", { taskId }).map((e) => e.id)).size, steps);
  assert.equal(count(events, "task.accepted", { taskId }), 1);
  assert.equal(count(events, "task.status_changed", { taskId, status: "succeeded" }), 1);
  // Progress never ran backwards: the resumed handler skipped what the hub already had.
  const progress = select(events, "task.status_changed", { taskId }).map((e) => e.payload.progress)
    .filter((p): p is number => typeof p === "number");
  assert.deepEqual(progress, [...progress].sort((a, b) => a - b));
  assert.ok(doneBefore >= 8 && doneBefore < steps);
  // The log is sound: sequences 1..head without holes.
  assert.deepEqual(events.map((e) => e.sequence), events.map((_, i) => i + 1));
  await second.stop();
});

test("the cursor: an event handled before kill -9 is not handled again; one sent while down arrives once", async () => {
  const files = await agentFiles("ts cursor");
  const first = launch(files, "steps");
  await first.waitFor("ready");
  const { conversationId, taskId } = await app.task(files.agentId, "Two steps", "2");
  await app.finished(taskId);
  await app.request("message.create", { content: "before the kill" }, { conversationId });
  await first.waitFor("delivered", (s) => s.content === "before the kill");
  await first.kill9();
  await app.request("message.create", { content: "while it was down" }, { conversationId });

  const second = launch(files, "steps");
  await second.waitFor("ready");
  await second.waitFor("delivered", (s) => s.content === "while it was down");
  // Caught up (ready is said after system.caught_up): every event up to the head was seen, so what was not handled
  // by now is not coming.
  assert.deepEqual(second.events("delivered").map((s) => s.content), ["while it was down"]);
  assert.deepEqual(second.events("task"), [], "the finished task is not handed over again");
  await second.stop();
});

test("answer while offline: the restarted agent gets the outcome, does not ask again, repeats no step", async () => {
  const files = await agentFiles("ts offline");
  const first = launch(files, "ask");
  await first.waitFor("ready");
  const { taskId } = await app.task(files.agentId, "Deploy");
  const asked = await app.event("interaction.requested", { taskId });
  await first.waitFor("prepared");
  await first.kill9();
  await app.event("agent.status_changed", { agentId: files.agentId, status: "offline" });
  await app.answer(asked.payload.interaction.id as string, { optionId: "approve", comment: "go" });
  await app.event("interaction.resolved", { taskId });

  const second = launch(files, "ask");
  const outcome = await second.waitFor("outcome");
  assert.deepEqual({ outcome: outcome.outcome, approved: outcome.approved, prepared: outcome.prepared },
    { outcome: "answered", approved: true, prepared: { files: 3 } });
  assert.equal((await app.finished(taskId)).payload.status, "succeeded");
  assert.deepEqual(second.events("prepared"), [], "the `once` step ran once, in the first process");
  const events = await hub.events();
  assert.equal(count(events, "interaction.requested", { taskId }), 1, "asked once");
  assert.equal(count(events, "message.created", { taskId }), 1);
  await second.stop();
});

test("the connect command run twice: the newer process takes over and the older one exits", async () => {
  const files = await agentFiles("ts twice");
  const first = launch(files, "ask");
  await first.waitFor("ready");
  const { taskId } = await app.task(files.agentId, "Deploy twice");
  const asked = await app.event("interaction.requested", { taskId });
  const second = launch(files, "ask");
  await second.waitFor("ready");
  const exit = await first.exited;
  assert.notEqual(exit.code, 0);
  assert.match(first.stderr, /took over/);
  await second.waitFor("task", (s) => s.taskId === taskId && s.resumed === true);
  await app.answer(asked.payload.interaction.id as string, { optionId: "reject" });
  assert.equal((await app.finished(taskId)).payload.status, "failed");
  const events = await hub.events();
  assert.equal(count(events, "interaction.requested", { taskId }), 1);
  await eventually(() => second.events("outcome").length === 1, "the newer process's outcome");
  await second.stop();
});
