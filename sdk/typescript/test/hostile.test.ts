// A hub that breaks the protocol, on purpose: a WebSocket server in this process that says what the test scripts.
// The agent must never crash (every frame is checked against the schema before use), must keep working after
// garbage, must send its credential in the hello frame only (never in the URL), must resend a refused-for-now
// envelope with the same id, and must stop on 4409 but reconnect on other closes.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { after, test } from "node:test";

import { WebSocketServer, type WebSocket } from "ws";

import {
  AgentClient, ClientStopped, Credential, HubError, OutboxFull, ReplacedError, silentLogger, type Logger,
} from "@lineup-agents/sdk";

import { eventually } from "./support/hub.js";

interface Seen {
  url: string;
  headers: IncomingMessage["headers"];
  frames: Array<Record<string, any>>;
  socket: WebSocket;
}

class FakeHub {
  readonly server: WebSocketServer;
  readonly connections: Seen[] = [];
  port = 0;
  onFrame: (seen: Seen, frame: Record<string, any>) => void = () => {};

  constructor() {
    this.server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    this.server.on("connection", (socket, request) => {
      const seen: Seen = { url: request.url ?? "", headers: request.headers, frames: [], socket };
      this.connections.push(seen);
      socket.on("message", (data) => {
        const frame = JSON.parse(String(data)) as Record<string, any>;
        seen.frames.push(frame);
        this.onFrame(seen, frame);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.once("listening", () => resolve()));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  credential(): Credential {
    return new Credential({ hubUrl: `http://127.0.0.1:${this.port}`, agentId: "agt_fake", workspaceId: "ws_fake",
      credential: "agt_secret_never_in_a_url" });
  }

  async close(): Promise<void> {
    for (const c of this.server.clients) c.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function frame(type: string, payload: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: randomUUID(), type, version: "0.1", occurredAt: new Date().toISOString(),
    workspaceId: "ws_fake", payload, ...extra });
}

function welcome(openTasks: unknown[] = []): string {
  return frame("system.welcome", { workspaceId: "ws_fake", heartbeatIntervalMs: 25_000, epoch: "e1", headSequence: 0,
    agentId: "agt_fake", openTasks });
}

function recordingLogger(lines: string[]): Logger {
  const keep = (message: string): void => { lines.push(message); };
  return { debug: keep, info: keep, warn: keep, error: keep };
}

const hubs: FakeHub[] = [];
const agents: AgentClient[] = [];
after(async () => {
  for (const a of agents) await a.close();
  for (const h of hubs) await h.close();
});

async function fakeHub(): Promise<FakeHub> {
  const hub = await new FakeHub().start();
  hubs.push(hub);
  return hub;
}

function agentFor(hub: FakeHub, logger: Logger = silentLogger): AgentClient {
  const agent = new AgentClient(hub.credential(), { backoffInitialMs: 20, backoffMaxMs: 100, logger, checkFrames: true });
  agents.push(agent);
  return agent;
}

test("garbage from the hub is ignored and logged; the agent keeps working", async () => {
  const hub = await fakeHub();
  const lines: string[] = [];
  const agent = agentFor(hub, recordingLogger(lines));
  const handled: string[] = [];
  agent.onTask(async (task) => {
    handled.push(task.title);
    await task.accept();
  });
  hub.onFrame = (seen, f) => {
    if (f.type === "agent.hello") {
      seen.socket.send(welcome([{ taskId: 42 }, { taskId: "t-open", title: 7, children: "x", interactions: [5, {}] }]));
      seen.socket.send(frame("system.caught_up", { sequence: 0 }));
      for (const garbage of [
        "not json at all", "[]", "null", "{}", JSON.stringify({ type: "task.assigned" }),
        frame("task.assigned", null, { sequence: 1, taskId: "t-1" }),
        frame("task.assigned", { title: "no sequence", agentId: "a", status: "queued", createdBy: { kind: "user", id: "u" } },
          { taskId: "t-2" }),
        frame("interaction.resolved", { interactionId: 5, outcome: "answered" }, { sequence: 2 }),
        frame("system.ack", { id: "unknown-id", sequence: "x" }),
        frame("tool.result", { call_id: "nobody", callEventId: "e", result: {}, error: { code: "x" } }, { sequence: 3 }),
        frame("task.cancel_requested", { requestedBy: { kind: "user", id: "u" } }, { sequence: 4 }),
        frame("something.new", {}, { sequence: 5 }),
        "[".repeat(100_000) + "]".repeat(100_000),
        JSON.stringify({ a: JSON.parse("[".repeat(200) + "]".repeat(200)) }),
      ]) seen.socket.send(garbage);
      seen.socket.send(frame("task.assigned", { title: "after the garbage", agentId: "agt_fake", status: "queued",
        createdBy: { kind: "user", id: "u" } }, { sequence: 6, taskId: "t-ok" }));
    } else if (f.type !== "system.ping") {
      seen.socket.send(frame("system.ack", { id: f.id, sequence: 100 + seen.frames.length, duplicate: false }));
    }
  };
  await agent.start(10_000);
  await eventually(() => handled.includes("after the garbage"), "the valid task after the garbage");
  await eventually(() => handled.length === 2, "the open task of the welcome handled too");
  assert.deepEqual(handled.sort(), ["", "after the garbage"]); // the open task's title was not a string
  assert.ok(lines.some((l) => /breaks the protocol/.test(l)), lines.join("\n"));
  assert.equal(hub.connections.length, 1, "garbage is not a reason to reconnect");
  // The credential went in the hello frame, never in the URL or a header.
  const seen = hub.connections[0]!;
  assert.equal(seen.url, "/ws/agent");
  assert.ok(!JSON.stringify(seen.headers).includes("agt_secret_never_in_a_url"));
  assert.equal(seen.frames[0]?.payload.credential, "agt_secret_never_in_a_url");
  assert.ok(!lines.join("\n").includes("agt_secret_never_in_a_url"), "the secret is never logged");
});

test("a broken welcome is a failed connection: the agent reconnects instead of crashing", async () => {
  const hub = await fakeHub();
  hub.onFrame = (seen, f) => {
    if (f.type !== "agent.hello") return;
    if (hub.connections.length === 1) seen.socket.send(frame("system.welcome", { heartbeatIntervalMs: "soon" }));
    else if (hub.connections.length === 2) seen.socket.send("{{{{");
    else {
      seen.socket.send(welcome());
      seen.socket.send(frame("system.caught_up", { sequence: 0 }));
    }
  };
  const agent = agentFor(hub);
  await agent.start(10_000);
  assert.equal(hub.connections.length, 3);
});

test("a refusal for now (storage_full) is resent with the same id until stored; a cap the person lifts is not", async () => {
  const hub = await fakeHub();
  const refusedOnce = new Set<string>();
  hub.onFrame = (seen, f) => {
    if (f.type === "agent.hello") {
      seen.socket.send(welcome());
      seen.socket.send(frame("system.caught_up", { sequence: 0 }));
    } else if (f.type === "message.create" && !refusedOnce.has(f.id)) {
      refusedOnce.add(f.id);
      seen.socket.send(frame("system.error", { id: f.id, code: "storage_full", message: "The disk is full.", hint: "" }));
    } else if (f.type === "interaction.requested") {
      seen.socket.send(frame("system.error", { id: f.id, code: "rate_limited", message: "100 questions wait.",
        hint: "Ask again once one is answered.", details: { limit: "pendingQuestions", max: 100 } }));
    } else if (f.type !== "system.ping") {
      seen.socket.send(frame("system.ack", { id: f.id, sequence: 7, duplicate: false }));
    }
  };
  const agent = agentFor(hub);
  await agent.start(10_000);
  const ack = await agent.send("message.create", { content: "hello" }, { conversationId: "c1", id: "m-1" });
  assert.equal(ack.sequence, 7);
  const sent = hub.connections[0]!.frames.filter((f) => f.type === "message.create");
  assert.deepEqual(sent.map((f) => f.id), ["m-1", "m-1"]);
  const started = Date.now();
  await assert.rejects(agent.ask({ type: "approval", title: "One more?" }), (error: unknown) => error instanceof HubError
    && error.code === "rate_limited" && error.details.limit === "pendingQuestions" && !error.retryable);
  assert.ok(Date.now() - started < 900, "raised at once, not retried");
});

test("close codes: 4000 and 1011 reconnect, 4409 stops with ReplacedError and never reconnects", async () => {
  const hub = await fakeHub();
  hub.onFrame = (seen, f) => {
    if (f.type !== "agent.hello") return;
    seen.socket.send(welcome());
    seen.socket.send(frame("system.caught_up", { sequence: 0 }));
    const n = hub.connections.length;
    setTimeout(() => seen.socket.close(n === 1 ? 4000 : n === 2 ? 1011 : 4409, "bye"), 50);
  };
  const agent = agentFor(hub);
  await agent.start(10_000);
  await assert.rejects(agent.done, (error: unknown) => error instanceof ReplacedError);
  assert.equal(hub.connections.length, 3);
  assert.equal(agent.connections, 3);
});

test("heartbeats: system.ping every heartbeatIntervalMs of the welcome", async () => {
  const hub = await fakeHub();
  const pings: number[] = [];
  hub.onFrame = (seen, f) => {
    if (f.type === "agent.hello") {
      // 300 ms, not the smallest (100): the SDK reconnects after 3 intervals without a word, and a suite keeping
      // both cores busy stalled this process's loop past 300 ms once (a second connection, run 31).
      seen.socket.send(frame("system.welcome", { workspaceId: "ws_fake", heartbeatIntervalMs: 300, epoch: "e1",
        headSequence: 0, agentId: "agt_fake", openTasks: [] }));
      seen.socket.send(frame("system.caught_up", { sequence: 0 }));
    } else if (f.type === "system.ping") {
      pings.push(Date.now());
      seen.socket.send(frame("system.pong", {}, { correlationId: f.id }));
    }
  };
  const agent = agentFor(hub);
  await agent.start(10_000);
  await eventually(() => pings.length >= 5, "five pings");
  const gaps = pings.slice(1).map((t, i) => t - pings[i]!);
  assert.ok(gaps.every((gap) => gap >= 240 && gap < 3000), JSON.stringify(gaps));
  assert.equal(hub.connections.length, 1, "answered pings keep the connection");
});

test("a task's envelope refused for a while: its summary says it waits, then gets its summary back", async () => {
  const hub = await fakeHub();
  const stored: Array<Record<string, any>> = [];
  let refusing = true;
  hub.onFrame = (seen, f) => {
    if (f.type === "agent.hello") {
      seen.socket.send(welcome());
      seen.socket.send(frame("system.caught_up", { sequence: 0 }));
      seen.socket.send(frame("task.assigned", { title: "Slow disk", agentId: "agt_fake", status: "queued",
        createdBy: { kind: "user", id: "u" } }, { sequence: 1, taskId: "t-disk", conversationId: "c1" }));
    } else if (f.type === "system.ping") {
      return;
    } else if (f.type === "artifact.created" && refusing) {
      seen.socket.send(frame("system.error", { id: f.id, code: "storage_full", message: "The disk is full.", hint: "" }));
    } else {
      stored.push(f);
      seen.socket.send(frame("system.ack", { id: f.id, sequence: 10 + stored.length, duplicate: false }));
    }
  };
  const agent = agentFor(hub);
  agent.retryNoteAfterMs = 300;
  agent.onTask(async (task) => {
    await task.accept();
    await task.progress(20, "Writing the report");
    await task.artifact("Report", { url: "https://example.com/r" });
    await task.succeed();
  });
  await agent.start(10_000);
  await eventually(() => stored.some((f) => f.payload.summary === "Waiting to retry: the hub is out of disk space"),
    "the waiting note");
  refusing = false;
  await eventually(() => stored.some((f) => f.payload.status === "succeeded"), "the task finished");
  const summaries = stored.filter((f) => f.type === "task.status_changed").map((f) => f.payload.summary ?? null);
  assert.deepEqual(summaries.filter((s) => s !== null).slice(0, 2),
    ["Writing the report", "Waiting to retry: the hub is out of disk space"]);
  assert.ok(summaries.includes("Writing the report", 2), "the summary the task had is put back");
  assert.equal(stored.filter((f) => f.type === "artifact.created").length, 1);
});

test("the outbox is bounded: past maxOutbox unacknowledged envelopes, send rejects with OutboxFull", async () => {
  const hub = await fakeHub();
  hub.onFrame = (seen, f) => {
    if (f.type !== "agent.hello") return; // nothing is ever acknowledged
    seen.socket.send(welcome());
    seen.socket.send(frame("system.caught_up", { sequence: 0 }));
  };
  const agent = new AgentClient(hub.credential(), { logger: silentLogger, maxOutbox: 3 });
  agents.push(agent);
  await agent.start(10_000);
  const waiting = [1, 2, 3].map((n) => agent.send("message.create", { content: `m${n}` }, { conversationId: "c1" }));
  await assert.rejects(agent.send("message.create", { content: "m4" }, { conversationId: "c1" }), (error: unknown) =>
    error instanceof OutboxFull);
  assert.equal(agent.outbox.size, 3);
  await agent.close();
  for (const ack of waiting) await assert.rejects(ack, (error: unknown) => error instanceof ClientStopped);
});
