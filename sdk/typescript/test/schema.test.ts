// The types are tied to the hub's schema: src/protocol.ts is what scripts/schema.mjs makes of `lineup schema` now
// (a change on either side fails here, and in tests/unit/test_typescript_schema.py), and the embedded frame schema
// accepts what the hub sends and refuses what breaks it.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";

import { frameProblem } from "@lineup-agents/sdk";

import { HUB_DIR, hubPython, PACKAGE } from "./support/hub.js";

const SCRIPT = join(PACKAGE, "scripts", "schema.mjs");

function hubSchema(): Record<string, any> {
  return JSON.parse(execFileSync(hubPython(), ["-m", "hub", "schema"], { cwd: HUB_DIR, encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024 })) as Record<string, any>;
}

function check(schema: unknown): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [SCRIPT, "--check", "--schema", "-"], { input: JSON.stringify(schema),
    encoding: "utf8" });
  return { status: run.status, stderr: run.stderr };
}

test("src/protocol.ts is what the hub's schema generates now", () => {
  const run = spawnSync(process.execPath, [SCRIPT, "--check"], { encoding: "utf8", env: process.env });
  assert.equal(run.status, 0, run.stderr);
});

test("a change in the hub's schema fails the check, naming the line", () => {
  const schema = hubSchema();
  assert.equal(check(schema).status, 0);
  const renamed = structuredClone(schema);
  renamed.$defs.AgentHello.properties.lastSeq = renamed.$defs.AgentHello.properties.lastSequence;
  delete renamed.$defs.AgentHello.properties.lastSequence;
  const failed = check(renamed);
  assert.equal(failed.status, 1);
  assert.match(failed.stderr, /does not match the hub's schema[\s\S]*lastSeq/);
  const unknownKeyword = structuredClone(schema);
  unknownKeyword.$defs.Welcome.properties.epoch.pattern = "^e";
  const refused = check(unknownKeyword);
  assert.notEqual(refused.status, 0);
  assert.match(refused.stderr, /keyword "pattern"/);
});

test("the frame schema: the hub's frames pass, broken ones are named", () => {
  const base = { id: "e1", version: "0.1", occurredAt: "2026-01-01T00:00:00Z", workspaceId: "w" };
  assert.equal(frameProblem("hubToAgent", { ...base, type: "system.ack", payload: { id: "x", sequence: 3 } }), null);
  assert.equal(frameProblem("hubToAgent", { ...base, type: "task.assigned", sequence: 4, taskId: "t",
    payload: { title: "T", agentId: "a", status: "queued", createdBy: { kind: "user", id: "u" }, extra: [1] } }), null);
  assert.match(frameProblem("hubToAgent", { ...base, type: "task.assigned", taskId: "t", payload: { title: "T",
    agentId: "a", status: "queued", createdBy: { kind: "user", id: "u" } } }) ?? "", /sequence/);
  assert.match(frameProblem("hubToAgent", { ...base, type: "system.ack", payload: { id: 5, sequence: 3 } }) ?? "",
    /\$\.payload\.id: expected string/);
  assert.match(frameProblem("hubToAgent", { ...base, type: "interaction.resolved", sequence: 1,
    payload: { interactionId: "i", outcome: "answered", response: null } }) ?? "", /answered or declined/);
  assert.match(frameProblem("hubToAgent", { ...base, version: "0.2", type: "system.pong", payload: {} }) ?? "", /version/);
  assert.notEqual(frameProblem("hubToAgent", { ...base, type: "app.only", payload: {} }), null);
  assert.notEqual(frameProblem("hubToAgent", "text"), null);
  // The hub's refusal of a hello has no workspace; every other frame names it.
  const { workspaceId: _w, ...bare } = base;
  assert.equal(frameProblem("hubToAgent", { ...bare, type: "system.error", payload: { code: "unauthorized",
    message: "m", hint: "h", id: "x" } }), null);
  assert.notEqual(frameProblem("hubToAgent", { ...bare, type: "system.ack", payload: { id: "x", sequence: 1 } }), null);
});
