// The SDK in this process against a real hub process: pairing and the credential file, a task's whole life (progress,
// child tasks, artifacts with a file upload, messages, streaming, every kind of question), a handler that throws or
// returns early, cancellation, withdraw, tools, the outbox's ids, one connection per instance, revocation.

import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { inspect } from "node:util";

import {
  AgentClient, AuthError, Credential, HubError, ReplacedError, SdkError, ToolCallError, approvals, loadCredential, pair,
  pairOrLoad, silentLogger, type Outcome, type TaskHandle,
} from "@lineup-agents/sdk";

import { App } from "./support/app.js";
import { count, eventually, Hub, select, tempDir } from "./support/hub.js";

const QUICK = { backoffInitialMs: 50, backoffMaxMs: 300, logger: silentLogger, checkFrames: true };

let hub: Hub;
let app: App;
const clients: AgentClient[] = [];

async function paired(name: string): Promise<Credential> {
  return await pair(hub.base, await hub.code(name), { name });
}

function client(credential: Credential, options: ConstructorParameters<typeof AgentClient>[1] = {}): AgentClient {
  const made = new AgentClient(credential, { ...QUICK, ...options });
  clients.push(made);
  return made;
}

before(async () => {
  hub = await Hub.start({ env: { LINEUP_HEARTBEAT_INTERVAL_S: "1", LINEUP_CANCEL_TIMEOUT_S: "5" } });
  app = await App.connect(hub);
});

after(async () => {
  for (const c of clients) await c.close();
  app?.close();
  await hub?.close();
});

describe("pairing", () => {
  test("with no address or code of its own, pairs from LINEUP_HUB and LINEUP_CODE (what `lineup keep --hub --code` hands it)", async () => {
    const path = join(tempDir("pair-env"), "agent.json");
    const code = await hub.code("ts from env");
    process.env.LINEUP_HUB = hub.base;
    process.env.LINEUP_CODE = code;
    try {
      const first = await pairOrLoad(null, null, path, { name: "ts from env", logger: silentLogger });
      assert.equal(first.hubUrl, hub.base.replace(/\/+$/, ""));
      // Started again with the same environment (the keeper after a crash): the spent code loads the stored credential.
      assert.equal((await pairOrLoad(undefined, undefined, path, { logger: silentLogger })).credential, first.credential);
    } finally {
      delete process.env.LINEUP_HUB;
      delete process.env.LINEUP_CODE;
    }
  });

  test("pairs once, keeps the credential owner-only, loads it again, and a fresh code keeps the agent", async () => {
    const folder = tempDir("pair");
    const path = join(folder, "agent.json");
    const code = await hub.code("ts pairing");
    const first = await pairOrLoad(hub.base, code, path, { name: "ts pairing", logger: silentLogger });
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const stored = JSON.parse(readFileSync(path, "utf8"));
    assert.equal(stored.agent_id, first.agentId); // the Python SDK's file format
    assert.equal(stored.credential, first.credential);
    // The secret never shows in a log line or JSON.
    assert.ok(!String(first).includes(first.credential));
    assert.ok(!JSON.stringify(first).includes(first.credential));
    assert.ok(!inspect(first).includes(first.credential));

    // The same code again (a config that repeats it) loads the stored one; no code loads it too.
    assert.equal((await pairOrLoad(hub.base, code, path, { logger: silentLogger })).credential, first.credential);
    assert.equal((await pairOrLoad(hub.base, null, path, { logger: silentLogger })).credential, first.credential);

    // A fresh code while holding a credential sends `replaces`: the same agent, a new secret, the old one refused.
    const again = await pairOrLoad(hub.base, await hub.code(), path, { logger: silentLogger });
    assert.equal(again.agentId, first.agentId);
    assert.notEqual(again.credential, first.credential);
    assert.deepEqual(again.replaced && { kept: again.replaced.kept, previous: again.replaced.previousAgentId },
      { kept: true, previous: first.agentId });
    assert.equal(loadCredential(`${path}.bak`).credential, first.credential);
    assert.equal(statSync(`${path}.bak`).mode & 0o777, 0o600);
    const rotated = await hub.events();
    assert.equal(count(rotated, "agent.credential_rotated", { agentId: first.agentId }), 1);
    const old = client(first);
    await assert.rejects(old.start(10_000), (error: unknown) => error instanceof AuthError && error.code === "unauthorized");

    // A stored credential is never sent to another address: a new agent, and the reason says why.
    const elsewhere = await pairOrLoad(`http://localhost:${hub.port}/`, await hub.code(), path, { logger: silentLogger });
    assert.equal(elsewhere.replaced?.kept, true); // localhost is the same machine as 127.0.0.1: sent
    const other = await pairOrLoad(`http://127.0.0.1:${hub.port + 1000}`, "ZZZZ-ZZZZ", join(folder, "none.json"),
      { logger: silentLogger }).catch((error: unknown) => error);
    assert.ok(other instanceof SdkError && /Cannot reach the hub/.test(other.message));
  });

  test("a wrong code is an AuthError, an unreachable hub an SdkError", async () => {
    await assert.rejects(pair(hub.base, "ZZZZ-ZZZZ"), (error: unknown) => error instanceof AuthError
      && error.code === "unauthorized");
    await assert.rejects(pair("http://127.0.0.1:9", "ABCD-EFGH", { timeoutMs: 2000 }), (error: unknown) =>
      error instanceof SdkError && !(error instanceof HubError) && /Cannot reach the hub/.test(error.message));
  });
});

