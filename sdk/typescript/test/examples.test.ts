// The ten-line agent of README.md and docs/sdk-typescript.md runs: each block is written to a folder of its own (the
// package linked as node_modules/@lineup-agents/sdk, as `npm install` would), its hub address and pairing code
// replaced by a real hub's, started with node, given a task from the app, approved, and must succeed. The same text
// typechecks as TypeScript (strict).

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { App } from "./support/app.js";
import { eventually, Hub, PACKAGE, REPOSITORY, select, tempDir } from "./support/hub.js";

function firstJsBlock(text: string, after = ""): string {
  const start = after ? text.indexOf(after) : 0;
  assert.ok(start >= 0, `no "${after}"`);
  const block = /```js\n([\s\S]*?)```/.exec(text.slice(start));
  assert.ok(block, "no ```js block");
  return block[1]!;
}

const EXAMPLES: Record<string, string> = {
  "README.md": firstJsBlock(readFileSync(join(REPOSITORY, "README.md"), "utf8"), "## An agent in TypeScript"),
  "docs/sdk-typescript.md": firstJsBlock(readFileSync(join(REPOSITORY, "docs", "sdk-typescript.md"), "utf8"), "## Ten lines"),
};

let hub: Hub;
let app: App;
const running: Array<ReturnType<typeof spawn>> = [];

before(async () => {
  hub = await Hub.start();
  app = await App.connect(hub);
});

after(async () => {
  for (const child of running) child.kill("SIGTERM");
  app?.close();
  await hub?.close();
});

function project(source: string, name: string): string {
  const folder = tempDir("example");
  mkdirSync(join(folder, "node_modules", "@lineup-agents"), { recursive: true });
  symlinkSync(PACKAGE, join(folder, "node_modules", "@lineup-agents", "sdk"), "dir");
  writeFileSync(join(folder, name), source);
  return folder;
}

test("the README's and the docs' examples are the same ten lines", () => {
  assert.equal(EXAMPLES["README.md"], EXAMPLES["docs/sdk-typescript.md"]);
  const code = EXAMPLES["README.md"]!.split("\n").filter((line) => line.trim() && !line.trim().startsWith("//"));
  assert.ok(code.length <= 10, `${code.length} lines of code`);
});

test("both examples typecheck as TypeScript (strict)", () => {
  const folder = project(EXAMPLES["README.md"]!, "readme.mts");
  writeFileSync(join(folder, "docs.mts"), EXAMPLES["docs/sdk-typescript.md"]!);
  const tsc = join(PACKAGE, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "--noEmit", "--strict", "--skipLibCheck", "--target", "es2022", "--module",
    "nodenext", "--moduleResolution", "nodenext", "--typeRoots", join(PACKAGE, "node_modules", "@types"), "--types",
    "node", "readme.mts", "docs.mts"], { cwd: folder, encoding: "utf8" });
});

for (const [where, example] of Object.entries(EXAMPLES)) {
  test(`the example in ${where} runs: pairs, takes a task, asks, succeeds`, async () => {
    const code = await hub.code();
    const source = example.replace('"http://127.0.0.1:9527"', JSON.stringify(hub.base))
      .replace('"ABCD-EFGH"', JSON.stringify(code));
    assert.notEqual(source, example);
    const folder = project(source, "agent.mjs");
    let output = "";
    const child = spawn(process.execPath, ["agent.mjs"], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
    running.push(child);
    child.stdout.on("data", (d: Buffer) => { output += d.toString(); });
    child.stderr.on("data", (d: Buffer) => { output += d.toString(); });
    await eventually(() => {
      if (child.exitCode !== null) throw new Error(`the example exited (${child.exitCode}):\n${output}`);
      return /connected to .* as agent/.test(output);
    }, "the example connected");
    assert.ok(existsSync(join(folder, "my-agent.json")));
    const agentId = JSON.parse(readFileSync(join(folder, "my-agent.json"), "utf8")).agent_id as string;
    const { taskId } = await app.task(agentId, "Ship it");
    const asked = await app.event("interaction.requested", { taskId });
    assert.equal(asked.payload.interaction.title, "Deploy to production?");
    await app.answer(asked.payload.interaction.id as string, { optionId: "approve" });
    const end = await app.finished(taskId);
    assert.equal(end.payload.status, "succeeded");
    assert.equal(end.payload.summary, "Deployed");
    const progress = select(await hub.events(), "task.status_changed", { taskId }).map((e) => e.payload.progress);
    assert.ok(progress.includes(50));
    assert.ok(!output.includes(code), "the pairing code is not printed");
    child.kill("SIGTERM");
  });
}
