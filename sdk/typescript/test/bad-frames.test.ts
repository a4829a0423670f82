// The corpus of malformed frames both SDKs are fuzzed with (tests/support/bad_frames.json in the repository, made from
// the hub's schema by tests/support/bad_frames.py; tests/unit/sdk/test_bad_frames.py sends the same to the Python
// SDK): a fake hub in this process sends every entry to a running client, which must log each, stay connected (or
// connect again after a frame its WebSocket library refuses: not UTF-8) and still handle a good task afterwards.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";

import { WebSocketServer, type WebSocket } from "ws";

import { AgentClient, Credential, type Logger } from "@lineup-agents/sdk";

import { REPOSITORY, eventually } from "./support/hub.js";

interface Entry {
  name: string;
  json?: unknown;
  text?: string;
  utf8Hex?: string;
  binary?: string;
  reconnects?: boolean;
}

interface Corpus {
  goodTaskSequence: number;
  frames: Entry[];
  welcomes: Entry[];
}

const CORPUS = JSON.parse(readFileSync(join(REPOSITORY, "tests", "support", "bad_frames.json"), "utf8")) as Corpus;

function send(socket: WebSocket, entry: Entry): void {
  if (entry.utf8Hex !== undefined) socket.send(Buffer.from(entry.utf8Hex, "hex"), { binary: false });
  else if (entry.binary !== undefined) socket.send(Buffer.from(entry.binary, "utf8"), { binary: true });
  else if (entry.text !== undefined) socket.send(entry.text);
  else socket.send(JSON.stringify(entry.json));
}

function frame(type: string, payload: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: `sys_${type}_${String(extra.sequence ?? 0)}`, type, version: "0.1",
    occurredAt: "2026-01-01T00:00:00.000Z", workspaceId: "ws_fake", payload, ...extra });
}

const servers: WebSocketServer[] = [];
const agents: AgentClient[] = [];
after(async () => {
  for (const a of agents) await a.close();
  for (const s of servers) {
    for (const c of s.clients) c.terminate();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

test("every malformed frame of the shared corpus is logged and ignored; the next good task is handled", async () => {
  const welcomes = [...CORPUS.welcomes];
  const pending = [...CORPUS.frames];
  let connections = 0;
  const acked: Array<Record<string, any>> = [];
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0, perMessageDeflate: false });
  servers.push(server);
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  server.on("connection", (socket) => {
    connections += 1;
    let greeted = false;
    socket.on("message", (data) => {
      const envelope = JSON.parse(String(data)) as Record<string, any>;
      if (!greeted) {
        greeted = true;
        const bad = welcomes.shift();
        if (bad) { // the client gives this connection up and connects again
          send(socket, bad);
          return;
        }
        socket.send(frame("system.welcome", { workspaceId: "ws_fake", heartbeatIntervalMs: 25_000, epoch: "e1",
          headSequence: 0, agentId: "agt_fake", openTasks: [{ taskId: 42 }, { title: 5 }, {}] }));
        socket.send(frame("system.caught_up", { sequence: 0 }));
        while (pending.length) {
          const entry = pending.shift()!;
          send(socket, entry);
          if (entry.reconnects) return; // the client's library closes this connection (1007)
        }
        socket.send(frame("task.assigned", { title: "after the corpus", agentId: "agt_fake", status: "queued",
          createdBy: { kind: "user", id: "u" } }, { sequence: CORPUS.goodTaskSequence, taskId: "t-good" }));
        return;
      }
      if (envelope.type === "system.ping") return;
      acked.push(envelope);
      socket.send(frame("system.ack", { id: envelope.id, sequence: 2000 + acked.length, duplicate: false }));
    });
  });
  const port = (server.address() as { port: number }).port;
  const lines: string[] = [];
  const keep = (message: string): void => { lines.push(message); };
  const logger: Logger = { debug: keep, info: keep, warn: keep, error: keep };
  const agent = new AgentClient(new Credential({ hubUrl: `http://127.0.0.1:${port}`, agentId: "agt_fake",
    workspaceId: "ws_fake", credential: "secret" }), { backoffInitialMs: 10, backoffMaxMs: 50, logger });
  agents.push(agent);
  const handled: string[] = [];
  agent.onTask(async (task) => {
    handled.push(task.title);
    await task.accept();
    await task.succeed("done");
  });
  void agent.start(60_000).catch(() => {});
  await eventually(() => acked.some((e) => e.type === "task.status_changed"), "the good task finished", 90_000);
  assert.deepEqual(handled, ["after the corpus"]);
  const reconnecting = CORPUS.frames.filter((e) => e.reconnects).length;
  assert.equal(connections, 1 + CORPUS.welcomes.length + reconnecting);
  const logged = lines.filter((l) => l.includes("breaks the protocol"));
  assert.ok(logged.length >= 5, lines.slice(0, 20).join("\n"));
  // Logged: the first five and every hundredth, with how many so far; each frame the client saw is counted.
  const counts = logged.map((l) => Number(/; (\d+) so far$/.exec(l)?.[1]));
  const seen = CORPUS.frames.length - reconnecting;
  assert.ok(Math.max(...counts) >= Math.floor(seen / 100) * 100, `${Math.max(...counts)} of ${seen}`);
  assert.equal(agent.lastSequence, CORPUS.goodTaskSequence);
});
