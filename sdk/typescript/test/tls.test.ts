// A hub with a self-signed certificate (`lineup serve --tls-self-signed`): the SDK pins the fingerprint the hub
// prints (SHA-256 of the DER certificate), pairs, connects and uploads over it, and refuses another certificate
// before anything is sent (the code still works afterwards: it was never spent).

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { AgentClient, PinMismatch, SdkError, pair, pairOrLoad, silentLogger } from "@lineup-agents/sdk";

import { eventually, Hub, tempDir } from "./support/hub.js";

let hub: Hub;
let fingerprint: string;

before(async () => {
  hub = await Hub.start({ args: ["--tls-self-signed"] });
  assert.equal(hub.scheme, "https");
  const line = await eventually(() => /TLS certificate SHA-256 fingerprint: ([0-9A-F:]{95})/.exec(hub.log),
    "the fingerprint in the hub's banner");
  fingerprint = line[1]!;
});

after(async () => {
  await hub?.close();
});

function other(fp: string): string {
  return (fp.startsWith("0") ? "1" : "0") + fp.slice(1);
}

test("pins the printed fingerprint: pairs, connects, uploads; another certificate is refused before the code is sent",
  async () => {
    const code = hub.pairCode(); // `lineup pair`: the code a person reads on the hub's machine
    await assert.rejects(pair(hub.base, code, { name: "unpinned", timeoutMs: 5000 }), (error: unknown) =>
      error instanceof SdkError && /fingerprint/.test(error.message));
    await assert.rejects(pair(hub.base, code, { name: "wrong pin", tlsFingerprint: other(fingerprint) }),
      (error: unknown) => error instanceof PinMismatch);
    const path = join(tempDir("tls"), "agent.json");
    // The fingerprint as a person may type it: lower case, without colons.
    const credential = await pairOrLoad(hub.base, code, path, { name: "pinned",
      tlsFingerprint: fingerprint.toLowerCase().replace(/:/g, ""), logger: silentLogger });
    assert.equal(credential.tlsFingerprint, fingerprint);
    assert.ok(credential.wsUrl.startsWith("wss://"));

    const agent = new AgentClient(credential, { logger: silentLogger, checkFrames: true });
    await agent.start(15_000);
    const stored = await agent.uploadFile(Buffer.from("over TLS"), { name: "note.txt" });
    assert.equal((await agent.downloadFile(stored.fileId)).toString(), "over TLS");
    await agent.close();

    // The same credential with a wrong pin: PinMismatch at once, no retry loop.
    const impostor = new AgentClient(credential.with({ tlsFingerprint: other(fingerprint) }), { logger: silentLogger,
      backoffInitialMs: 20 });
    await assert.rejects(impostor.start(10_000), (error: unknown) => error instanceof PinMismatch);
    await impostor.close();
    await assert.rejects(impostor.uploadFile(Buffer.from("x")), (error: unknown) => error instanceof PinMismatch);
  });
