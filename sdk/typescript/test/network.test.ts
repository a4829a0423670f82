// The network under the SDK fails, between the agent and a real hub (a TCP relay): a cut connection is resumed with
// nothing lost or doubled, envelopes queued while the hub is unreachable are delivered once when it comes back, a
// silent partition is noticed by the heartbeat, and the reconnects back off.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { AgentClient, Credential, pair, silentLogger } from "@lineup-agents/sdk";

import { App } from "./support/app.js";
import { count, eventually, Hub, select } from "./support/hub.js";
import { Relay } from "./support/relay.js";

let hub: Hub;
let app: App;
const closing: Array<{ close(): Promise<void> }> = [];

before(async () => {
  hub = await Hub.start({ env: { LINEUP_HEARTBEAT_INTERVAL_S: "1" } });
  app = await App.connect(hub);
});

after(async () => {
  for (const c of closing.reverse()) await c.close();
  app?.close();
  await hub?.close();
});

async function viaRelay(name: string): Promise<{ relay: Relay; agent: AgentClient; credential: Credential }> {
  const relay = await new Relay(hub.port).start();
  closing.push(relay);
  const direct = await pair(hub.base, await hub.code(name), { name });
  const credential = direct.with({ hubUrl: relay.url });
  const agent = new AgentClient(credential, { backoffInitialMs: 50, backoffMaxMs: 300, logger: silentLogger,
    checkFrames: true });
  closing.push(agent);
  return { relay, agent, credential };
}

test("a cut connection: the agent reconnects and every message of the task is stored exactly once", async () => {
  const { relay, agent, credential } = await viaRelay("ts cut");
  let sent = 0;
  agent.onTask(async (task) => {
    await task.accept();
    for (let n = 1; n <= 40; n++) {
      await task.message(`part ${n}`);
      sent = n;
    }
    await task.succeed();
  });
  await agent.start(15_000);
  const { taskId } = await app.task(credential.agentId, "forty parts");
  await eventually(() => sent >= 5, "five parts sent");
  relay.cut();
  await eventually(() => sent >= 20, "twenty parts sent after the cut");
  relay.cut();
  assert.equal((await app.finished(taskId)).payload.status, "succeeded");
  assert.ok(relay.connections >= 3, `${relay.connections} connections`);
  assert.ok(agent.connections >= 3);
  const events = await hub.events();
  const parts = select(events, "message.created", { taskId }).map((e) => e.payload.content);
  assert.deepEqual(parts, Array.from({ length: 40 }, (_, i) => `part ${i + 1}`));
});

test("sent while the hub is unreachable: queued, then delivered once when it comes back", async () => {
  const { relay, agent, credential } = await viaRelay("ts offline outbox");
  await agent.start(15_000);
  const conversationId = `c-outbox-${Date.now()}`;
  await agent.send("conversation.create", { title: "outbox", agentIds: [credential.agentId] }, { conversationId });
  relay.refuse = true;
  relay.cut();
  await eventually(() => !agent.connected, "the agent noticing the cut");
  const before = relay.connections;
  const acks = Array.from({ length: 10 }, (_, n) => agent.send("message.create", { content: `queued ${n}` },
    { conversationId }));
  await eventually(() => relay.connections >= before + 3, "reconnect attempts while refused");
  assert.equal(agent.outbox.size, 10);
  relay.refuse = false;
  const answered = await Promise.all(acks);
  assert.equal(new Set(answered.map((a) => a.sequence)).size, 10);
  const events = await hub.events();
  for (let n = 0; n < 10; n++) assert.equal(count(events, "message.created", { conversationId, content: `queued ${n}` }), 1);
  // Backoff: attempts while refused are spaced out, not a tight loop.
  assert.ok(relay.connections - before < 40, `${relay.connections - before} attempts`);
});

test("a silent partition: no answer to the heartbeat for three intervals, and the agent reconnects", async () => {
  const { relay, agent } = await viaRelay("ts silent");
  await agent.start(15_000);
  assert.equal(agent.heartbeatIntervalMs, 1000, "the hub's heartbeatIntervalMs is used");
  const before = relay.connections;
  relay.blackhole = true; // nothing passes, nothing closes: only the silence tells
  await eventually(() => !agent.connected, "the agent giving up on the silent link", 10_000);
  relay.blackhole = false;
  await eventually(() => agent.connected && relay.connections > before, "the agent connected again", 15_000);
});