describe("a task's life", () => {
  test("progress, a child task, artifacts (a link and an uploaded file), a message, a stream, questions, success",
    async () => {
      const credential = await paired("ts worker");
      const agent = client(credential, { statePath: join(tempDir("state"), "state.json") });
      const outcomes: Record<string, Outcome> = {};
      const folder = tempDir("files");
      writeFileSync(join(folder, "report.md"), "# Report\n\nAll good.\n");
      writeFileSync(join(folder, "app.py"), "import os\nDEBUG = True\nprint(os.getcwd())\n");
      agent.onTask(async (task: TaskHandle) => {
        await task.accept();
        await task.progress(10, "Starting");
        const child = await task.child("Scan");
        await child.succeed("Scanned");
        await task.artifact("Spec", { url: "https://example.com/spec", mimeType: "text/html", summary: "The spec" });
        await task.artifact("Report", { file: join(folder, "report.md") });
        await task.message("Hello from **TypeScript**");
        await task.streamed("story", async (s) => {
          await s.write("Once ");
          await s.write("upon ");
          await s.write("a time.");
        });
        outcomes.approval = await task.askApproval("Run it?", { command: "rm -rf build && make", risk: "low" });
        outcomes.edit = await task.askApproval("Edit app.py?", {
          approves: approvals.editApproval(join(folder, "app.py"), [{ old: "DEBUG = True", new: "DEBUG = False" }], folder),
        });
        outcomes.choice = await task.askChoice("Colour?", ["red", "blue"]);
        outcomes.several = await task.askChoice("Which?", ["a", "b", "c"], { multiple: true });
        outcomes.input = await task.askInput("How many?", { format: "integer" });
        outcomes.review = await task.askReview("Look at this", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
        await task.progress(90, "Nearly");
        await task.succeed("Done");
      });
      await agent.start(15_000);
      const { taskId } = await app.task(credential.agentId, "Do the thing");
      const answers: Array<[string, Record<string, unknown>]> = [
        ["Run it?", { optionId: "approve" }],
        ["Edit app.py?", { optionId: "reject" }],
        ["Colour?", { optionId: "o2" }],
        ["Which?", { optionIds: ["o1", "o3"] }],
        ["How many?", { text: "42" }],
        ["Look at this", { decision: "request_changes", comment: "b?" }],
      ];
      for (const [title, response] of answers) {
        const asked = await eventually(() => app.stored("interaction.requested", { taskId }).find((f) =>
          f.payload.interaction.title === title), `the question ${title}`);
        await app.answer(asked.payload.interaction.id, response);
      }
      const end = await app.finished(taskId);
      assert.equal(end.payload.status, "succeeded");
      assert.equal(outcomes.approval?.approved, true);
      assert.equal(outcomes.edit?.approved, false);
      assert.equal(outcomes.edit?.optionLabel, "Reject");
      assert.equal(outcomes.choice?.optionId, "o2");
      assert.equal(outcomes.choice?.optionLabel, "blue");
      assert.deepEqual(outcomes.several?.optionLabels, ["a", "c"]);
      assert.equal(outcomes.input?.text, "42");
      assert.equal(outcomes.review?.decision, "request_changes");
      assert.equal(outcomes.review?.comment, "b?");

      const events = await hub.events();
      const asked = select(events, "interaction.requested", { taskId });
      const approval = asked.find((e) => e.payload.interaction.title === "Run it?")!.payload.interaction;
      assert.deepEqual(approval.approves[0].command, "rm -rf build && make"); // stored as a list of items
      assert.notEqual(approval.risk, "low"); // the hub judges `rm -rf` itself, above the agent's "low"
      const edit = asked.find((e) => e.payload.interaction.title === "Edit app.py?")!.payload.interaction;
      assert.equal(edit.approves[0].kind, "edit");
      assert.match(edit.approves[0].diff, /^--- a\/app\.py\n\+\+\+ b\/app\.py\n@@ -1,3 \+1,3 @@\n import os\n-DEBUG = True\n\+DEBUG = False\n/);
      assert.equal(count(events, "task.child_created", { parentTaskId: taskId, title: "Scan" }), 1);
      const artifacts = select(events, "artifact.created", { taskId });
      assert.deepEqual(artifacts.map((a) => a.payload.name).sort(), ["Report", "Spec"]);
      const report = artifacts.find((a) => a.payload.name === "Report")!;
      assert.ok(report.payload.fileId, "the report was uploaded and attached by its file id");
      const downloaded = await agent.downloadFile(report.payload.fileId as string);
      assert.equal(downloaded.toString(), "# Report\n\nAll good.\n");
      const messages = select(events, "message.created", { taskId }).map((m) => m.payload.content);
      assert.deepEqual(messages.sort(), ["Hello from **TypeScript**", "Once upon a time."]);
      const deltas = app.frames.filter((f) => f.type === "message.delta" && f.taskId === taskId);
      assert.deepEqual(deltas.map((d) => [d.payload.offset, d.payload.text]), [[0, "Once "], [5, "upon "], [10, "a time."]]);
      const progress = select(events, "task.status_changed", { taskId }).map((e) => e.payload.progress).filter((p) => p != null);
      assert.deepEqual([progress[0], progress.at(-2), progress.at(-1)], [10, 90, 100]);
      const state = JSON.parse(readFileSync(agent.statePath!, "utf8"));
      assert.equal(state.agentId, credential.agentId);
      const lastAnswer = select(events, "interaction.resolved", { taskId }).at(-1)!;
      assert.ok(state.lastSequence >= lastAnswer.sequence, "the cursor is past the last event the agent received");
      await agent.close();
    });

  test("a handler that throws fails its task with handler_error, one that returns early with handler_returned",
    async () => {
      const credential = await paired("ts thrower");
      const agent = client(credential);
      class QuotaExceeded extends Error {}
      agent.onTask(async (task) => {
        await task.accept();
        if (task.title === "throw") throw new QuotaExceeded("the input file is empty");
        if (task.title === "throw a string") throw "plain text"; // eslint-disable-line no-throw-literal
        if (task.title === "refused") await task.artifact("bad", { url: "javascript:alert(1)" });
      });
      await agent.start(15_000);
      const thrown = await app.task(credential.agentId, "throw");
      const string = await app.task(credential.agentId, "throw a string");
      const refused = await app.task(credential.agentId, "refused");
      const returned = await app.task(credential.agentId, "return");
      const failure = (await app.finished(thrown.taskId)).payload;
      assert.equal(failure.status, "failed");
      assert.deepEqual(failure.error, { code: "handler_error", message: "QuotaExceeded: the input file is empty" });
      assert.equal((await app.finished(string.taskId)).payload.error.message, "String: plain text");
      const refusal = (await app.finished(refused.taskId)).payload.error;
      assert.equal(refusal.code, "handler_error");
      assert.match(refusal.message, /^HubError: invalid_payload: .*\(the hub refused the agent's artifact\.created\)$/);
      const early = (await app.finished(returned.taskId)).payload;
      assert.equal(early.error.code, "handler_returned");
      await agent.close();
    });

  test("cancellation: a running handler sees the request and confirms; a waiting question ends as cancelled",
    async () => {
      const credential = await paired("ts canceller");
      const agent = client(credential);
      const seen: Record<string, string> = {};
      agent.onTask(async (task) => {
        await task.accept();
        if (task.title === "loop") {
          await task.whenCancelRequested();
          seen.reason = task.cancelReason ?? "";
          seen.aborted = String(task.signal.aborted);
          await task.cancelled("Stopped after the first step");
          return;
        }
        const answer = await task.askApproval("Publish?");
        seen.outcome = answer.outcome;
        seen.cause = answer.cause ?? "";
      });
      await agent.start(15_000);
      const loop = await app.task(credential.agentId, "loop");
      await app.event("task.accepted", { taskId: loop.taskId });
      await app.cancel(loop.taskId, "Changed my mind");
      const end = await app.finished(loop.taskId);
      assert.equal(end.payload.status, "cancelled");
      assert.equal(end.payload.summary, "Stopped after the first step");
      assert.equal(seen.reason, "Changed my mind");
      assert.equal(seen.aborted, "true");

      const waiting = await app.task(credential.agentId, "ask");
      await app.event("interaction.requested", { taskId: waiting.taskId });
      await app.cancel(waiting.taskId);
      assert.equal((await app.finished(waiting.taskId)).payload.status, "cancelled");
      await eventually(() => seen.outcome, "the question's outcome");
      assert.equal(seen.outcome, "cancelled");
      assert.equal(seen.cause, "task_cancelled");
      // The handler returned after the hub ended the task: nothing more is sent, no failure.
      const events = await hub.events();
      assert.equal(count(events, "task.status_changed", { taskId: waiting.taskId, status: "failed" }), 0);
      await agent.close();
    });

  test("withdraw: the pending ask resolves as withdrawn, and the card says why", async () => {
    const credential = await paired("ts withdrawer");
    const agent = client(credential);
    let outcome: Outcome | undefined;
    agent.onTask(async (task) => {
      await task.accept();
      outcome = await task.askApproval("Go?");
      await task.succeed();
    });
    await agent.start(15_000);
    const { taskId } = await app.task(credential.agentId, "withdraw");
    const asked = await app.event("interaction.requested", { taskId });
    assert.equal(await agent.withdraw(asked.payload.interaction.id, "answered in the terminal"), true);
    assert.equal((await app.finished(taskId)).payload.status, "succeeded");
    assert.equal(outcome?.outcome, "cancelled");
    assert.equal(outcome?.cause, "withdrawn");
    const resolved = await app.event("interaction.resolved", { taskId });
    assert.equal(resolved.payload.response.reason, "answered in the terminal");
    assert.equal(await agent.withdraw(outcome!.interactionId, "again"), false);
    await agent.close();
  });
});

describe("the wire", () => {
  test("the same envelope id twice is stored once, with the same sequence; acks are matched by id", async () => {
    const credential = await paired("ts duplicate");
    const agent = client(credential);
    await agent.start(15_000);
    const conversationId = `c-dup-${Date.now()}`;
    await agent.send("conversation.create", { title: "dup", agentIds: [] }, { conversationId });
    const fields = { id: "ts-dup-envelope-1", conversationId };
    const [one, two] = await Promise.all([
      agent.send("message.create", { content: "once" }, fields),
      agent.send("message.create", { content: "once" }, fields),
    ]);
    assert.deepEqual(one, two); // one envelope in the outbox, one answer for both
    const again = await agent.send("message.create", { content: "once" }, fields);
    assert.equal(again.sequence, one.sequence);
    assert.equal(again.duplicate, true);
    const events = await hub.events();
    assert.equal(events.filter((e) => e.id === "ts-dup-envelope-1").length, 1);
    // The same id with other contents is a conflict, refused and reported to the sender.
    await assert.rejects(agent.send("message.create", { content: "other" }, fields), (error: unknown) =>
      error instanceof HubError && error.code === "conflict" && error.envelopeType === "message.create");
    await agent.close();
  });

  test("one connection per instance: the newer process takes over, the older stops without reconnecting", async () => {
    const credential = await paired("ts twins");
    const older = client(credential);
    await older.start(15_000);
    const newer = client(credential);
    await newer.start(15_000);
    await assert.rejects(older.done, (error: unknown) => error instanceof ReplacedError && /took over/.test(error.message));
    assert.equal(older.connected, false);
    assert.equal(newer.connected, true);
    await assert.rejects(older.send("message.create", { content: "x" }), /stopped/);
    // Siblings with their own instance coexist.
    const sibling = client(credential, { instance: "window-2" });
    await sibling.start(15_000);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(newer.connected && sibling.connected, true);
    await newer.close();
    await sibling.close();
  });

  test("revoked: the client stops with AuthError and its waiting handler is released", async () => {
    const credential = await paired("ts revoked");
    const agent = client(credential);
    let released: unknown;
    agent.onTask(async (task) => {
      await task.accept();
      try {
        // Released either way: the hub ends the question (agent_revoked) if its word arrives before the close,
        // else the client's stop rejects the wait with ClientStopped.
        released = (await task.askApproval("Wait forever?")).cause;
      } catch (error) {
        released = (error as Error).name;
        throw error;
      }
    });
    await agent.start(15_000);
    const { taskId } = await app.task(credential.agentId, "revoke me");
    await app.event("interaction.requested", { taskId });
    await hub.api("POST", `/api/agents/${credential.agentId}/revoke`);
    await assert.rejects(agent.done, (error: unknown) => error instanceof AuthError && /revoked/.test(error.message));
    await eventually(() => released, "the handler released");
    assert.ok(released === "ClientStopped" || released === "agent_revoked", String(released));
    // The task is not failed by the SDK: a stopped client leaves it for the next process.
    assert.equal(count(await hub.events(), "task.status_changed", { taskId, status: "failed" }), 0);
  });

  test("tools: the hub's calculator, an error result, and this agent's own tool called by the app", async () => {
    const credential = await paired("ts tools");
    const agent = client(credential, { tools: [{ name: "echo", type: "toolset", description: "Says it back",
      actions: [{ name: "say", description: "Say it", inputSchema: { type: "object", properties: { text: { type: "string" } } } }] }] });
    agent.onTool("echo", async (action, args) => ({ action, said: args.text }));
    await agent.start(15_000);
    const offered = await agent.listTools();
    assert.ok(offered.some((t) => t.name === "calculator"), JSON.stringify(offered.map((t) => t.name)));
    const sum = await agent.callTool("calculator", { a: 2, b: 12 }, { action: "add" });
    assert.equal(sum.value, 14);
    await assert.rejects(agent.callTool("calculator", { a: 1, b: 0 }, { action: "divide" }), (error: unknown) =>
      error instanceof ToolCallError && error.code === "division_by_zero");
    await assert.rejects(agent.callTool("no-such-tool", {}), (error: unknown) => error instanceof ToolCallError
      && error.code === "unknown_tool");
    const call = await app.request("tool.call", { call_id: `app-${Date.now()}`, name: "echo", action: "say",
      arguments: { text: "hi" }, targetAgentId: credential.agentId });
    const result = await eventually(() => app.frames.find((f) => f.type === "tool.result"
      && f.payload.callEventId && f.payload.name === "echo"), "the echo result");
    assert.deepEqual(result.payload.result, { action: "say", said: "hi" });
    assert.ok(call.sequence);
    await agent.close();
  });
});
