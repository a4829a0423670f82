import { createRequire as __lineupCreateRequire } from "node:module";
const require = __lineupCreateRequire(import.meta.url);
import {
  __export
} from "./chunk-WKF5EYHC.js";

// src/runtime.ts
import { createPluginRuntimeStore } from "openclaw/plugin-sdk/runtime-store";
var runtimeStore = createPluginRuntimeStore({
  pluginId: "lineup",
  errorMessage: "The LineUp channel's OpenClaw runtime is not set yet (the plugin is not fully loaded)."
});
var links = /* @__PURE__ */ new Map();
var configs = /* @__PURE__ */ new Map();

// src/channel.ts
import { AsyncResource } from "node:async_hooks";
import { randomUUID as randomUUID4 } from "node:crypto";
import { createChatChannelPlugin } from "openclaw/plugin-sdk/channel-core";
import { registerChannelRuntimeContext } from "openclaw/plugin-sdk/channel-runtime-context";
import { CHANNEL_APPROVAL_NATIVE_RUNTIME_CONTEXT_CAPABILITY } from "openclaw/plugin-sdk/approval-handler-adapter-runtime";

// ../../sdk/typescript/dist/client.js
import { randomUUID as randomUUID2 } from "node:crypto";
import { readFileSync, renameSync as renameSync2, writeFileSync } from "node:fs";
import { basename as basename2, dirname as dirname2, join as join2 } from "node:path";

// ../../sdk/typescript/dist/cleartext.js
import { isIP } from "node:net";

// ../../sdk/typescript/dist/errors.js
var SdkError = class extends Error {
  constructor(message) {
    super(message);
    this.name = new.target.name;
  }
};
var RETRYABLE = ["storage_full", "internal", "rate_limited"];
var HubError = class extends SdkError {
  code;
  hint;
  details;
  /** What was refused (`artifact.created`), when it was an envelope. */
  envelopeType;
  /** The hub's message alone (`message` also names the code and the hint). */
  reason;
  constructor(code, message, hint = "", details = {}, envelopeType) {
    super(`${code}: ${message}${hint ? ` (${hint})` : ""}`);
    this.code = code;
    this.reason = message;
    this.hint = hint;
    this.details = details;
    this.envelopeType = envelopeType;
  }
  /** From a `system.error` payload or an HTTP error body's `error`. */
  static fromPayload(error, envelopeType) {
    const e = typeof error === "object" && error !== null ? error : {};
    const details = typeof e.details === "object" && e.details !== null && !Array.isArray(e.details) ? e.details : {};
    return new this(typeof e.code === "string" ? e.code : "internal", typeof e.message === "string" ? e.message : "The hub refused it without saying why.", typeof e.hint === "string" ? e.hint : "", details, envelopeType);
  }
  /** Nothing was stored and sending the same envelope again may succeed: the SDK does so by itself. */
  get retryable() {
    const limit = this.details.limit;
    return RETRYABLE.includes(this.code) && (limit === void 0 || limit === null || limit === "rate");
  }
};
var AuthError = class extends HubError {
};
var ReplacedError = class extends SdkError {
};
var OutboxFull = class extends SdkError {
};
var PinMismatch = class extends SdkError {
};
var ClientStopped = class extends SdkError {
};
var ToolCallError = class extends SdkError {
  code;
  reason;
  constructor(code, message = "") {
    super(`${code}: ${message}`);
    this.code = code;
    this.reason = message;
  }
};

// ../../sdk/typescript/dist/cleartext.js
var ALLOW_INSECURE_ENV = "LINEUP_ALLOW_INSECURE_HUB";
var InsecureHub = class extends SdkError {
};
function isLoopbackHost(host) {
  const name = host.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost"))
    return true;
  if (isIP(name) === 4)
    return name.split(".")[0] === "127";
  if (isIP(name) === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name);
    if (mapped)
      return mapped[1].split(".")[0] === "127";
    return /^(0{0,4}:){2,7}0{0,3}1$/.test(name) || name === "::1";
  }
  return false;
}
function allowedByEnvironment() {
  const value = globalThis.process?.env?.[ALLOW_INSECURE_ENV];
  return ["1", "true", "yes"].includes((value ?? "").trim().toLowerCase());
}
function refuseCleartext(url, allowInsecure, what) {
  const target = new URL(url);
  if (target.protocol === "https:" || target.protocol === "wss:" || isLoopbackHost(target.hostname) || allowInsecure) {
    return;
  }
  const host = target.hostname || "HOST";
  const port = Number(target.port || 80);
  throw new InsecureHub(`Refusing to send ${what} to ${target.protocol}//${host}:${port} in clear: anyone on the network on the way could read it. Use the hub's https:// address (by default https://${host}:${port + 1}, the hub's port + 1, with the fingerprint its pairing command shows). On a network you trust, allow plain http explicitly: allowInsecure: true, or ${ALLOW_INSECURE_ENV}=1.`);
}

// ../../sdk/typescript/dist/files.js
import { randomBytes } from "node:crypto";
import { createReadStream, createWriteStream, renameSync, statSync, unlinkSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { pipeline } from "node:stream/promises";

// ../../sdk/typescript/dist/http.js
import * as http from "node:http";
import * as https from "node:https";

// ../../sdk/typescript/dist/tlspin.js
import { createHash } from "node:crypto";
import { isIP as isIP2 } from "node:net";
import * as tls from "node:tls";
function normaliseFingerprint(fingerprint) {
  const hex = fingerprint.replace(/[:\s]/g, "").toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new SdkError("A TLS fingerprint is 64 hex digits (SHA-256), as the hub prints it.");
  }
  return hex.match(/../g).join(":");
}
function fingerprintOf(der) {
  return normaliseFingerprint(createHash("sha256").update(der).digest("hex"));
}
async function pinnedSocket(host, port, fingerprint, timeoutMs = 1e4, alpn) {
  const pin = normaliseFingerprint(fingerprint);
  const socket = tls.connect({
    host,
    port,
    rejectUnauthorized: false,
    ...isIP2(host) ? {} : { servername: host },
    ...alpn ? { ALPNProtocols: alpn } : {}
  });
  try {
    await new Promise((resolve2, reject) => {
      const timer = setTimeout(() => reject(new SdkError(`No TLS handshake with ${host}:${port} within ${timeoutMs} ms.`)), timeoutMs);
      socket.once("secureConnect", () => {
        clearTimeout(timer);
        resolve2();
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
  } catch (error) {
    socket.destroy();
    throw error;
  }
  const certificate = socket.getPeerCertificate(false);
  const der = certificate && "raw" in certificate ? certificate.raw : void 0;
  if (!der || fingerprintOf(der) !== pin) {
    socket.destroy();
    throw new PinMismatch("The hub's TLS certificate does not match the pinned fingerprint: someone may be intercepting the connection, or the hub's certificate changed. Check the fingerprint the hub prints and pair again.");
  }
  socket.on("error", () => {
  });
  return socket;
}

// ../../sdk/typescript/dist/http.js
async function openRequest(url, request3) {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  if (!secure && target.protocol !== "http:")
    throw new SdkError(`Not an http(s) address: ${url}`);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port || (secure ? 443 : 80));
  const timeoutMs = request3.timeoutMs ?? 1e4;
  const options2 = {
    method: request3.method,
    host,
    port,
    path: target.pathname + target.search,
    headers: { ...request3.headers },
    timeout: timeoutMs
  };
  let send = http.request;
  if (secure && request3.fingerprint) {
    const socket = await pinnedSocket(host, port, request3.fingerprint, timeoutMs, ["http/1.1"]);
    options2.createConnection = () => socket;
  } else if (secure) {
    send = https.request;
  }
  return await new Promise((resolve2, reject) => {
    const req = send(options2, resolve2);
    req.on("timeout", () => req.destroy(new SdkError(`The hub at ${target.origin} did not answer within ${timeoutMs} ms.`)));
    req.on("error", reject);
    const body = request3.body;
    if (body === void 0)
      req.end();
    else if (typeof body === "string" || body instanceof Uint8Array)
      req.end(body);
    else {
      body.on("error", (error) => req.destroy(error));
      body.pipe(req);
    }
  });
}
async function readBody(response, limit) {
  const chunks = [];
  let size2 = 0;
  for await (const chunk of response) {
    size2 += chunk.length;
    if (size2 > limit) {
      response.destroy();
      throw new SdkError(`The hub's answer is larger than ${limit} bytes.`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
async function refusal(response, authCodes) {
  let error;
  try {
    error = JSON.parse((await readBody(response, 64 * 1024)).toString("utf8")).error;
  } catch {
    error = void 0;
  }
  if (typeof error !== "object" || error === null || typeof error.code !== "string") {
    return new HubError("internal", `The hub answered HTTP ${response.statusCode}.`);
  }
  const code = error.code;
  return authCodes.includes(code) ? AuthError.fromPayload(error) : HubError.fromPayload(error);
}

// ../../sdk/typescript/dist/files.js
var DEFAULT_MAX_DOWNLOAD = 1024 * 1024 * 1024;
var TYPES = {
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".csv": "text/csv",
  ".json": "application/json",
  ".html": "text/html",
  ".htm": "text/html",
  ".xml": "application/xml",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
  ".log": "text/plain",
  ".diff": "text/x-diff",
  ".patch": "text/x-diff",
  ".js": "text/javascript",
  ".ts": "text/plain",
  ".py": "text/x-python",
  ".yaml": "application/yaml",
  ".yml": "application/yaml"
};
function guessMimeType(name) {
  return TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}
function path(credential, rest) {
  return new URL(credential.hubUrl).pathname.replace(/\/+$/, "") + rest;
}
function origin(credential) {
  return new URL(credential.hubUrl).origin;
}
async function uploadFile(credential, source, options2 = {}) {
  const name = options2.name ?? (typeof source === "string" ? basename(source) : "file");
  const mimeType = options2.mimeType ?? guessMimeType(name);
  const size2 = typeof source === "string" ? statSync(source).size : source.byteLength;
  const body = typeof source === "string" ? createReadStream(source) : source;
  let response;
  try {
    response = await openRequest(origin(credential) + path(credential, "/api/files"), {
      method: "POST",
      body,
      fingerprint: credential.tlsFingerprint,
      timeoutMs: options2.timeoutMs ?? 3e5,
      headers: {
        Authorization: `Bearer ${credential.credential}`,
        "Content-Type": mimeType,
        "Content-Length": String(size2),
        "X-File-Name": encodeURIComponent(name)
      }
    });
  } catch (error) {
    if (error instanceof SdkError)
      throw error;
    throw new SdkError(`Could not upload ${JSON.stringify(name)} to ${credential.hubUrl}: ${error.message}`);
  }
  if (response.statusCode !== 201)
    throw await refusal(response, ["unauthorized"]);
  const answer = JSON.parse((await readBody(response, 1024 * 1024)).toString("utf8"));
  if (typeof answer?.fileId !== "string")
    throw new SdkError("The hub's answer to the upload has no fileId.");
  return answer;
}
async function downloadFile(credential, fileId, options2 = {}) {
  const maxBytes = options2.maxBytes ?? DEFAULT_MAX_DOWNLOAD;
  let response;
  try {
    response = await openRequest(origin(credential) + path(credential, `/api/files/${encodeURIComponent(fileId)}`), {
      method: "GET",
      fingerprint: credential.tlsFingerprint,
      timeoutMs: options2.timeoutMs ?? 3e5,
      headers: { Authorization: `Bearer ${credential.credential}` }
    });
  } catch (error) {
    if (error instanceof SdkError)
      throw error;
    throw new SdkError(`Could not download file ${fileId} from ${credential.hubUrl}: ${error.message}`);
  }
  if (response.statusCode !== 200)
    throw await refusal(response, ["unauthorized"]);
  const length = Number(response.headers["content-length"] ?? -1);
  if (length > maxBytes) {
    response.destroy();
    throw new SdkError(`File ${fileId} is ${length} bytes, more than maxBytes=${maxBytes}.`);
  }
  if (options2.to === void 0)
    return await readBody(response, maxBytes);
  const to = options2.to;
  const temp = join(dirname(to), `.${basename(to)}.${randomBytes(4).toString("hex")}`);
  let written = 0;
  try {
    response.on("data", (chunk) => {
      written += chunk.length;
      if (written > maxBytes)
        response.destroy(new SdkError(`File ${fileId} is more than maxBytes=${maxBytes}.`));
    });
    await pipeline(response, createWriteStream(temp, { mode: 384 }));
    renameSync(temp, to);
  } catch (error) {
    try {
      unlinkSync(temp);
    } catch {
    }
    throw error;
  }
  return to;
}

// ../../sdk/typescript/dist/log.js
var LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };
function consoleLogger(level) {
  const wanted = level ?? process.env.LINEUP_SDK_LOG ?? "info";
  const floor = LEVELS[wanted] ?? LEVELS.info;
  const at = (name) => (message, ...rest) => {
    if (LEVELS[name] >= floor)
      console.error(`${(/* @__PURE__ */ new Date()).toISOString()} lineup-sdk ${name}: ${message}`, ...rest);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

// ../../sdk/typescript/dist/outbox.js
var Outbox = class {
  maxItems;
  #pending = /* @__PURE__ */ new Map();
  constructor(maxItems = 1e4) {
    this.maxItems = maxItems;
  }
  get size() {
    return this.#pending.size;
  }
  has(id) {
    return this.#pending.has(id);
  }
  get(id) {
    return this.#pending.get(id)?.envelope;
  }
  /** Keep `envelope` until its ack; an id already waiting (the same object sent twice: a deterministic id) shares
   * the first one's answer. Throws OutboxFull past `maxItems`. */
  add(envelope) {
    const waiting = this.#pending.get(envelope.id);
    if (waiting)
      return waiting.promise;
    if (this.#pending.size >= this.maxItems) {
      throw new OutboxFull(`${this.#pending.size} envelopes are waiting for the hub's ack (limit ${this.maxItems}); the hub is unreachable or slow. Wait for acks before sending more.`);
    }
    let resolve2;
    let reject;
    const promise = new Promise((ok, fail) => {
      resolve2 = ok;
      reject = fail;
    });
    promise.catch(() => {
    });
    this.#pending.set(envelope.id, { envelope, promise, resolve: resolve2, reject });
    return promise;
  }
  /** In the order they were queued. */
  pending() {
    return [...this.#pending.values()].map((p) => p.envelope);
  }
  settle(id, outcome) {
    const entry = this.#pending.get(id);
    if (!entry)
      return;
    this.#pending.delete(id);
    if ("ack" in outcome)
      entry.resolve(outcome.ack);
    else
      entry.reject(outcome.error);
  }
  failAll(error) {
    for (const id of [...this.#pending.keys()])
      this.settle(id, { error });
  }
};

// ../../sdk/typescript/dist/protocol.js
var PROTOCOL_VERSION = "0.1";
var FRAME_SCHEMA = {
  frames: {
    handshake: { "$ref": "#/$defs/Envelope", "allOf": [{ "if": { "properties": { "type": { "const": "agent.hello" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/AgentHello" } } } }, { "if": { "properties": { "type": { "const": "app.hello" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/AppHello" } } } }], "not": { "description": "`sequence` is set by the hub; clients never send it.", "required": ["sequence"] }, "properties": { "type": { "enum": ["agent.hello", "app.hello"] } } },
    agentToHub: { "$ref": "#/$defs/Envelope", "allOf": [{ "required": ["workspaceId"] }, { "if": { "properties": { "type": { "const": "system.ping" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/Ping" } } } }, { "if": { "properties": { "type": { "const": "conversation.create" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ConversationCreate" } } } }, { "if": { "properties": { "type": { "const": "message.create" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/MessageCreate" } } } }, { "if": { "properties": { "type": { "const": "message.delta" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/MessageDelta" } } } }, { "if": { "properties": { "type": { "const": "task.create" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/TaskCreate" } } } }, { "if": { "properties": { "type": { "const": "task.accepted" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/TaskAccepted" } } } }, { "if": { "properties": { "type": { "const": "task.status_changed" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/TaskStatusChanged" } } } }, { "if": { "properties": { "type": { "const": "task.child_created" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/TaskChildCreated" } } } }, { "if": { "properties": { "type": { "const": "task.checkpoint" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/TaskCheckpoint" } } } }, { "if": { "properties": { "type": { "const": "interaction.requested" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/InteractionRequested" } } } }, { "if": { "properties": { "type": { "const": "interaction.withdraw" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/InteractionWithdraw" } } } }, { "if": { "properties": { "type": { "const": "artifact.created" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ArtifactCreated" } } } }, { "if": { "properties": { "type": { "const": "tool.list" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ToolList" } } } }, { "if": { "properties": { "type": { "const": "tool.call" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ToolCall" } } } }, { "if": { "properties": { "type": { "const": "tool.result" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ToolResult" } } } }, { "description": "The hub refuses these types from this side (`forbidden`, or the hello again).", "properties": { "type": { "not": { "enum": ["agent.hello", "app.hello", "interaction.respond", "task.cancel_requested"] } } } }], "not": { "description": "`sequence` is set by the hub; clients never send it.", "required": ["sequence"] } },
    hubToAgent: { "$ref": "#/$defs/Envelope", "allOf": [{ "if": { "properties": { "type": { "not": { "const": "system.error" } } } }, "then": { "required": ["workspaceId"] } }, { "if": { "properties": { "type": { "const": "system.welcome" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/Welcome" } } } }, { "if": { "properties": { "type": { "const": "system.ack" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/Ack" } } } }, { "if": { "properties": { "type": { "const": "system.error" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/Error" } } } }, { "if": { "properties": { "type": { "const": "system.resync_required" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ResyncRequired" } } } }, { "if": { "properties": { "type": { "const": "system.caught_up" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/CaughtUp" } } } }, { "if": { "properties": { "type": { "const": "system.pong" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/Ping" } } } }, { "if": { "properties": { "type": { "const": "task.assigned" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/TaskCreated" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "message.delivered" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/MessageCreated" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "interaction.resolved" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/InteractionResolved" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "task.cancel_requested" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/StoredTaskCancelRequested" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "task.status_changed" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/StoredTaskStatusChanged" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "tool.call" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/StoredToolCall" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "tool.result" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/StoredToolResult" } }, "required": ["sequence"] } }, { "if": { "properties": { "type": { "const": "tool.list" } } }, "then": { "properties": { "payload": { "$ref": "#/$defs/ToolOffer" } } } }], "properties": { "type": { "enum": ["interaction.resolved", "message.delivered", "system.ack", "system.caught_up", "system.error", "system.pong", "system.resync_required", "system.welcome", "task.assigned", "task.cancel_requested", "task.status_changed", "tool.call", "tool.list", "tool.result"] } } }
  },
  $defs: {
    Ack: { "title": "Ack", "type": "object", "properties": { "id": { "type": "string" }, "sequence": { "anyOf": [{ "type": "integer" }, { "type": "null" }] }, "duplicate": { "type": "boolean", "default": false }, "warning": { "anyOf": [{ "enum": ["unknown_type"] }, { "type": "null" }], "default": null }, "transient": { "type": "boolean", "default": false } }, "required": ["id", "sequence"] },
    AgentHello: { "title": "AgentHello", "type": "object", "properties": { "credential": { "type": "string", "maxLength": 512, "minLength": 1 }, "agentVersion": { "type": "string", "default": "" }, "runtime": { "type": "string", "default": "" }, "capabilities": { "type": "array", "items": { "type": "string" }, "default": [] }, "tools": { "anyOf": [{ "type": "array", "items": { "type": "object" } }, { "type": "null" }], "default": null }, "epoch": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "lastSequence": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }], "default": null }, "instance": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": ["credential"] },
    AppHello: { "title": "AppHello", "type": "object", "properties": { "token": { "type": "string", "maxLength": 512, "minLength": 1 }, "epoch": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "lastSequence": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }], "default": null } }, "required": ["token"] },
    ApprovalSubject: { "title": "ApprovalSubject", "description": "One thing an approval approves, whole (docs/protocol.md#what-an-approval-approves): the command that runs,\nthe content a file gets or the edits made to it, a tool's whole input, or the exact commit; never cut. An\napproval carries one such item or a list of them, every one shown on the card. The hub adds `length` and\n`lines` and judges each item's risk itself.", "type": "object", "properties": { "kind": { "enum": ["command", "commit", "edit", "tool", "write"] }, "command": { "anyOf": [{ "type": "string", "maxLength": 262144 }, { "type": "null" }], "default": null }, "argv": { "anyOf": [{ "type": "array", "items": { "type": "string", "maxLength": 262144 }, "maxItems": 4096, "minItems": 1 }, { "type": "null" }], "default": null }, "cwd": { "anyOf": [{ "type": "string", "maxLength": 4096 }, { "type": "null" }], "default": null }, "path": { "anyOf": [{ "type": "string", "maxLength": 4096, "minLength": 1 }, { "type": "null" }], "default": null }, "content": { "anyOf": [{ "type": "string", "maxLength": 262144 }, { "type": "null" }], "default": null }, "edits": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/ApprovedEdit" }, "maxItems": 100 }, { "type": "null" }], "default": null }, "diff": { "anyOf": [{ "type": "string", "maxLength": 262144 }, { "type": "null" }], "default": null }, "oldHidden": { "anyOf": [{ "enum": ["not_text", "outside", "secret", "too_large"] }, { "type": "null" }], "default": null }, "oldSize": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }], "default": null }, "tool": { "anyOf": [{ "type": "string", "maxLength": 500, "minLength": 1 }, { "type": "null" }], "default": null }, "input": { "default": null }, "tree": { "anyOf": [{ "type": "string", "maxLength": 64, "minLength": 40 }, { "type": "null" }], "default": null }, "parent": { "anyOf": [{ "type": "string", "maxLength": 64, "minLength": 40 }, { "type": "null" }], "default": null }, "message": { "anyOf": [{ "type": "string", "maxLength": 262144 }, { "type": "null" }], "default": null }, "files": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/CommitFile" }, "maxItems": 1e3 }, { "type": "null" }], "default": null }, "hooks": { "anyOf": [{ "type": "array", "items": { "type": "string", "maxLength": 200 }, "maxItems": 50 }, { "type": "null" }], "default": null } }, "required": ["kind"] },
    ApprovedEdit: { "title": "ApprovedEdit", "description": "One replacement in a file: `old` becomes `new` (every occurrence when `replaceAll`).", "type": "object", "properties": { "old": { "type": "string", "maxLength": 262144 }, "new": { "type": "string", "maxLength": 262144 }, "replaceAll": { "type": "boolean", "default": false } }, "required": ["old", "new"] },
    ArtifactCreated: { "title": "ArtifactCreated", "type": "object", "properties": { "name": { "type": "string", "maxLength": 500, "minLength": 1 }, "url": { "anyOf": [{ "type": "string", "maxLength": 4e3, "minLength": 1 }, { "type": "null" }], "default": null }, "fileId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "mimeType": { "anyOf": [{ "type": "string", "maxLength": 200 }, { "type": "null" }], "default": null }, "summary": { "anyOf": [{ "type": "string", "maxLength": 4e3 }, { "type": "null" }], "default": null }, "artifactId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": ["name"], "allOf": [{ "description": "An artifact needs `url` or `fileId`.", "anyOf": [{ "required": ["url"] }, { "required": ["fileId"] }] }] },
    Attachment: { "title": "Attachment", "description": "A file uploaded to the hub (POST /api/files) attached to a message; the hub adds its name, type and size.", "type": "object", "properties": { "fileId": { "type": "string", "maxLength": 128, "minLength": 1 } }, "required": ["fileId"] },
    Author: { "title": "Author", "description": "Who made an event: a person, an agent, or the hub itself.", "type": "object", "properties": { "kind": { "enum": ["agent", "hub", "user"] }, "id": { "type": "string" } }, "required": ["kind", "id"] },
    CaughtUp: { "title": "CaughtUp", "type": "object", "properties": { "sequence": { "type": "integer" } }, "required": ["sequence"] },
    CommitFile: { "title": "CommitFile", "description": "One file of a commit an approval approves: its path, how it changes, and its lines added and removed.", "type": "object", "properties": { "path": { "type": "string", "maxLength": 4096, "minLength": 1 }, "status": { "enum": ["added", "copied", "deleted", "modified", "renamed", "type_changed"] }, "added": { "type": "integer", "minimum": 0, "default": 0 }, "removed": { "type": "integer", "minimum": 0, "default": 0 }, "binary": { "type": "boolean", "default": false }, "oldPath": { "anyOf": [{ "type": "string", "maxLength": 4096 }, { "type": "null" }], "default": null } }, "required": ["path", "status"] },
    ConversationCreate: { "title": "ConversationCreate", "type": "object", "properties": { "title": { "type": "string", "maxLength": 500, "minLength": 1 }, "agentIds": { "type": "array", "items": { "type": "string", "maxLength": 128, "minLength": 1 }, "default": [] } }, "required": ["title"] },
    Envelope: { "title": "Envelope", "description": "One frame on /ws/app or /ws/agent, and one row of the event log.", "type": "object", "properties": { "id": { "type": "string", "maxLength": 128, "minLength": 1 }, "type": { "type": "string", "maxLength": 64, "minLength": 1 }, "version": { "const": "0.1", "description": "Fixed: the protocol version." }, "occurredAt": { "type": "string" }, "payload": { "type": "object" }, "workspaceId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "conversationId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "taskId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "sequence": { "anyOf": [{ "type": "integer" }, { "type": "null" }], "default": null }, "correlationId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": ["id", "type", "version", "occurredAt", "payload"] },
    Error: { "title": "Error", "type": "object", "properties": { "code": { "type": "string" }, "message": { "type": "string" }, "hint": { "type": "string" }, "id": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "details": { "anyOf": [{ "type": "object" }, { "type": "null" }], "default": null } }, "required": ["code", "message", "hint"] },
    InteractionOption: { "title": "InteractionOption", "type": "object", "properties": { "id": { "type": "string", "maxLength": 64, "minLength": 1 }, "label": { "type": "string", "maxLength": 200, "minLength": 1 }, "style": { "anyOf": [{ "enum": ["danger", "primary", "secondary"] }, { "type": "null" }], "default": null }, "recommended": { "type": "boolean", "default": false }, "description": { "anyOf": [{ "type": "string", "maxLength": 2e3 }, { "type": "null" }], "default": null } }, "required": ["id", "label"] },
    InteractionRequested: { "title": "InteractionRequested", "type": "object", "properties": { "interaction": { "$ref": "#/$defs/InteractionSpec" } }, "required": ["interaction"] },
    InteractionResolved: { "title": "InteractionResolved", "description": "The outcome of a question; `response` is the checked answer, null when nobody answered.", "type": "object", "properties": { "interactionId": { "type": "string", "maxLength": 128, "minLength": 1 }, "outcome": { "enum": ["answered", "cancelled", "declined", "expired"] }, "response": { "anyOf": [{ "type": "object" }, { "type": "null" }] }, "respondedBy": { "anyOf": [{ "$ref": "#/$defs/Responder" }, { "type": "null" }], "default": null }, "answeredAt": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null } }, "required": ["interactionId", "outcome", "response"], "allOf": [{ "description": "An answered or declined interaction carries the response; an expired one null.", "if": { "properties": { "outcome": { "enum": ["answered", "declined"] } } }, "then": { "properties": { "response": { "type": "object" } } }, "else": { "if": { "properties": { "outcome": { "const": "expired" } } }, "then": { "properties": { "response": { "type": "null" } } } } }] },
    InteractionSpec: { "title": "InteractionSpec", "type": "object", "properties": { "type": { "enum": ["approval", "choice", "input", "review"] }, "title": { "type": "string", "maxLength": 500, "minLength": 1 }, "id": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "description": { "type": "string", "maxLength": 262144, "default": "" }, "impact": { "type": "string", "maxLength": 262144, "default": "" }, "risk": { "enum": ["high", "low", "medium"], "default": "medium" }, "options": { "type": "array", "items": { "$ref": "#/$defs/InteractionOption" }, "default": [] }, "multiple": { "type": "boolean", "default": false }, "format": { "enum": ["email", "integer", "number", "text", "url"], "default": "text" }, "pattern": { "anyOf": [{ "type": "string", "maxLength": 500 }, { "type": "null" }], "default": null }, "placeholder": { "anyOf": [{ "type": "string", "maxLength": 500 }, { "type": "null" }], "default": null }, "maxLength": { "anyOf": [{ "type": "integer", "minimum": 1, "maximum": 1e5 }, { "type": "null" }], "default": null }, "content": { "type": "string", "maxLength": 262144, "default": "" }, "attachments": { "type": "array", "items": { "type": "object" }, "default": [] }, "details": { "type": "object", "default": {} }, "expiresAt": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "approves": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/ApprovalSubject" }, "maxItems": 50, "minItems": 1 }, { "$ref": "#/$defs/ApprovalSubject" }, { "type": "null" }], "default": null }, "notes": { "enum": ["next_message", "not_sent", "sent"], "default": "sent" } }, "required": ["type", "title"] },
    InteractionWithdraw: { "title": "InteractionWithdraw", "description": "The agent no longer waits for this answer (answered in its terminal, its own timeout, a cancelled turn):\nthe card ends everywhere as withdrawn, with `reason` shown to the person.", "type": "object", "properties": { "interactionId": { "type": "string", "maxLength": 128, "minLength": 1 }, "reason": { "type": "string", "maxLength": 500, "default": "" } }, "required": ["interactionId"] },
    MessageCreate: { "title": "MessageCreate", "type": "object", "properties": { "content": { "type": "string", "maxLength": 262144, "default": "" }, "messageId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "targetAgentId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "blocks": { "anyOf": [{ "type": "array", "items": { "type": "object" } }, { "type": "null" }], "default": null }, "attention": { "type": "boolean", "default": false }, "attachments": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/Attachment" }, "maxItems": 10 }, { "type": "null" }], "default": null } }, "required": [], "allOf": [{ "description": "A message needs `content`, `blocks` or `attachments`.", "anyOf": [{ "required": ["content"], "properties": { "content": { "minLength": 1 } } }, { "required": ["blocks"], "properties": { "blocks": { "type": "array", "minItems": 1 } } }, { "required": ["attachments"], "properties": { "attachments": { "type": "array", "minItems": 1 } } }] }] },
    MessageCreated: { "title": "MessageCreated", "type": "object", "properties": { "content": { "type": "string", "maxLength": 262144, "default": "" }, "targetAgentId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "blocks": { "anyOf": [{ "type": "array", "items": { "type": "object" } }, { "type": "null" }], "default": null }, "attention": { "type": "boolean", "default": false }, "messageId": { "type": "string", "maxLength": 128, "minLength": 1 }, "attachments": { "anyOf": [{ "type": "array", "items": { "$ref": "#/$defs/StoredAttachment" } }, { "type": "null" }], "default": null }, "author": { "$ref": "#/$defs/Author" } }, "required": ["messageId", "author"], "allOf": [{ "description": "A message needs `content`, `blocks` or `attachments`.", "anyOf": [{ "required": ["content"], "properties": { "content": { "minLength": 1 } } }, { "required": ["blocks"], "properties": { "blocks": { "type": "array", "minItems": 1 } } }, { "required": ["attachments"], "properties": { "attachments": { "type": "array", "minItems": 1 } } }] }] },
    MessageDelta: { "title": "MessageDelta", "description": "A streamed piece of an agent message: `offset` is where `text` starts in the whole message.", "type": "object", "properties": { "messageId": { "type": "string", "maxLength": 128, "minLength": 1 }, "text": { "type": "string", "maxLength": 262144 }, "offset": { "type": "integer", "minimum": 0 } }, "required": ["messageId", "text", "offset"] },
    Party: { "title": "Party", "description": "Who registers or calls tools: an agent, or an app (one signed-in device).", "type": "object", "properties": { "kind": { "enum": ["agent", "app"] }, "id": { "type": "string" } }, "required": ["kind", "id"] },
    Ping: { "title": "Ping", "description": "`system.ping` (a client's heartbeat) and the hub's `system.pong`: an empty payload.", "type": "object", "properties": {}, "required": [] },
    Responder: { "title": "Responder", "type": "object", "properties": { "kind": { "enum": ["agent", "hub", "user"] }, "id": { "type": "string" }, "displayName": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null } }, "required": ["kind", "id"] },
    ResyncRequired: { "title": "ResyncRequired", "type": "object", "properties": { "reason": { "enum": ["beyond_head", "epoch_changed", "unavailable"] }, "epoch": { "type": "string" }, "headSequence": { "type": "integer" } }, "required": ["reason", "epoch", "headSequence"] },
    StoredAttachment: { "title": "StoredAttachment", "description": "An attached file as the hub stores it with the message: what the app shows and the agent downloads.", "type": "object", "properties": { "fileId": { "type": "string", "maxLength": 128, "minLength": 1 }, "name": { "type": "string" }, "mimeType": { "type": "string" }, "size": { "type": "integer" } }, "required": ["fileId", "name", "mimeType", "size"] },
    StoredTaskCancelRequested: { "title": "StoredTaskCancelRequested", "type": "object", "properties": { "reason": { "anyOf": [{ "type": "string", "maxLength": 2e3 }, { "type": "null" }], "default": null }, "requestedBy": { "$ref": "#/$defs/Author" } }, "required": ["requestedBy"] },
    StoredTaskStatusChanged: { "title": "StoredTaskStatusChanged", "description": "A move of the task state machine; `cause` says why when the hub or a person made it.", "type": "object", "properties": { "progress": { "anyOf": [{ "type": "integer", "minimum": 0, "maximum": 100 }, { "type": "null" }], "default": null }, "summary": { "anyOf": [{ "type": "string", "maxLength": 2e3 }, { "type": "null" }], "default": null }, "error": { "anyOf": [{ "$ref": "#/$defs/TaskErrorInfo" }, { "type": "null" }], "default": null }, "status": { "enum": ["cancelled", "failed", "queued", "running", "succeeded", "waiting_for_human"] }, "previousStatus": { "enum": ["cancelled", "failed", "queued", "running", "succeeded", "waiting_for_human"] }, "cause": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "interactionId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "parentTaskId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "parentStatus": { "anyOf": [{ "enum": ["cancelled", "failed", "queued", "running", "succeeded", "waiting_for_human"] }, { "type": "null" }], "default": null } }, "required": ["status", "previousStatus"], "allOf": [{ "description": "A `failed` status needs `error: {code, message}`.", "if": { "properties": { "status": { "const": "failed" } }, "required": ["status"] }, "then": { "required": ["error"], "properties": { "error": { "type": "object" } } } }] },
    StoredToolCall: { "title": "StoredToolCall", "type": "object", "properties": { "call_id": { "type": "string", "maxLength": 128, "minLength": 1 }, "name": { "type": "string", "maxLength": 64, "minLength": 1 }, "arguments": { "type": "object", "default": {} }, "action": { "anyOf": [{ "type": "string", "maxLength": 64, "minLength": 1 }, { "type": "null" }], "default": null }, "targetAgentId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "caller": { "$ref": "#/$defs/Party" }, "target": { "$ref": "#/$defs/ToolTarget" } }, "required": ["call_id", "name", "caller", "target"] },
    StoredToolResult: { "title": "StoredToolResult", "type": "object", "properties": { "call_id": { "type": "string", "maxLength": 128, "minLength": 1 }, "name": { "anyOf": [{ "type": "string", "maxLength": 64, "minLength": 1 }, { "type": "null" }], "default": null }, "action": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "result": { "anyOf": [{ "type": "object" }, { "type": "null" }], "default": null }, "error": { "anyOf": [{ "$ref": "#/$defs/ToolError" }, { "type": "null" }], "default": null }, "callEventId": { "type": "string", "maxLength": 128, "minLength": 1 }, "instance": { "anyOf": [{ "type": "object" }, { "type": "null" }], "default": null } }, "required": ["call_id", "callEventId"], "allOf": [{ "description": "A tool.result carries exactly one of `result` and `error`.", "oneOf": [{ "required": ["result"], "properties": { "result": { "type": "object" } } }, { "required": ["error"], "properties": { "error": { "type": "object" } } }] }] },
    TaskAccepted: { "title": "TaskAccepted", "type": "object", "properties": { "taskId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": [] },
    TaskCheckpoint: { "title": "TaskCheckpoint", "description": "A named step of a task the agent finished, kept by the hub so a restarted agent does not redo it.", "type": "object", "properties": { "name": { "type": "string", "maxLength": 128, "minLength": 1 }, "data": { "default": null } }, "required": ["name"] },
    TaskChildCreated: { "title": "TaskChildCreated", "type": "object", "properties": { "parentTaskId": { "type": "string", "maxLength": 128, "minLength": 1 }, "title": { "type": "string", "maxLength": 500, "minLength": 1 }, "status": { "enum": ["cancelled", "failed", "queued", "running", "succeeded", "waiting_for_human"], "default": "queued" }, "taskId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": ["parentTaskId", "title"], "allOf": [{ "description": "A child task cannot start waiting_for_human; ask through an interaction.", "properties": { "status": { "not": { "const": "waiting_for_human" } } } }] },
    TaskCreate: { "title": "TaskCreate", "type": "object", "properties": { "title": { "type": "string", "maxLength": 500, "minLength": 1 }, "description": { "type": "string", "maxLength": 262144, "default": "" }, "targetAgentId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "parentTaskId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": ["title"] },
    TaskCreated: { "title": "TaskCreated", "type": "object", "properties": { "title": { "type": "string", "maxLength": 500, "minLength": 1 }, "description": { "type": "string", "maxLength": 262144, "default": "" }, "targetAgentId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "parentTaskId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null }, "agentId": { "type": "string", "maxLength": 128, "minLength": 1 }, "status": { "enum": ["queued"] }, "createdBy": { "$ref": "#/$defs/Author" } }, "required": ["title", "agentId", "status", "createdBy"] },
    TaskErrorInfo: { "title": "TaskErrorInfo", "type": "object", "properties": { "code": { "type": "string", "maxLength": 64, "minLength": 1 }, "message": { "type": "string", "maxLength": 4e3, "default": "" } }, "required": ["code"] },
    TaskStatusChanged: { "title": "TaskStatusChanged", "type": "object", "properties": { "status": { "anyOf": [{ "enum": ["cancelled", "failed", "queued", "running", "succeeded", "waiting_for_human"] }, { "type": "null" }], "default": null }, "progress": { "anyOf": [{ "type": "integer", "minimum": 0, "maximum": 100 }, { "type": "null" }], "default": null }, "summary": { "anyOf": [{ "type": "string", "maxLength": 2e3 }, { "type": "null" }], "default": null }, "error": { "anyOf": [{ "$ref": "#/$defs/TaskErrorInfo" }, { "type": "null" }], "default": null } }, "required": [], "allOf": [{ "description": "A `failed` status needs `error: {code, message}`.", "if": { "properties": { "status": { "const": "failed" } }, "required": ["status"] }, "then": { "required": ["error"], "properties": { "error": { "type": "object" } } } }] },
    ToolCall: { "title": "ToolCall", "type": "object", "properties": { "call_id": { "type": "string", "maxLength": 128, "minLength": 1 }, "name": { "type": "string", "maxLength": 64, "minLength": 1 }, "arguments": { "type": "object", "default": {} }, "action": { "anyOf": [{ "type": "string", "maxLength": 64, "minLength": 1 }, { "type": "null" }], "default": null }, "targetAgentId": { "anyOf": [{ "type": "string", "maxLength": 128, "minLength": 1 }, { "type": "null" }], "default": null } }, "required": ["call_id", "name"] },
    ToolError: { "title": "ToolError", "type": "object", "properties": { "code": { "type": "string", "maxLength": 64, "minLength": 1 }, "message": { "type": "string", "maxLength": 4e3, "default": "" } }, "required": ["code"] },
    ToolList: { "title": "ToolList", "description": "With `tools`: register the sender's tools (replacing earlier ones). Without: ask what is on offer.", "type": "object", "properties": { "tools": { "anyOf": [{ "type": "array", "items": { "type": "object" } }, { "type": "null" }], "default": null } }, "required": [] },
    ToolOffer: { "title": "ToolOffer", "description": "The answer to `tool.list {}`: what is on offer to the asker (not stored).", "type": "object", "properties": { "tools": { "type": "array", "items": { "type": "object" } } }, "required": ["tools"] },
    ToolResult: { "title": "ToolResult", "type": "object", "properties": { "call_id": { "type": "string", "maxLength": 128, "minLength": 1 }, "name": { "anyOf": [{ "type": "string", "maxLength": 64, "minLength": 1 }, { "type": "null" }], "default": null }, "action": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "result": { "anyOf": [{ "type": "object" }, { "type": "null" }], "default": null }, "error": { "anyOf": [{ "$ref": "#/$defs/ToolError" }, { "type": "null" }], "default": null } }, "required": ["call_id"], "allOf": [{ "description": "A tool.result carries exactly one of `result` and `error`.", "oneOf": [{ "required": ["result"], "properties": { "result": { "type": "object" } } }, { "required": ["error"], "properties": { "error": { "type": "object" } } }] }] },
    ToolTarget: { "title": "ToolTarget", "type": "object", "properties": { "kind": { "enum": ["agent", "app", "hub", "interaction", "none"] }, "id": { "anyOf": [{ "type": "string" }, { "type": "null" }] } }, "required": ["kind", "id"] },
    Welcome: { "title": "Welcome", "type": "object", "properties": { "workspaceId": { "type": "string" }, "heartbeatIntervalMs": { "type": "integer" }, "epoch": { "type": "string" }, "headSequence": { "type": "integer" }, "agentId": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "userId": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "deviceId": { "anyOf": [{ "type": "string" }, { "type": "null" }], "default": null }, "openTasks": { "anyOf": [{ "type": "array", "items": { "type": "object" } }, { "type": "null" }], "default": null }, "openTasksTruncated": { "type": "boolean", "default": false } }, "required": ["workspaceId", "heartbeatIntervalMs", "epoch", "headSequence"] }
  }
};

// ../../sdk/typescript/dist/tasks.js
import { createHash as createHash2, randomUUID } from "node:crypto";
var TERMINAL_TASK_STATUSES = ["succeeded", "failed", "cancelled"];
var ACTIVE_TASK_STATUSES = ["running", "waiting_for_human"];
function stableId(...parts) {
  return createHash2("sha256").update(parts.map(String).join("")).digest("hex").slice(0, 24);
}
var DEFAULT_OPTIONS = [{ id: "approve", label: "Approve" }, { id: "reject", label: "Reject" }];
var Outcome = class _Outcome {
  interactionId;
  outcome;
  response;
  respondedBy;
  /** The options the question offered, when this process asked it: for `optionLabel`. */
  options;
  constructor(interactionId, outcome, response = null, respondedBy = null, options2 = []) {
    this.interactionId = interactionId;
    this.outcome = outcome;
    this.response = response ?? {};
    this.respondedBy = respondedBy;
    this.options = options2;
  }
  get answered() {
    return this.outcome === "answered";
  }
  /** For approvals: the person chose an approving option. */
  get approved() {
    return this.outcome === "answered" && this.response.approved !== false;
  }
  /** The chosen option's id (`o2` for the second plain label), not its label. */
  get optionId() {
    return typeof this.response.optionId === "string" ? this.response.optionId : null;
  }
  get optionIds() {
    const ids = this.response.optionIds;
    if (Array.isArray(ids))
      return ids.filter((id) => typeof id === "string");
    return this.optionId ? [this.optionId] : [];
  }
  /** The label of the option the person chose. */
  get optionLabel() {
    return this.optionId === null ? null : this.label(this.optionId);
  }
  get optionLabels() {
    return this.optionIds.map((id) => this.label(id));
  }
  get text() {
    return typeof this.response.text === "string" ? this.response.text : null;
  }
  /** A review's decision: `approve` or `request_changes`. */
  get decision() {
    return typeof this.response.decision === "string" ? this.response.decision : null;
  }
  get comment() {
    return typeof this.response.comment === "string" ? this.response.comment : null;
  }
  /** Why a cancelled question ended: task_cancelled, task_ended, withdrawn, agent_revoked. */
  get cause() {
    return this.outcome === "cancelled" && typeof this.response.cause === "string" ? this.response.cause : null;
  }
  /** This outcome knowing the options of the question it answers. */
  withOptions(interaction) {
    const options2 = (interaction.options ?? []).filter((o) => typeof o === "object" && o !== null);
    return new _Outcome(this.interactionId, this.outcome, this.response, this.respondedBy, options2);
  }
  label(id) {
    const options2 = this.options.length ? this.options : DEFAULT_OPTIONS;
    return options2.find((o) => o.id === id)?.label ?? id;
  }
};
function options(list) {
  return list.map((o, i) => typeof o === "string" ? { id: `o${i + 1}`, label: o } : o);
}
function isEmpty(value) {
  if (value === void 0 || value === null || value === "")
    return true;
  return typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
}
function spec(type, title, description, fields) {
  const out = { type, title, description };
  for (const [key, value] of Object.entries(fields))
    if (!isEmpty(value))
      out[key] = value;
  return out;
}
function canonical(value) {
  return JSON.stringify(value, (_key, v) => v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)) : v) ?? "null";
}
var TaskHandle = class {
  client;
  id;
  conversationId;
  title;
  description;
  payload;
  resumed = false;
  /** The person's reason, once they asked to stop. */
  cancelReason = null;
  /** Set when the hub or the person ended the task, not this agent. */
  endedStatus = null;
  status = "queued";
  /** Named steps done (`once`, `checkpoint`), kept by the hub. */
  checkpoints = {};
  /** The last summary reported (the hub's, for a resumed task). */
  summary = null;
  #cancel = new AbortController();
  #progressFloor = -1;
  #children = /* @__PURE__ */ new Map();
  #counts = /* @__PURE__ */ new Map();
  #questions = [];
  constructor(client, id, conversationId, payload) {
    this.client = client;
    this.id = id;
    this.conversationId = conversationId;
    this.payload = payload;
    this.title = typeof payload.title === "string" ? payload.title : "";
    this.description = typeof payload.description === "string" ? payload.description : "";
  }
  /** True once the person asked to stop (or the hub ended the task): finish with `cancelled()`. */
  get cancelRequested() {
    return this.#cancel.signal.aborted;
  }
  /** Aborted when the person asks to stop or the hub ends the task: pass it to fetch, child processes, timers. */
  get signal() {
    return this.#cancel.signal;
  }
  /** Resolves when the person asks to stop (or the hub ends the task). */
  whenCancelRequested() {
    if (this.cancelRequested)
      return Promise.resolve();
    return new Promise((resolve2) => this.#cancel.signal.addEventListener("abort", () => resolve2(), { once: true }));
  }
  /** The person asked to stop (task.cancel_requested). */
  requestCancel(reason) {
    this.cancelReason = reason;
    if (!this.cancelRequested)
      this.#cancel.abort(new Error(reason ?? "The person asked to stop."));
  }
  /** Take what the hub has of this task (the welcome's openTasks entry) before the handler runs. */
  restore(info) {
    this.status = info.status ?? this.status;
    this.resumed = this.status !== "queued";
    this.conversationId = info.conversationId ?? this.conversationId;
    this.checkpoints = { ...info.checkpoints };
    if (this.resumed && info.progress !== null)
      this.#progressFloor = Math.trunc(info.progress);
    this.summary = info.summary ?? this.summary;
    this.#questions = info.interactions.map((q) => q.interactionId);
    this.#children.clear();
    for (const child of info.children)
      this.#children.set(child.taskId, child.status);
    if (info.cancelRequested)
      this.requestCancel(info.cancelReason);
  }
  /** Someone else ended the task (cancelled while queued or waiting, cancel timeout, agent_unreachable): the handler
   * should stop; finishing it afterwards is a no-op. */
  endedByHub(status) {
    this.endedStatus = status;
    this.requestCancel(this.cancelReason);
  }
  /** The task has a final status: this agent finished it, or the hub or the person ended it. */
  get finished() {
    return this.endedStatus !== null || TERMINAL_TASK_STATUSES.includes(this.status);
  }
  /** The ids of questions asked in this task whose outcome has not come (yet). */
  pendingQuestions() {
    return [...new Set(this.#questions)].filter((q) => this.client.outcome(q) === void 0);
  }
  toString() {
    return `TaskHandle(${this.id}, ${JSON.stringify(this.title)})`;
  }
  /** The n-th `kind` of these contents in this task: the same id each time the handler runs. */
  nextId(kind, ...what) {
    const key = JSON.stringify([kind, ...what]);
    const n = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, n);
    return stableId(this.id, kind, ...what, n);
  }
  /** Send with an id derived from the object: a re-run is a re-send (acked as a duplicate). `conflict` means the
   * object exists with other contents (a step done again differently): the first one stands. */
  async sendOnce(type, payload, envelopeId, taskId) {
    try {
      await this.client.sendTyped(type, payload, {
        id: envelopeId,
        taskId: taskId ?? this.id,
        conversationId: this.conversationId
      });
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "conflict")
        throw error;
      this.client.log.info(`${type} ${envelopeId} exists already; keeping the first one`);
    }
  }
  /** Accept the task; accepting a task that already runs (a restarted agent) is not an error. */
  async accept() {
    if (this.status !== "queued")
      return;
    try {
      await this.sendOnce("task.accepted", {}, `accept-${this.id}`);
    } catch (error) {
      const from = error instanceof HubError ? error.details.from : void 0;
      if (!(error instanceof HubError) || error.code !== "illegal_transition" || !ACTIVE_TASK_STATUSES.includes(from))
        throw error;
    }
    this.status = "running";
  }
  /** Report progress (0–100) and/or a summary; in a resumed task a percentage the hub already passed is not sent
   * again, so the app's progress never runs backwards while the handler catches up. */
  async progress(percent, summary) {
    const payload = {};
    if (percent !== null && percent !== void 0) {
      payload.progress = Math.max(0, Math.min(100, Math.trunc(percent)));
      if (payload.progress <= this.#progressFloor)
        return;
    }
    if (summary !== void 0)
      payload.summary = summary;
    await this.client.sendTyped("task.status_changed", payload, { taskId: this.id, conversationId: this.conversationId });
    if (summary !== void 0)
      this.summary = summary;
  }
  /** A display-only child task; made again by a re-run handler, it is the same child (not a second one). */
  async child(title, status = "running") {
    const childId = `task_${this.nextId("child", title)}`;
    let known = this.#children.get(childId);
    if (known === void 0) {
      await this.sendOnce("task.child_created", { parentTaskId: this.id, title, status, taskId: childId }, `child-${childId}`);
      known = status;
      this.#children.set(childId, known);
    }
    return new ChildTask(this, childId, known);
  }
  /** @internal a child reports its status. */
  childStatus(childId, status) {
    this.#children.set(childId, status);
  }
  /** A link (`url`), or a file (`file`: a path or bytes) uploaded to the hub and shown in the app. */
  async artifact(name, what) {
    const source = typeof what === "string" ? { url: what } : what;
    const artifactId = `art_${this.nextId("artifact", name)}`;
    const payload = { name, artifactId };
    if (source.file !== void 0) {
      payload.fileId = (await this.client.uploadFile(source.file, source.mimeType ? { mimeType: source.mimeType } : {})).fileId;
    } else if (source.url !== void 0) {
      payload.url = source.url;
    } else {
      throw new TypeError("An artifact needs a url or a file.");
    }
    if (source.mimeType)
      payload.mimeType = source.mimeType;
    if (source.summary)
      payload.summary = source.summary;
    await this.sendOnce("artifact.created", payload, `art-${artifactId}`);
    return artifactId;
  }
  /** Post a message in the task's conversation, in Markdown (posted once, also when the handler runs again). */
  async message(text4, extra = {}) {
    if (this.conversationId === null)
      throw new TypeError("This task has no conversation to post in.");
    const messageId = `msg_${this.nextId("message", text4)}`;
    await this.sendOnce("message.create", { ...extra, content: text4, messageId }, `msg-${messageId}`);
    return messageId;
  }
  /** Tell the hub a named step of this task is done (with a small JSON result); kept for a re-run. */
  async checkpoint(name, data = null) {
    await this.sendOnce("task.checkpoint", { name, data }, `cp-${stableId(this.id, name, canonical(data))}`);
    this.checkpoints[name] = data;
  }
  /** Run `step` at most once for this task. Its result (JSON, at most 16 KiB) is kept by the hub under `name`; a
   * handler run again after a restart gets it back without running the step. A process killed during the step runs
   * it again: make the step safe to repeat, or short. */
  async once(name, step) {
    if (Object.prototype.hasOwnProperty.call(this.checkpoints, name))
      return this.checkpoints[name];
    const result = await step();
    await this.checkpoint(name, result === void 0 ? null : result);
    return result;
  }
  /** Streamed text: each `write` goes out live as a delta; `end()` stores the whole message. With a `name` (unique
   * within the task) the stream is restart-safe: a handler run again finds the message complete and says nothing
   * twice. */
  stream(name) {
    if (this.conversationId === null)
      throw new TypeError("This task has no conversation to stream into.");
    const messageId = name !== void 0 ? `msg_${stableId(this.id, "stream", name)}` : void 0;
    return new MessageStream(this.client, this.conversationId, this.id, messageId);
  }
  /** `await task.streamed("report", async (s) => { await s.write("…") })`: the stream ended when `write` is done,
   * and the text so far stored (without waiting) when it throws. */
  async streamed(name, write) {
    const stream = this.stream(name);
    try {
      await write(stream);
    } catch (error) {
      stream.abandon();
      throw error;
    }
    await stream.end();
  }
  async succeed(summary) {
    await this.finish("succeeded", summary);
  }
  async fail(code, message = "", summary) {
    await this.finish("failed", summary, { code, message });
  }
  /** Confirm a cancel request: the task becomes cancelled (docs/design.md#cancel-is-a-request). */
  async cancelled(summary) {
    await this.finish("cancelled", summary);
  }
  async finish(status, summary, error) {
    if (this.endedStatus !== null)
      return;
    if (status === "failed" && this.status === "queued")
      await this.accept();
    for (const question of this.pendingQuestions()) {
      await this.client.withdraw(question, `The agent ended the task (${status}) before this was answered.`);
    }
    const payload = { status };
    if (status === "succeeded")
      payload.progress = 100;
    if (summary !== void 0)
      payload.summary = summary;
    if (error)
      payload.error = error;
    await this.sendOnce("task.status_changed", payload, `end-${this.id}-${status}`);
    this.status = status;
    this.client.taskFinished(this.id);
  }
  // ---- asking the person ------------------------------------------------------------------------------------------
  /** Ask with a full interaction object; waits until the person answers or it ends otherwise. Without an `id` the
   * question's id derives from the task, its type and title: asked again by a re-run handler, it returns the answer
   * already given, or waits for the same pending question. */
  async ask(interaction) {
    const question = interaction.id ? interaction : { ...interaction, id: this.questionId(interaction) };
    this.#questions.push(question.id);
    return await this.client.ask(question, { taskId: this.id, conversationId: this.conversationId });
  }
  /** The id `ask` gives a question without one (the n-th of its type and title in this task), for a caller that
   * needs it before the answer comes (to withdraw it). */
  questionId(interaction) {
    return `int_${this.nextId("ask", interaction.type, interaction.title)}`;
  }
  /** Ask to approve; the answer's `approved` says yes, `optionId` is `approve` or `reject` (or your option's). */
  async askApproval(title, opts = {}) {
    const approves = opts.command !== void 0 ? { kind: "command", command: opts.command } : opts.approves;
    return await this.ask(spec("approval", title, opts.description ?? "", {
      risk: opts.risk ?? "medium",
      impact: opts.impact,
      details: opts.details,
      expiresAt: opts.expiresAt,
      id: opts.interactionId,
      approves,
      options: opts.options,
      notes: opts.notes
    }));
  }
  /** Ask to pick one option (`multiple`: several). `options` are labels (their ids: `o1`, `o2`, …) or
   * `{id, label, …}` objects; the answer's `optionId` is the chosen id, `optionLabel` its label. */
  async askChoice(title, choices, opts = {}) {
    return await this.ask(spec("choice", title, opts.description ?? "", {
      options: options(choices),
      multiple: opts.multiple ?? false,
      expiresAt: opts.expiresAt,
      id: opts.interactionId
    }));
  }
  /** Ask for a typed answer (`format`: text, url, email, number, integer); the answer's `text` is a string. */
  async askInput(title, opts = {}) {
    return await this.ask(spec("input", title, opts.description ?? "", {
      format: opts.format ?? "text",
      pattern: opts.pattern,
      placeholder: opts.placeholder,
      maxLength: opts.maxLength,
      expiresAt: opts.expiresAt,
      id: opts.interactionId
    }));
  }
  /** Ask to review `content` (plain text, or a unified diff shown as a diff); the answer's `decision` is `approve` or
   * `request_changes`. Content that starts as a diff but is not one is refused (HubError invalid_payload). */
  async askReview(title, content, opts = {}) {
    return await this.ask(spec("review", title, opts.description ?? "", {
      content,
      attachments: opts.attachments,
      expiresAt: opts.expiresAt,
      id: opts.interactionId
    }));
  }
};
var ChildTask = class {
  parent;
  id;
  status;
  constructor(parent, id, status) {
    this.parent = parent;
    this.id = id;
    this.status = status;
  }
  /** Report the child's status; a status it already has (a re-run handler) is not sent again. */
  async setStatus(status, summary) {
    if (status === this.status && status !== "running")
      return;
    const payload = { status };
    if (summary)
      payload.summary = summary;
    if (status === "failed")
      payload.error = { code: "child_failed", message: summary ?? "" };
    await this.parent.sendOnce("task.status_changed", payload, `${this.id}-${status}`, this.id);
    this.status = status;
    this.parent.childStatus(this.id, status);
  }
  async succeed(summary) {
    await this.setStatus("succeeded", summary);
  }
  async fail(summary) {
    await this.setStatus("failed", summary);
  }
};
var MessageStream = class {
  client;
  conversationId;
  taskId;
  messageId;
  text = "";
  /** False once the hub lost the stream's start (a hub restart): the final message carries all of it. */
  live = true;
  /** The hub has this message complete already (a handler run again): the rest is not sent. */
  saidBefore = false;
  #ended = false;
  constructor(client, conversationId, taskId, messageId) {
    this.client = client;
    this.conversationId = conversationId;
    this.taskId = taskId;
    this.messageId = messageId ?? `msg_${randomUUID().replace(/-/g, "")}`;
  }
  async write(text4) {
    if (!text4)
      return;
    if (this.#ended)
      throw new TypeError("This stream has ended.");
    const offset = this.text.length;
    this.text += text4;
    if (!this.live)
      return;
    try {
      await this.client.sendTyped("message.delta", { messageId: this.messageId, offset, text: text4 }, { conversationId: this.conversationId, taskId: this.taskId });
    } catch (error) {
      if (error instanceof HubError && error.code === "conflict") {
        this.live = false;
        this.saidBefore = true;
        return;
      }
      if (!(error instanceof HubError) || error.code !== "invalid_payload")
        throw error;
      this.live = false;
    }
  }
  /** Store the whole message (once; a message said before is not said again). */
  async end() {
    if (this.#ended)
      return;
    this.#ended = true;
    if (!this.text || this.saidBefore)
      return;
    try {
      await this.client.sendTyped("message.create", { content: this.text, messageId: this.messageId }, { conversationId: this.conversationId, taskId: this.taskId, id: `create-${this.messageId}` });
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "conflict")
        throw error;
    }
  }
  /** Left by an error: queue the text so far without waiting for the ack (the outbox still delivers it). */
  abandon() {
    if (this.#ended)
      return;
    this.#ended = true;
    if (!this.text || this.saidBefore)
      return;
    this.client.sendTyped("message.create", { content: this.text, messageId: this.messageId }, { conversationId: this.conversationId, taskId: this.taskId, id: `create-${this.messageId}` }).catch((error) => {
      if (!(error instanceof ClientStopped))
        this.client.log.info(`the interrupted message was not stored: ${String(error)}`);
    });
  }
};

// ../../sdk/typescript/dist/transport.js
var BINARY = null;
var MAX_FRAME_BYTES = 64 * 1024 * 1024;
var OPEN_TIMEOUT_MS = 1e4;
var wsModule;
function loadWs() {
  wsModule ??= import("./wrapper-YBWB6YPN.js").then((m) => m, () => null);
  return wsModule;
}
var Frames = class {
  #queue = [];
  #listener = null;
  #waiter = null;
  #ended = null;
  push(text4) {
    if (this.#listener)
      this.#listener(text4);
    else if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter.resolve(text4);
    } else
      this.#queue.push(text4);
  }
  end(error) {
    this.#ended ??= error;
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.reject(error);
  }
  next(timeoutMs) {
    if (this.#queue.length)
      return Promise.resolve(this.#queue.shift());
    if (this.#ended)
      return Promise.reject(this.#ended);
    return new Promise((resolve2, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = null;
        reject(new SdkError(`The hub did not answer the hello within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.#waiter = {
        resolve: (text4) => {
          clearTimeout(timer);
          resolve2(text4);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        }
      };
    });
  }
  listen(onText) {
    this.#listener = onText;
    for (const text4 of this.#queue.splice(0))
      onText(text4);
  }
};
async function openSocket(url, fingerprint, allowInsecure = false) {
  refuseCleartext(url, allowInsecure, "this agent's credential");
  const ws = await loadWs();
  if (ws)
    return await openWithWs(ws, url, fingerprint);
  const native = globalThis.WebSocket;
  if (!native)
    throw new SdkError("No WebSocket client: install the `ws` package.");
  if (fingerprint && url.startsWith("wss:")) {
    throw new SdkError("This runtime's own WebSocket cannot pin the hub's certificate: install the `ws` package.");
  }
  return await openNative(native, url);
}
async function openWithWs(ws, url, fingerprint) {
  const target = new URL(url);
  const options2 = {
    perMessageDeflate: false,
    handshakeTimeout: OPEN_TIMEOUT_MS,
    maxPayload: MAX_FRAME_BYTES,
    followRedirects: false
  };
  if (target.protocol === "wss:" && fingerprint) {
    const host = target.hostname.replace(/^\[|\]$/g, "");
    const tlsSocket = await pinnedSocket(host, Number(target.port || 443), fingerprint, OPEN_TIMEOUT_MS, ["http/1.1"]);
    options2.createConnection = () => tlsSocket;
  }
  const socket = new ws.WebSocket(url, options2);
  const frames = new Frames();
  let closedResolve;
  const closed = new Promise((resolve2) => {
    closedResolve = resolve2;
  });
  await new Promise((resolve2, reject) => {
    socket.once("open", () => resolve2());
    socket.once("error", (error) => reject(error instanceof PinMismatch ? error : new SdkError(`Cannot open the agent socket at ${target.origin}: ${error.message}`)));
    socket.once("close", (code) => reject(new SdkError(`The agent socket at ${target.origin} closed (${code}) before it opened.`)));
  });
  socket.removeAllListeners("error");
  socket.removeAllListeners("close");
  socket.on("error", () => {
  });
  socket.on("message", (data, isBinary) => {
    if (isBinary) {
      frames.push(BINARY);
      return;
    }
    frames.push(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data).toString("utf8"));
  });
  socket.on("close", (code, reason) => {
    frames.end(new SdkError(`The hub closed the connection (${code}).`));
    closedResolve({ code, reason: reason.toString("utf8") });
  });
  return {
    send: (text4) => {
      if (socket.readyState === socket.OPEN)
        socket.send(text4);
    },
    close: (code = 1e3, reason = "") => socket.close(code, reason),
    terminate: () => socket.terminate(),
    next: (timeoutMs) => frames.next(timeoutMs),
    listen: (onText) => frames.listen(onText),
    closed
  };
}
async function openNative(Native, url) {
  const socket = new Native(url);
  const frames = new Frames();
  let closedResolve;
  const closed = new Promise((resolve2) => {
    closedResolve = resolve2;
  });
  await new Promise((resolve2, reject) => {
    const timer = setTimeout(() => {
      socket.close();
      reject(new SdkError(`Cannot open the agent socket at ${url}: timed out.`));
    }, OPEN_TIMEOUT_MS);
    socket.onopen = () => {
      clearTimeout(timer);
      resolve2();
    };
    socket.onerror = () => {
      clearTimeout(timer);
      reject(new SdkError(`Cannot open the agent socket at ${url}.`));
    };
  });
  socket.onerror = null;
  socket.onmessage = (event) => {
    frames.push(typeof event.data === "string" ? event.data : BINARY);
  };
  socket.onclose = (event) => {
    frames.end(new SdkError(`The hub closed the connection (${event.code}).`));
    closedResolve({ code: event.code, reason: event.reason });
  };
  return {
    send: (text4) => {
      if (socket.readyState === Native.OPEN)
        socket.send(text4);
    },
    close: (code = 1e3, reason = "") => socket.close(code, reason),
    terminate: () => socket.close(),
    next: (timeoutMs) => frames.next(timeoutMs),
    listen: (onText) => frames.listen(onText),
    closed
  };
}

// ../../sdk/typescript/dist/validate.js
function frameProblem(direction, value) {
  return check(FRAME_SCHEMA.frames[direction], value, "$", 0);
}
var MAX_DEPTH = 64;
function kindOf(value) {
  if (value === null)
    return "null";
  if (Array.isArray(value))
    return "array";
  if (typeof value === "number")
    return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
function isType(value, type) {
  const kind = kindOf(value);
  if (type === "number")
    return kind === "number" || kind === "integer";
  return kind === type;
}
function codePoints(text4) {
  let count = 0;
  for (let i = 0; i < text4.length; i++) {
    const unit = text4.charCodeAt(i);
    if (unit >= 55296 && unit <= 56319 && i + 1 < text4.length) {
      const next = text4.charCodeAt(i + 1);
      if (next >= 56320 && next <= 57343)
        i++;
    }
    count++;
  }
  return count;
}
function equal(a, b) {
  if (a === b)
    return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return false;
  if (Array.isArray(a) !== Array.isArray(b))
    return false;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => equal(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => equal(a[k], b[k]));
}
function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function resolveRef(ref) {
  const match = typeof ref === "string" ? /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(ref) : null;
  const schema = match?.[1] !== void 0 ? FRAME_SCHEMA.$defs[match[1]] : void 0;
  if (schema === void 0)
    throw new Error(`unresolvable $ref ${String(ref)}`);
  return schema;
}
function describe(schema, fallback) {
  return typeof schema.description === "string" ? schema.description : fallback;
}
function check(schema, value, path2, depth) {
  if (schema === true)
    return null;
  if (schema === false)
    return `${path2}: not allowed`;
  if (depth > MAX_DEPTH)
    return `${path2}: nested too deeply`;
  if (schema.$ref !== void 0) {
    const problem = check(resolveRef(schema.$ref), value, path2, depth + 1);
    if (problem)
      return problem;
  }
  if (schema.type !== void 0) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => isType(value, type)))
      return `${path2}: expected ${types.join(" or ")}, got ${kindOf(value)}`;
  }
  if (schema.const !== void 0 && !equal(value, schema.const)) {
    return `${path2}: ${describe(schema, `expected ${JSON.stringify(schema.const)}`)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => equal(value, option))) {
    return `${path2}: expected one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")}`;
  }
  if (typeof value === "string") {
    if (typeof schema.maxLength === "number" && value.length > schema.maxLength && codePoints(value) > schema.maxLength) {
      return `${path2}: longer than ${schema.maxLength} characters`;
    }
    if (typeof schema.minLength === "number" && (value.length < schema.minLength || codePoints(value) < schema.minLength)) {
      return `${path2}: shorter than ${schema.minLength} characters`;
    }
  }
  if (typeof value === "number") {
    if (typeof schema.minimum === "number" && value < schema.minimum)
      return `${path2}: below ${schema.minimum}`;
    if (typeof schema.maximum === "number" && value > schema.maximum)
      return `${path2}: above ${schema.maximum}`;
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems)
      return `${path2}: fewer than ${schema.minItems} items`;
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems)
      return `${path2}: more than ${schema.maxItems} items`;
    if (schema.items !== void 0) {
      for (let i = 0; i < value.length; i++) {
        const problem = check(schema.items, value[i], `${path2}[${i}]`, depth + 1);
        if (problem)
          return problem;
      }
    }
  }
  if (isObject(value)) {
    if (Array.isArray(schema.required)) {
      for (const name of schema.required) {
        if (!Object.prototype.hasOwnProperty.call(value, name))
          return `${path2}: ${describe(schema, `missing ${name}`)}`;
      }
    }
    if (isObject(schema.properties)) {
      for (const [name, sub] of Object.entries(schema.properties)) {
        if (Object.prototype.hasOwnProperty.call(value, name)) {
          const problem = check(sub, value[name], `${path2}.${name}`, depth + 1);
          if (problem)
            return problem;
        }
      }
    }
  }
  if (Array.isArray(schema.allOf)) {
    for (const sub of schema.allOf) {
      const problem = check(sub, value, path2, depth + 1);
      if (problem)
        return isObject(sub) && typeof sub.description === "string" ? `${path2}: ${sub.description}` : problem;
    }
  }
  if (Array.isArray(schema.anyOf)) {
    const problems = schema.anyOf.map((sub) => check(sub, value, path2, depth + 1));
    if (!problems.includes(null))
      return `${path2}: ${describe(schema, problems[0] ?? "matches none of anyOf")}`;
  }
  if (Array.isArray(schema.oneOf)) {
    const matching = schema.oneOf.filter((sub) => check(sub, value, path2, depth + 1) === null).length;
    if (matching !== 1)
      return `${path2}: ${describe(schema, `matches ${matching} of oneOf, not exactly one`)}`;
  }
  if (schema.not !== void 0 && check(schema.not, value, path2, depth + 1) === null) {
    return `${path2}: ${describe(isObject(schema.not) ? schema.not : {}, "matches what is not allowed")}`;
  }
  if (schema.if !== void 0) {
    const branch = check(schema.if, value, path2, depth + 1) === null ? schema.then : schema.else;
    if (branch !== void 0) {
      const problem = check(branch, value, path2, depth + 1);
      if (problem)
        return problem;
    }
  }
  return null;
}

// ../../sdk/typescript/dist/client.js
var CLOSE_REVOKED = 4401;
var CLOSE_REPLACED = 4409;
var WAITING_FOR = {
  storage_full: "the hub is out of disk space",
  rate_limited: "the hub asked this agent to send more slowly",
  internal: "the hub failed to store the agent's update"
};
var ERROR_MESSAGE_MAX = 4e3;
var SUMMARY_MAX = 2e3;
function clip(text4, limit) {
  return text4.length <= limit ? text4 : `${text4.slice(0, limit - 1)}\u2026`;
}
function describeError(error) {
  let type;
  let message;
  if (error instanceof Error) {
    const constructorName = error.constructor?.name;
    type = constructorName && constructorName !== "Error" ? constructorName : error.name || "Error";
    message = error.message;
  } else {
    type = error === null ? "null" : typeof error === "object" ? error.constructor?.name ?? "Object" : `${(typeof error).charAt(0).toUpperCase()}${(typeof error).slice(1)}`;
    message = typeof error === "object" ? JSON.stringify(error) ?? String(error) : String(error);
  }
  let text4 = message ? `${type}: ${message}` : type;
  if (error instanceof HubError && error.envelopeType)
    text4 += ` (the hub refused the agent's ${error.envelopeType})`;
  return clip(text4, ERROR_MESSAGE_MAX);
}
function deferred() {
  const d = { settled: false };
  d.promise = new Promise((resolve2, reject) => {
    d.resolve = (value) => {
      d.settled = true;
      resolve2(value);
    };
    d.reject = (error) => {
      d.settled = true;
      reject(error);
    };
  });
  d.promise.catch(() => {
  });
  return d;
}
var AgentClient = class {
  credential;
  log;
  instance;
  runtime;
  agentVersion;
  capabilities;
  statePath;
  outbox;
  tools;
  backoffInitialMs;
  backoffMaxMs;
  /** After this long of retries a task's summary says it waits; an `internal` refusal is given up after
   * `retryInternalMs` (a bug in the hub does not heal by itself) and thrown to the caller. */
  retryNoteAfterMs = 5e3;
  retryInternalMs = 3e4;
  heartbeatIntervalMs = 25e3;
  epoch = null;
  lastSequence = 0;
  /** How many times a session reached caught_up (tests and diagnostics). */
  connections = 0;
  tasks = /* @__PURE__ */ new Map();
  #options;
  #checkFrames;
  #handled = /* @__PURE__ */ new Set();
  // tasks whose handler this process started (once each)
  #ended = /* @__PURE__ */ new Set();
  // tasks that reached a final status
  #snapshot = /* @__PURE__ */ new Map();
  // the welcome's openTasks, by task id
  #snapshotHead = 0;
  #deferred = /* @__PURE__ */ new Map();
  // task.assigned seen while replaying, started at caught_up
  #deferredSequence = /* @__PURE__ */ new Map();
  #live = false;
  #taskHandler = null;
  #handlers = /* @__PURE__ */ new Map();
  #waiters = /* @__PURE__ */ new Map();
  #outcomes = /* @__PURE__ */ new Map();
  #toolHandlers = /* @__PURE__ */ new Map();
  #toolWaiters = /* @__PURE__ */ new Map();
  #retrying = /* @__PURE__ */ new Map();
  #retryNotes = /* @__PURE__ */ new Map();
  #running = /* @__PURE__ */ new Set();
  #socket = null;
  #caughtUp = deferred();
  #closing = false;
  #stopping = false;
  #runner = null;
  #wake = null;
  #lastHeard = 0;
  #badFrames = 0;
  #allowInsecure;
  constructor(credential, options2 = {}) {
    this.#allowInsecure = options2.allowInsecure ?? (credential.insecure || allowedByEnvironment());
    refuseCleartext(credential.hubUrl, this.#allowInsecure, "this agent's credential");
    this.credential = credential;
    this.#options = options2;
    this.log = options2.logger ?? consoleLogger();
    this.instance = options2.instance;
    this.runtime = options2.runtime ?? "typescript-sdk";
    this.agentVersion = options2.agentVersion ?? "";
    this.capabilities = [...options2.capabilities ?? []];
    this.statePath = options2.statePath;
    this.tools = options2.tools;
    this.backoffInitialMs = options2.backoffInitialMs ?? 500;
    this.backoffMaxMs = options2.backoffMaxMs ?? 2e4;
    this.outbox = new Outbox(options2.maxOutbox ?? 1e4);
    this.#checkFrames = options2.checkFrames ?? process.env.LINEUP_SDK_CHECK_FRAMES === "1";
    this.#loadState();
  }
  // ---- registering handlers ---------------------------------------------------------------------------------------
  /** `handler(task)` runs for every task assigned to this agent, once per process (again only after a restart with
   * the task unfinished, then with `task.resumed`). */
  onTask(handler) {
    this.#taskHandler = handler;
    return this;
  }
  /** `handler(frame)` runs for every event of that type addressed to the agent (e.g. `message.delivered`). */
  on(type, handler) {
    const list = this.#handlers.get(type) ?? [];
    list.push(handler);
    this.#handlers.set(type, list);
    return this;
  }
  /** Answer calls of this agent's tool `name`. */
  onTool(name, handler) {
    this.#toolHandlers.set(name, handler);
    return this;
  }
  // ---- tools and files --------------------------------------------------------------------------------------------
  /** Call a tool the hub or an app offers (docs/protocol.md#tools); returns `result`, throws ToolCallError. */
  async callTool(name, args = {}, options2 = {}) {
    const callId = `call_${randomUUID2().replace(/-/g, "")}`;
    const waiter = deferred();
    this.#toolWaiters.set(callId, waiter);
    const payload = { call_id: callId, name, arguments: args };
    if (options2.action !== void 0)
      payload.action = options2.action;
    try {
      await this.sendTyped("tool.call", payload, {
        taskId: options2.taskId ?? null,
        conversationId: options2.conversationId ?? null
      });
      return await waiter.promise;
    } finally {
      this.#toolWaiters.delete(callId);
    }
  }
  /** What the hub and the apps offer this agent (tool.list without tools). */
  async listTools() {
    const requestId = randomUUID2();
    const waiter = deferred();
    this.#toolWaiters.set(requestId, waiter);
    try {
      await this.sendTyped("tool.list", {}, { id: requestId });
      const offer = await waiter.promise;
      return Array.isArray(offer.tools) ? offer.tools : [];
    } finally {
      this.#toolWaiters.delete(requestId);
    }
  }
  /** Store a file on the hub (a path or bytes): `{fileId, name, mimeType, size, sha256}` (`POST /api/files`). */
  async uploadFile(source, options2 = {}) {
    return await uploadFile(this.credential, source, options2);
  }
  /** A file's bytes (a message's `attachments[i].fileId`), or with `to` the path written. */
  async downloadFile(fileId, options2 = {}) {
    return await downloadFile(this.credential, fileId, options2);
  }
  // ---- running ----------------------------------------------------------------------------------------------------
  /** Connect and stay connected until `close()`. Rejects with AuthError (refused or revoked), ReplacedError (another
   * copy took over, or the agent was paired again elsewhere) or PinMismatch: those are never retried. */
  async run() {
    let attempt = 0;
    while (!this.#closing) {
      const before = this.connections;
      try {
        await this.#session();
      } catch (error) {
        if (error instanceof AuthError || error instanceof PinMismatch || error instanceof ReplacedError) {
          this.#stop(error);
          this.log.error(`the agent stops: ${error.message}`);
          throw error;
        }
        this.log.info(`connection to ${this.credential.hubUrl} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (this.connections > before)
        attempt = 0;
      if (this.#closing)
        break;
      const delay = Math.min(this.backoffMaxMs, this.backoffInitialMs * 2 ** attempt);
      attempt += 1;
      await this.#sleep(delay * (0.5 + Math.random() * 0.5));
    }
  }
  /** Run in the background and resolve once connected and caught up (rejects at once with AuthError & co). */
  async start(timeoutMs = 3e4) {
    const runner = this.run();
    this.#runner = runner;
    runner.catch(() => {
    });
    let timer;
    try {
      await Promise.race([
        this.#caughtUp.promise,
        runner.then(() => {
          throw new SdkError("The agent stopped before it connected.");
        }),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new SdkError(`Could not connect to ${this.credential.hubUrl} within ${timeoutMs} ms.`)), timeoutMs);
        })
      ]);
    } finally {
      clearTimeout(timer);
    }
  }
  /** The background run of `start()`: resolves after `close()`, rejects with what stopped it. */
  get done() {
    return this.#runner ?? Promise.resolve();
  }
  async waitConnected(timeoutMs = 3e4) {
    let timer;
    try {
      await Promise.race([this.#caughtUp.promise, new Promise((_, reject) => {
        timer = setTimeout(() => reject(new SdkError(`Not connected within ${timeoutMs} ms.`)), timeoutMs);
      })]);
    } finally {
      clearTimeout(timer);
    }
  }
  /** Stop: the socket is closed (the hub shows the agent signed off), handlers waiting on the hub get ClientStopped,
   * unfinished tasks stay open for the next process. */
  async close() {
    this.#closing = true;
    this.#wake?.();
    this.#socket?.close(1e3, "the agent stopped");
    if (this.#runner)
      await this.#runner.catch(() => {
      });
    this.#stop(new ClientStopped("The agent client was closed."));
    await Promise.allSettled([...this.#running]);
    this.#saveState();
  }
  get connected() {
    return this.#socket !== null && this.#caughtUp.settled;
  }
  // ---- sending ----------------------------------------------------------------------------------------------------
  #envelope(type, payload, fields = {}) {
    const envelope = {
      id: fields.id ?? randomUUID2(),
      type,
      version: PROTOCOL_VERSION,
      occurredAt: (/* @__PURE__ */ new Date()).toISOString(),
      workspaceId: this.credential.workspaceId,
      payload
    };
    if (fields.taskId)
      envelope.taskId = fields.taskId;
    if (fields.conversationId)
      envelope.conversationId = fields.conversationId;
    if (fields.correlationId)
      envelope.correlationId = fields.correlationId;
    return envelope;
  }
  send(type, payload, fields = {}) {
    return this.#queue(type, payload, fields);
  }
  /** The typed send the SDK itself uses: a renamed or reshaped event in the hub's schema fails the build. */
  sendTyped(type, payload, fields = {}) {
    return this.#queue(type, payload, fields);
  }
  #queue(type, payload, fields) {
    try {
      if (type.startsWith("system.")) {
        throw new TypeError(`${type} is the connection's own (the client sends its heartbeats itself); send() is for messages the hub acks`);
      }
      if (this.#stopping)
        throw new ClientStopped("The agent client has stopped.");
      const envelope = this.#envelope(type, payload, fields);
      if (this.outbox.has(envelope.id))
        return this.outbox.add(envelope);
      this.#check("agentToHub", envelope);
      const ack = this.outbox.add(envelope);
      this.#transmit(envelope);
      return ack;
    } catch (error) {
      return Promise.reject(error);
    }
  }
  #check(direction, envelope) {
    if (!this.#checkFrames)
      return;
    const problem = frameProblem(direction, JSON.parse(JSON.stringify(envelope)));
    if (problem)
      throw new SdkError(`the SDK built a ${envelope.type} frame the protocol does not allow: ${problem}`);
  }
  #transmit(envelope) {
    this.#socket?.send(JSON.stringify(envelope));
  }
  /** Request an interaction and wait for its outcome; asking again with the same id does not ask twice. */
  async ask(interaction, where = {}) {
    const id = interaction.id || `int_${randomUUID2().replace(/-/g, "")}`;
    const known = this.#outcomes.get(id);
    if (known)
      return known.withOptions(interaction);
    let waiter = this.#waiters.get(id);
    if (!waiter || waiter.settled) {
      waiter = deferred();
      this.#waiters.set(id, waiter);
    }
    try {
      await this.sendTyped("interaction.requested", { interaction: { ...interaction, id } }, { id: `ask-${id}`, taskId: where.taskId ?? null, conversationId: where.conversationId ?? null });
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "conflict")
        throw error;
    }
    const answered = this.#outcomes.get(id);
    if (answered)
      return answered.withOptions(interaction);
    return (await waiter.promise).withOptions(interaction);
  }
  /** How a question ended, if this process has heard (undefined: pending, or not known here). */
  outcome(interactionId) {
    return this.#outcomes.get(interactionId);
  }
  /** Stop waiting for a question (answered elsewhere, given up): it ends as withdrawn everywhere, `reason` shown to
   * the person; the pending ask resolves with `outcome` "cancelled", `cause` "withdrawn". False when it had ended
   * (answered, or withdrawn already: the same withdraw again with another reason is the hub's `conflict`). */
  async withdraw(interactionId, reason = "") {
    try {
      await this.sendTyped("interaction.withdraw", { interactionId, reason: reason.slice(0, 500) }, { id: `withdraw-${interactionId}` });
    } catch (error) {
      if (error instanceof HubError && ["already_resolved", "not_found", "conflict"].includes(error.code))
        return false;
      throw error;
    }
    return true;
  }
  // ---- one connection ---------------------------------------------------------------------------------------------
  async #session() {
    const socket = await openSocket(this.credential.wsUrl, this.credential.tlsFingerprint, this.#allowInsecure);
    if (this.#closing) {
      socket.close(1e3, "the agent stopped");
      return;
    }
    try {
      const hello = {
        credential: this.credential.credential,
        runtime: this.runtime,
        agentVersion: this.agentVersion,
        capabilities: this.capabilities,
        lastSequence: this.lastSequence
      };
      if (this.tools !== void 0)
        hello.tools = this.tools;
      if (this.instance !== void 0)
        hello.instance = this.instance;
      if (this.epoch)
        hello.epoch = this.epoch;
      const helloEnvelope = this.#envelope("agent.hello", hello);
      this.#check("handshake", helloEnvelope);
      socket.send(JSON.stringify(helloEnvelope));
      const first = this.#parse(await socket.next(15e3));
      if (first === null)
        throw new HubError("invalid_envelope", "The hub's first frame is not a protocol frame.");
      if (first.type === "system.error") {
        const error = first.payload;
        if (error.code === "unauthorized")
          throw this.#refused(error.message);
        if (error.code === "forbidden")
          throw new AuthError("forbidden", error.message, error.hint);
        throw HubError.fromPayload(error);
      }
      if (first.type !== "system.welcome")
        throw new HubError("invalid_envelope", `Expected system.welcome, got ${first.type}.`);
      const welcome = first.payload;
      this.heartbeatIntervalMs = Math.min(36e5, Math.max(100, welcome.heartbeatIntervalMs));
      if (this.epoch === null)
        this.epoch = welcome.epoch;
      this.#takeSnapshot(welcome);
      this.#socket = socket;
      for (const envelope of this.outbox.pending())
        socket.send(JSON.stringify(envelope));
      this.#lastHeard = Date.now();
      const heartbeat = this.#heartbeat(socket);
      socket.listen((text4) => {
        this.#lastHeard = Date.now();
        const frame = this.#parse(text4);
        if (frame === null)
          return;
        try {
          this.#onFrame(frame);
        } catch (error) {
          this.log.error(`could not handle a ${frame.type} frame from the hub: ${describeError(error)}`);
        }
      });
      const closed = await socket.closed;
      heartbeat.stop();
      this.#afterClose(closed.code, closed.reason);
    } finally {
      socket.terminate();
      if (this.#socket === socket)
        this.#socket = null;
      this.#live = false;
      if (this.#caughtUp.settled)
        this.#caughtUp = deferred();
      this.#saveState();
    }
  }
  #afterClose(code, reason) {
    if (code === CLOSE_REVOKED && reason.startsWith("credential replaced")) {
      throw new ReplacedError(`Agent ${this.credential.agentId} paired again with a fresh code, so this credential no longer works; the newly paired copy is the agent now (its conversations and tasks stay with it), and this one stops. To run this copy instead, pair it again with a fresh code.`);
    }
    if (code === CLOSE_REVOKED)
      throw this.#refused("The hub closed the connection: this agent's credential was revoked.");
    if (code === CLOSE_REPLACED) {
      throw new ReplacedError(`Another copy of agent ${this.credential.agentId} connected to ${this.credential.hubUrl} with the same credential and took over; this one stops so the two do not both take every task. Run one copy per credential, or pair the second copy as an agent of its own with a fresh code.`);
    }
    if (!this.#closing)
      this.log.info(`the hub closed the connection (${code}${reason ? `: ${reason}` : ""}); reconnecting`);
  }
  /** The credential is unknown or revoked: say which file holds it and what fixes it. */
  #refused(message) {
    const where = this.#options.credentialPath ? ` The credential is kept in ${this.#options.credentialPath}.` : "";
    const command = this.#options.pairCommand ?? "pair the agent again with a fresh pairing code";
    return new AuthError("unauthorized", message + where, `Pair the agent again: get a fresh pairing code (the app's "Connect my agent", or \`lineup pair\` on the hub's machine) and run: ${command}. A new code replaces the stored credential (the old file is kept beside it as .bak).`);
  }
  #heartbeat(socket) {
    let timer;
    let stopped = false;
    const beat = () => {
      if (stopped)
        return;
      if (Date.now() - this.#lastHeard > 3 * this.heartbeatIntervalMs) {
        this.log.info(`nothing from ${this.credential.hubUrl} for ${Math.round(3 * this.heartbeatIntervalMs / 1e3)} s; reconnecting`);
        socket.terminate();
        return;
      }
      socket.send(JSON.stringify(this.#envelope("system.ping", {})));
      timer = setTimeout(beat, this.heartbeatIntervalMs);
    };
    timer = setTimeout(beat, this.heartbeatIntervalMs * (0.3 + Math.random() * 0.7));
    return { stop: () => {
      stopped = true;
      clearTimeout(timer);
    } };
  }
  // ---- frames from the hub ----------------------------------------------------------------------------------------
  /** The frame, checked against the hub's schema (frames.hubToAgent), or null (logged): a hostile or broken hub gets
   * its frame ignored, never a crash. */
  #parse(text4) {
    if (text4 === BINARY) {
      this.#badFrame("a binary frame (the protocol is text frames only)");
      return null;
    }
    let value;
    try {
      value = JSON.parse(text4);
    } catch {
      this.#badFrame("it is not JSON");
      return null;
    }
    const problem = frameProblem("hubToAgent", value);
    if (problem !== null) {
      const type = typeof value === "object" && value !== null ? value.type : void 0;
      this.#badFrame(`${typeof type === "string" ? `${type}: ` : ""}${problem}`);
      return null;
    }
    const sequence = value.sequence;
    if (typeof sequence === "number" && !(sequence >= 0 && sequence <= Number.MAX_SAFE_INTEGER)) {
      this.#badFrame(`$.sequence: ${sequence} is beyond 0 to ${Number.MAX_SAFE_INTEGER}`);
      return null;
    }
    return value;
  }
  #badFrame(why) {
    this.#badFrames += 1;
    if (this.#badFrames <= 5 || this.#badFrames % 100 === 0) {
      this.log.warn(`ignoring a frame from the hub that breaks the protocol (${clip(why, 300)}); ${this.#badFrames} so far`);
    }
  }
  #onFrame(frame) {
    switch (frame.type) {
      case "system.ack":
        this.#stored(frame.payload.id);
        this.outbox.settle(frame.payload.id, { ack: frame.payload });
        return;
      case "system.error":
        this.#onError(frame.payload);
        return;
      case "system.caught_up": {
        this.lastSequence = Math.max(this.lastSequence, frame.payload.sequence);
        this.#saveState();
        this.connections += 1;
        if (!this.#live) {
          const n = this.#snapshot.size;
          this.log.info(`connected to ${this.credential.hubUrl} as agent ${this.credential.agentId} (${n} unfinished task${n === 1 ? "" : "s"} to resume)`);
        }
        this.#live = true;
        this.#startOpenTasks();
        this.#caughtUp.resolve();
        return;
      }
      case "system.resync_required":
        this.epoch = frame.payload.epoch;
        this.lastSequence = 0;
        this.#saveState();
        return;
      case "system.welcome":
      case "system.pong":
        return;
      case "tool.list":
        if (frame.sequence === null || frame.sequence === void 0) {
          const waiter = this.#toolWaiters.get(frame.correlationId ?? "");
          if (waiter && !waiter.settled)
            waiter.resolve(frame.payload);
          return;
        }
        break;
      default:
        break;
    }
    if (frame.sequence === null || frame.sequence === void 0)
      return;
    if (frame.sequence <= this.lastSequence)
      return;
    this.lastSequence = frame.sequence;
    this.#dispatch(frame);
    this.#saveState();
  }
  #dispatch(frame) {
    switch (frame.type) {
      case "task.assigned": {
        const taskId = frame.taskId;
        if (!taskId) {
          this.#badFrame("task.assigned without taskId");
          return;
        }
        if (!this.tasks.has(taskId) && !this.#ended.has(taskId)) {
          const task = new TaskHandle(this, taskId, frame.conversationId ?? null, frame.payload);
          this.tasks.set(taskId, task);
          if (!this.#live) {
            this.#deferred.set(taskId, task);
            this.#deferredSequence.set(taskId, frame.sequence ?? 0);
          } else {
            this.#start(task);
          }
        }
        break;
      }
      case "task.status_changed":
        if (TERMINAL_TASK_STATUSES.includes(frame.payload.status)) {
          const ended = this.tasks.get(frame.taskId ?? "");
          ended?.endedByHub(frame.payload.status);
          this.taskFinished(frame.taskId ?? "");
        }
        break;
      case "task.cancel_requested":
        this.tasks.get(frame.taskId ?? "")?.requestCancel(frame.payload.reason ?? null);
        break;
      case "tool.result": {
        const waiter = this.#toolWaiters.get(frame.payload.call_id);
        if (waiter && !waiter.settled) {
          const error = frame.payload.error;
          if (error)
            waiter.reject(new ToolCallError(error.code, error.message ?? ""));
          else
            waiter.resolve(frame.payload.result ?? {});
        }
        break;
      }
      case "tool.call":
        this.#spawn(this.#answerToolCall(frame));
        break;
      case "interaction.resolved": {
        const p = frame.payload;
        const outcome = new Outcome(p.interactionId, p.outcome, p.response, p.respondedBy ?? null);
        this.#outcomes.set(outcome.interactionId, outcome);
        const waiter = this.#waiters.get(outcome.interactionId);
        this.#waiters.delete(outcome.interactionId);
        if (waiter && !waiter.settled)
          waiter.resolve(outcome);
        break;
      }
      default:
        break;
    }
    for (const handler of this.#handlers.get(frame.type) ?? []) {
      this.#spawn((async () => {
        try {
          await handler(frame);
        } catch (error) {
          this.log.error(`the ${frame.type} handler failed: ${describeError(error)}`, error instanceof Error ? error.stack : "");
        }
      })());
    }
  }
  async #answerToolCall(frame) {
    const { call_id: callId, name, action } = frame.payload;
    const handler = this.#toolHandlers.get(name);
    const answer = { call_id: callId, name, action: action ?? null };
    if (!handler) {
      answer.error = { code: "unknown_tool", message: `This agent does not handle ${JSON.stringify(name)}.` };
    } else {
      try {
        answer.result = await handler(action ?? null, frame.payload.arguments ?? {});
      } catch (error) {
        if (error instanceof ToolCallError) {
          answer.error = { code: error.code, message: error.reason };
        } else {
          this.log.error(`tool handler ${name} failed: ${describeError(error)}`);
          answer.error = { code: "tool_failed", message: describeError(error).slice(0, 500) };
        }
      }
    }
    try {
      await this.sendTyped("tool.result", answer, { correlationId: frame.id });
    } catch (error) {
      if (!(error instanceof ClientStopped))
        this.log.warn(`the answer to tool call ${callId} was refused: ${describeError(error)}`);
    }
  }
  // ---- refusals the SDK retries -----------------------------------------------------------------------------------
  #onError(error) {
    const envelopeId = error.id;
    if (envelopeId === null || envelopeId === void 0) {
      this.log.warn(`the hub reported an error: ${error.code} ${error.message}`);
      return;
    }
    const envelope = this.outbox.get(envelopeId);
    const refusal2 = HubError.fromPayload(error, envelope?.type);
    if (refusal2.retryable && envelope && !this.#giveUp(envelope, refusal2)) {
      setTimeout(() => {
        if (this.outbox.has(envelopeId))
          this.#transmit(envelope);
      }, 1e3);
      return;
    }
    this.#retrying.delete(envelopeId);
    this.outbox.settle(envelopeId, { error: refusal2 });
  }
  /** Note a retried refusal: the agent's log says so once, a task waiting long says so in its summary; an `internal`
   * refusal that lasts `retryInternalMs` is given up (true): the caller gets the HubError. */
  #giveUp(envelope, refusal2) {
    const now = Date.now();
    let retrying = this.#retrying.get(envelope.id);
    if (!retrying) {
      const isNote = [...this.#retryNotes.values()].some((note) => note.id === envelope.id);
      retrying = { since: now, code: refusal2.code, taskId: envelope.taskId ?? null, note: isNote };
      this.#retrying.set(envelope.id, retrying);
      this.log.warn(`the hub refused ${envelope.type} for now (${refusal2.code}: ${refusal2.reason}); sending it again every second until it is stored`);
    }
    retrying.code = refusal2.code;
    if (refusal2.code === "internal" && now - retrying.since >= this.retryInternalMs) {
      this.log.error(`the hub kept refusing ${envelope.type} with \`internal\` for ${Math.round((now - retrying.since) / 1e3)} s; giving up`);
      return true;
    }
    if (now - retrying.since >= this.retryNoteAfterMs && !retrying.note)
      this.#noteWaiting(retrying.taskId, refusal2.code);
    return false;
  }
  #noteWaiting(taskId, code) {
    const task = taskId ? this.tasks.get(taskId) : void 0;
    if (!task || taskId === null || task.finished || this.#retryNotes.has(taskId))
      return;
    const id = randomUUID2();
    const ack = this.sendTyped("task.status_changed", { summary: `Waiting to retry: ${WAITING_FOR[code] ?? code}` }, { id, taskId, conversationId: task.conversationId });
    ack.catch(() => {
    });
    this.#retryNotes.set(taskId, { id, ack });
  }
  /** An envelope was acked: if it had been retried, say so, and end its task's note once nothing waits. */
  #stored(envelopeId) {
    const retrying = this.#retrying.get(envelopeId);
    if (!retrying)
      return;
    this.#retrying.delete(envelopeId);
    this.log.info(`the hub stored it after ${Math.round((Date.now() - retrying.since) / 1e3)} s of retries`);
    const taskId = retrying.taskId;
    if (taskId === null || retrying.note)
      return;
    const note = this.#retryNotes.get(taskId);
    if (!note)
      return;
    if ([...this.#retrying.values()].some((r) => r.taskId === taskId && !r.note))
      return;
    this.#spawn(this.#endWaiting(taskId, note));
  }
  async #endWaiting(taskId, note) {
    await note.ack.catch(() => {
    });
    if (this.#retryNotes.get(taskId) === note)
      this.#retryNotes.delete(taskId);
    const task = this.tasks.get(taskId);
    if (!task || task.finished)
      return;
    try {
      await task.progress(null, task.summary ?? "Working again");
    } catch (error) {
      this.log.info(`the task's summary was not put back: ${describeError(error)}`);
    }
  }
  // ---- tasks ------------------------------------------------------------------------------------------------------
  /** The task reached a final status: nothing to resume after a restart. */
  taskFinished(taskId) {
    if (!taskId)
      return;
    this.#ended.add(taskId);
    this.#snapshot.delete(taskId);
    this.#deferred.delete(taskId);
  }
  /** The hub's list of this agent's unfinished tasks: what to resume, and how far each got. */
  #takeSnapshot(welcome) {
    this.#snapshot = /* @__PURE__ */ new Map();
    for (const raw of welcome.openTasks ?? []) {
      const task = readOpenTask(raw);
      if (task === null) {
        this.#badFrame("an openTasks entry of the welcome is malformed");
        continue;
      }
      this.#snapshot.set(task.taskId, task);
      for (const question of task.interactions) {
        if (question.status !== "pending" && isOutcome(question.status)) {
          this.#outcomes.set(question.interactionId, new Outcome(question.interactionId, question.status, question.response, question.respondedBy));
        }
      }
    }
    this.#snapshotHead = welcome.headSequence;
    if (welcome.openTasksTruncated) {
      this.log.warn(`the hub listed only the oldest ${this.#snapshot.size} unfinished tasks of this agent`);
    }
  }
  /** At caught_up: run the handler for every open task not yet running here, exactly once per process. */
  #startOpenTasks() {
    const deferredTasks = this.#deferred;
    const sequences = this.#deferredSequence;
    this.#deferred = /* @__PURE__ */ new Map();
    this.#deferredSequence = /* @__PURE__ */ new Map();
    if (!this.#taskHandler)
      return;
    for (const [taskId, info] of this.#snapshot) {
      if (this.#handled.has(taskId) || this.#ended.has(taskId))
        continue;
      let task = this.tasks.get(taskId);
      if (!task || !deferredTasks.has(taskId)) {
        task = new TaskHandle(this, taskId, info.conversationId, { title: info.title, description: info.description });
        this.tasks.set(taskId, task);
      }
      task.restore(info);
      if (task.resumed)
        this.log.info(`resuming unfinished task ${taskId} (${info.status ?? "?"})`);
      this.#start(task);
    }
    for (const [taskId, task] of deferredTasks) {
      if (!this.#handled.has(taskId) && !this.#ended.has(taskId) && (sequences.get(taskId) ?? 0) > this.#snapshotHead) {
        this.#start(task);
      }
    }
  }
  #start(task) {
    if (!this.#taskHandler || this.#handled.has(task.id))
      return;
    this.#handled.add(task.id);
    this.#spawn(this.#runTask(task, this.#taskHandler));
  }
  /** Run the handler; a task it leaves unfinished is ended so that it never stays "Running" (docs/sdk.md "When a
   * handler fails"): failed with the error it threw (`handler_error`) or because it returned without finishing
   * (`handler_returned`), cancelled when the person asked to stop. */
  async #runTask(task, handler) {
    try {
      await handler(task);
    } catch (error) {
      if (this.#stopping)
        return;
      if (task.endedStatus !== null && error instanceof HubError && error.code === "illegal_transition") {
        this.log.info(`the handler of task ${task.id} (${JSON.stringify(task.title)}) stopped: the task had ended (${task.endedStatus}) and the hub refused ${error.envelopeType ?? "what it sent"}`);
        return;
      }
      this.log.error(`the task handler failed on task ${task.id} (${JSON.stringify(task.title)})`, error instanceof Error ? error.stack ?? error.message : error);
      await this.#endUnfinished(task, error);
      return;
    }
    if (!this.#stopping)
      await this.#endUnfinished(task, null);
  }
  async #endUnfinished(task, error) {
    if (task.finished) {
      if (error !== null)
        this.log.warn(`the handler of task ${task.id} threw after the task had ended (${describeError(error)})`);
      return;
    }
    try {
      if (task.cancelRequested) {
        let summary = "Stopped on request";
        if (error !== null)
          summary += `; the handler ended with ${describeError(error)}`;
        await task.cancelled(clip(summary, SUMMARY_MAX));
        this.log.info(`task ${task.id} (${JSON.stringify(task.title)}) cancelled: ${summary}`);
      } else if (error !== null) {
        await task.fail("handler_error", describeError(error));
        this.log.error(`task ${task.id} (${JSON.stringify(task.title)}) failed: ${describeError(error)}`);
      } else {
        await task.fail("handler_returned", "The agent's handler returned without finishing the task: it called none of succeed, fail or cancelled.");
        this.log.error(`task ${task.id} (${JSON.stringify(task.title)}) failed: the handler returned without calling task.succeed(), task.fail() or task.cancelled()`);
      }
    } catch (failure) {
      if (failure instanceof ClientStopped)
        return;
      if (!task.finished)
        this.log.warn(`could not record the end of task ${task.id}: ${describeError(failure)}`);
    }
  }
  #spawn(promise) {
    const tracked = promise.catch((error) => {
      if (!(error instanceof ClientStopped))
        this.log.error(`unexpected: ${describeError(error)}`);
    });
    this.#running.add(tracked);
    void tracked.finally(() => this.#running.delete(tracked));
  }
  /** Closed, replaced or revoked: whatever waits on the hub is told so (ClientStopped), or it would wait for acks
   * and answers that never come; the tasks stay open for the next process. */
  #stop(reason) {
    if (this.#stopping)
      return;
    this.#stopping = true;
    const stopped = reason instanceof ClientStopped ? reason : new ClientStopped(`The agent client stopped: ${reason.message}`);
    this.outbox.failAll(stopped);
    for (const waiter of this.#waiters.values())
      waiter.reject(stopped);
    for (const waiter of this.#toolWaiters.values())
      waiter.reject(stopped);
    this.#waiters.clear();
    if (!this.#caughtUp.settled)
      this.#caughtUp.reject(reason);
  }
  #sleep(ms) {
    return new Promise((resolve2) => {
      const timer = setTimeout(() => {
        this.#wake = null;
        resolve2();
      }, ms);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = null;
        resolve2();
      };
    });
  }
  // ---- the cursor on disk -----------------------------------------------------------------------------------------
  #loadState() {
    if (!this.statePath)
      return;
    let data;
    try {
      data = JSON.parse(readFileSync(this.statePath, "utf8"));
    } catch (error) {
      if (error.code !== "ENOENT")
        this.log.warn(`ignoring an unreadable state file ${this.statePath}`);
      return;
    }
    if (typeof data !== "object" || data === null)
      return;
    const state2 = data;
    if (state2.agentId !== void 0 && state2.agentId !== null && state2.agentId !== this.credential.agentId) {
      this.log.info(`the state file ${this.statePath} belongs to agent ${String(state2.agentId)}: starting afresh as agent ` + this.credential.agentId);
      return;
    }
    this.epoch = typeof state2.epoch === "string" ? state2.epoch : null;
    this.lastSequence = typeof state2.lastSequence === "number" && Number.isInteger(state2.lastSequence) ? Math.max(0, state2.lastSequence) : 0;
  }
  #saveState() {
    if (!this.statePath)
      return;
    const tmp = join2(dirname2(this.statePath), `${basename2(this.statePath)}.${process.pid}.tmp`);
    try {
      writeFileSync(tmp, JSON.stringify({
        agentId: this.credential.agentId,
        epoch: this.epoch,
        lastSequence: this.lastSequence
      }), { mode: 384 });
      renameSync2(tmp, this.statePath);
    } catch (error) {
      this.log.warn(`could not save the cursor in ${this.statePath}: ${describeError(error)}`);
    }
  }
};
function isOutcome(status) {
  return status === "answered" || status === "declined" || status === "expired" || status === "cancelled";
}
function text(value) {
  return typeof value === "string" ? value : null;
}
function object(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
}
function readOpenTask(raw) {
  const o = object(raw);
  if (!o || typeof o.taskId !== "string" || !o.taskId)
    return null;
  const children = [];
  for (const c of Array.isArray(o.children) ? o.children : []) {
    const child = object(c);
    if (child && typeof child.taskId === "string" && typeof child.status === "string") {
      children.push({ taskId: child.taskId, status: child.status });
    }
  }
  const interactions = [];
  for (const q of Array.isArray(o.interactions) ? o.interactions : []) {
    const question = object(q);
    if (!question || typeof question.interactionId !== "string" || typeof question.status !== "string")
      continue;
    const by = object(question.respondedBy);
    const respondedBy = by && typeof by.id === "string" && typeof by.kind === "string" ? by : null;
    interactions.push({
      interactionId: question.interactionId,
      status: question.status,
      response: object(question.response),
      respondedBy
    });
  }
  return {
    taskId: o.taskId,
    conversationId: text(o.conversationId),
    title: text(o.title) ?? "",
    description: text(o.description) ?? "",
    status: text(o.status),
    progress: typeof o.progress === "number" && Number.isFinite(o.progress) ? o.progress : null,
    summary: text(o.summary),
    cancelRequested: o.cancelRequested === true,
    cancelReason: text(o.cancelReason),
    checkpoints: object(o.checkpoints) ?? {},
    children,
    interactions
  };
}

// ../../sdk/typescript/dist/credentials.js
import { existsSync, readFileSync as readFileSync2 } from "node:fs";
import { inspect } from "node:util";
var Credential = class _Credential {
  hubUrl;
  agentId;
  workspaceId;
  /** The pinned SHA-256 of a self-signed hub certificate (https hubs), `AB:CD:…`. */
  tlsFingerprint;
  /** The pairing code it came from, hashed: the same code again loads it instead of pairing. */
  codeSha256;
  /** What pairing did to the agent it replaces (never stored in the file). */
  replaced;
  /** Paired over plain http beyond this machine by explicit choice (./cleartext.ts). */
  insecure;
  #secret;
  constructor(fields) {
    this.hubUrl = fields.hubUrl.replace(/\/+$/, "");
    this.agentId = fields.agentId;
    this.workspaceId = fields.workspaceId;
    this.#secret = fields.credential;
    this.tlsFingerprint = fields.tlsFingerprint ?? null;
    this.codeSha256 = fields.codeSha256 ?? null;
    this.replaced = fields.replaced ?? null;
    this.insecure = fields.insecure === true;
  }
  /** The secret: it goes in the hello frame and the Authorization header only, never in a URL or a log. */
  get credential() {
    return this.#secret;
  }
  /** The agent socket's address. */
  get wsUrl() {
    const url = new URL(this.hubUrl);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.pathname = url.pathname.replace(/\/+$/, "") + "/ws/agent";
    url.search = "";
    url.hash = "";
    return url.toString();
  }
  with(fields) {
    return new _Credential({ ...this.fields(), ...fields });
  }
  fields() {
    return {
      hubUrl: this.hubUrl,
      agentId: this.agentId,
      workspaceId: this.workspaceId,
      credential: this.#secret,
      tlsFingerprint: this.tlsFingerprint,
      codeSha256: this.codeSha256,
      replaced: this.replaced,
      insecure: this.insecure
    };
  }
  toJSON() {
    return { hubUrl: this.hubUrl, agentId: this.agentId, workspaceId: this.workspaceId };
  }
  toString() {
    return `Credential(${this.hubUrl}, agent ${this.agentId})`;
  }
  [inspect.custom]() {
    return this.toString();
  }
};
function loadCredential(path2) {
  let data;
  try {
    data = JSON.parse(readFileSync2(path2, "utf8"));
  } catch (error) {
    throw new SdkError(`Cannot read the credential file ${path2}: ${error.message}`);
  }
  const text4 = (key) => {
    const value = data[key];
    if (typeof value !== "string" || !value)
      throw new SdkError(`The credential file ${path2} has no ${key}.`);
    return value;
  };
  const optional = (key) => typeof data[key] === "string" ? data[key] : null;
  return new Credential({
    hubUrl: text4("hub_url"),
    agentId: text4("agent_id"),
    workspaceId: text4("workspace_id"),
    credential: text4("credential"),
    tlsFingerprint: optional("tls_fingerprint"),
    codeSha256: optional("code_sha256"),
    insecure: data.insecure === true
  });
}

// ../../sdk/typescript/dist/approvals.js
var approvals_exports = {};
__export(approvals_exports, {
  CARD_BUDGET_BYTES: () => CARD_BUDGET_BYTES,
  MAX_DIFF_SOURCE_BYTES: () => MAX_DIFF_SOURCE_BYTES,
  MAX_ITEMS: () => MAX_ITEMS,
  MAX_QUESTION_BYTES: () => MAX_QUESTION_BYTES,
  approvesBytes: () => approvesBytes,
  argvApproval: () => argvApproval,
  commandApproval: () => commandApproval,
  editApproval: () => editApproval,
  fitQuestion: () => fitQuestion,
  fits: () => fits,
  isSecret: () => isSecret,
  itemsOf: () => itemsOf,
  readOld: () => readOld,
  shellQuote: () => shellQuote,
  sizeOf: () => sizeOf,
  toolApproval: () => toolApproval,
  writeApproval: () => writeApproval
});
import { statSync as statSync3 } from "node:fs";
import { isAbsolute as isAbsolute2, join as join4, relative as relative2 } from "node:path";

// ../../sdk/typescript/dist/diff.js
var MAX_EDITS = 2e3;
function splitLines(text4) {
  const lines = [];
  let start = 0;
  for (let i = 0; i < text4.length; i++) {
    if (text4.charCodeAt(i) === 10) {
      lines.push(text4.slice(start, i + 1));
      start = i + 1;
    }
  }
  if (start < text4.length)
    lines.push(text4.slice(start));
  return lines;
}
function myers(a, b, aLo, aHi, bLo, bHi, maxD) {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace = [];
  let found = -1;
  for (let d = 0; d <= Math.min(max, maxD); d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x2 = k === -d || k !== d && v[offset + k - 1] < v[offset + k + 1] ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y2 = x2 - k;
      while (x2 < n && y2 < m && a[aLo + x2] === b[bLo + y2]) {
        x2++;
        y2++;
      }
      v[offset + k] = x2;
      if (x2 >= n && y2 >= m) {
        found = d;
        break;
      }
    }
    if (found >= 0)
      break;
  }
  if (found < 0)
    return null;
  const blocks = [];
  let x = n;
  let y = m;
  for (let d = found; d >= 0; d--) {
    const saved = trace[d];
    const at = (k2) => saved[k2 + d + 1];
    const k = x - y;
    let prevK;
    if (d === 0)
      prevK = 0;
    else
      prevK = k === -d || k !== d && at(k - 1) < at(k + 1) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : at(prevK);
    const prevY = prevX - prevK;
    const startX = d === 0 ? 0 : prevK === k + 1 ? prevX : prevX + 1;
    const startY = startX - k;
    if (x > startX)
      blocks.push([aLo + startX, bLo + startY, x - startX]);
    x = prevX;
    y = prevY;
  }
  return blocks.reverse();
}
function opcodes(a, b) {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix])
    prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix])
    suffix++;
  const blocks = [];
  if (prefix)
    blocks.push([0, 0, prefix]);
  const middle = myers(a, b, prefix, a.length - suffix, prefix, b.length - suffix, MAX_EDITS) ?? [];
  blocks.push(...middle);
  if (suffix)
    blocks.push([a.length - suffix, b.length - suffix, suffix]);
  blocks.push([a.length, b.length, 0]);
  const codes = [];
  let i = 0;
  let j = 0;
  for (const [ai, bj, size2] of blocks) {
    const tag = i < ai && j < bj ? "replace" : i < ai ? "delete" : j < bj ? "insert" : null;
    if (tag)
      codes.push([tag, i, ai, j, bj]);
    i = ai + size2;
    j = bj + size2;
    if (size2)
      codes.push(["equal", ai, i, bj, j]);
  }
  return codes;
}
function grouped(codes, n) {
  if (!codes.length)
    codes = [["equal", 0, 1, 0, 1]];
  const first = codes[0];
  if (first[0] === "equal")
    codes[0] = ["equal", Math.max(first[1], first[2] - n), first[2], Math.max(first[3], first[4] - n), first[4]];
  const last = codes[codes.length - 1];
  if (last[0] === "equal")
    codes[codes.length - 1] = ["equal", last[1], Math.min(last[2], last[1] + n), last[3], Math.min(last[4], last[3] + n)];
  const groups = [];
  let group = [];
  for (let [tag, i1, i2, j1, j2] of codes) {
    if (tag === "equal" && i2 - i1 > 2 * n) {
      group.push([tag, i1, Math.min(i2, i1 + n), j1, Math.min(j2, j1 + n)]);
      groups.push(group);
      group = [];
      i1 = Math.max(i1, i2 - n);
      j1 = Math.max(j1, j2 - n);
    }
    group.push([tag, i1, i2, j1, j2]);
  }
  if (group.length && !(group.length === 1 && group[0][0] === "equal"))
    groups.push(group);
  return groups;
}
function range(start, stop) {
  let beginning = start + 1;
  const length = stop - start;
  if (length === 1)
    return String(beginning);
  if (!length)
    beginning -= 1;
  return `${beginning},${length}`;
}
function unifiedDiff(before, after, fromFile, toFile, context = 3) {
  const a = splitLines(before);
  const b = splitLines(after);
  const lines = [];
  for (const group of grouped(opcodes(a, b), context)) {
    if (!lines.length)
      lines.push(`--- ${fromFile}
`, `+++ ${toFile}
`);
    const first = group[0];
    const last = group[group.length - 1];
    lines.push(`@@ -${range(first[1], last[2])} +${range(first[3], last[4])} @@
`);
    for (const [tag, i1, i2, j1, j2] of group) {
      if (tag === "equal") {
        for (const line of a.slice(i1, i2))
          lines.push(` ${line}`);
        continue;
      }
      if (tag === "replace" || tag === "delete")
        for (const line of a.slice(i1, i2))
          lines.push(`-${line}`);
      if (tag === "replace" || tag === "insert")
        for (const line of b.slice(j1, j2))
          lines.push(`+${line}`);
    }
  }
  return lines.map((line) => line.endsWith("\n") ? line : `${line}
\\ No newline at end of file
`).join("");
}

// ../../sdk/typescript/dist/oldfile.js
import { closeSync, openSync, readSync, realpathSync, statSync as statSync2 } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join as join3, relative, resolve, sep } from "node:path";
var MAX_DIFF_SOURCE_BYTES = 2 * 1024 * 1024;
var SECRET_NAMES = [
  "id_*",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".env",
  ".env.*",
  "credentials*",
  "*secret*",
  ".git-credentials"
];
var SECRET_FOLDERS = [".ssh", ".gnupg", ".aws"];
var SECRET_TAILS = [[".docker", "config.json"], [".kube", "config"]];
var NAME_PATTERNS = SECRET_NAMES.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*")}$`, "s"));
function partsOf(path2) {
  return path2.split(/[\\/]+/).filter(Boolean).map((p) => p.toLowerCase());
}
function isSecret(path2, within) {
  const parts = partsOf(path2);
  if (parts.slice(0, -1).some((part) => SECRET_FOLDERS.includes(part)))
    return true;
  for (let i = 0; i < parts.length - 1; i++) {
    if (SECRET_TAILS.some(([a, b]) => parts[i] === a && parts[i + 1] === b))
      return true;
  }
  let named = parts;
  if (within) {
    const inside2 = relative(within, path2);
    if (inside2 && !inside2.startsWith("..") && !isAbsolute(inside2))
      named = partsOf(inside2);
  }
  return named.some((part) => NAME_PATTERNS.some((pattern) => pattern.test(part)));
}
function inside(path2, folder) {
  return path2 === folder || path2.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}
function textOf(path2) {
  let fd = null;
  try {
    fd = openSync(path2, "r");
    const buffer = Buffer.alloc(MAX_DIFF_SOURCE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0)
        break;
      length += read;
    }
    if (length > MAX_DIFF_SOURCE_BYTES)
      return null;
    const data = buffer.subarray(0, length);
    if (data.includes(0))
      return null;
    return new TextDecoder("utf-8", { fatal: true }).decode(data);
  } catch {
    return null;
  } finally {
    if (fd !== null)
      closeSync(fd);
  }
}
function readOld(path2, cwd) {
  cwd = cwd || process.cwd();
  const expanded = path2 === "~" || path2.startsWith("~/") ? join3(homedir(), path2.slice(1)) : path2;
  const target = isAbsolute(expanded) ? expanded : join3(cwd, expanded);
  let info;
  try {
    info = statSync2(target);
  } catch {
    return { exists: false, text: null, hidden: null, size: null };
  }
  const hidden = (why) => ({ exists: true, text: null, hidden: why, size: info.size });
  let real;
  try {
    real = realpathSync(target);
  } catch {
    return hidden("not_text");
  }
  let folder = null;
  if (cwd) {
    try {
      folder = realpathSync(cwd);
    } catch {
      folder = resolve(cwd);
    }
  }
  if (isSecret(resolve(target), cwd ? resolve(cwd) : null) || isSecret(real, folder))
    return hidden("secret");
  if (folder === null || !inside(real, folder))
    return hidden("outside");
  if (!info.isFile())
    return hidden("not_text");
  if (info.size > MAX_DIFF_SOURCE_BYTES)
    return hidden("too_large");
  const text4 = textOf(real);
  if (text4 === null)
    return hidden("not_text");
  return { exists: true, text: text4, hidden: null, size: info.size };
}

// ../../sdk/typescript/dist/approvals.js
var MAX_QUESTION_BYTES = 64 * 1024;
var CARD_BUDGET_BYTES = 60 * 1024;
var MAX_ITEMS = 50;
function commandApproval(command, cwd) {
  const subject = { kind: "command", command };
  if (cwd)
    subject.cwd = cwd;
  return subject;
}
function argvApproval(argv, cwd) {
  const subject = { kind: "command", argv: argv.map(String) };
  if (cwd)
    subject.cwd = cwd;
  return subject;
}
function toolApproval(tool, input, cwd) {
  const subject = { kind: "tool", tool, input };
  if (cwd)
    subject.cwd = cwd;
  return subject;
}
function hide(subject, old) {
  if (old.hidden) {
    subject.oldHidden = old.hidden;
    if (old.size !== null)
      subject.oldSize = old.size;
  }
}
function writeApproval(path2, content, cwd) {
  const subject = { kind: "write", path: path2, content };
  if (cwd)
    subject.cwd = cwd;
  const old = readOld(path2, cwd);
  hide(subject, old);
  if (!old.hidden) {
    const diff = makeDiff(path2, old.text ?? "", content, cwd, !old.exists);
    if (diff)
      subject.diff = diff;
  }
  return subject;
}
function editApproval(path2, edits, cwd) {
  const clean = edits.map((e) => ({
    old: String(e.old ?? ""),
    new: String(e.new ?? ""),
    ...e.replaceAll ? { replaceAll: true } : {}
  }));
  const subject = { kind: "edit", path: path2, edits: clean };
  if (cwd)
    subject.cwd = cwd;
  const old = readOld(path2, cwd);
  hide(subject, old);
  if (old.text !== null) {
    let after = old.text;
    for (const edit of clean) {
      if (after === null || !edit.old || !after.includes(edit.old)) {
        after = null;
        break;
      }
      after = edit.replaceAll ? after.split(edit.old).join(edit.new) : after.replace(edit.old, () => edit.new);
    }
    if (after !== null) {
      const diff = makeDiff(path2, old.text, after, cwd, false);
      if (diff)
        subject.diff = diff;
    }
  }
  return subject;
}
function itemsOf(approves) {
  return Array.isArray(approves) ? approves : [approves];
}
function size(value) {
  return Buffer.byteLength(JSON.stringify(value), "utf8");
}
function shellQuote(word) {
  if (word === "")
    return "''";
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word))
    return word;
  return `'${word.replaceAll("'", `'"'"'`)}'`;
}
function asTheHubCounts(subject) {
  if (subject.kind === "command" && Array.isArray(subject.argv) && subject.command == null) {
    return { ...subject, command: subject.argv.map(shellQuote).join(" ") };
  }
  return subject;
}
function approvesBytes(approves) {
  return size(itemsOf(approves).map(asTheHubCounts));
}
function fileSize(subject) {
  const path2 = String(subject.path ?? "");
  const target = !isAbsolute2(path2) && subject.cwd ? join4(subject.cwd, path2) : path2;
  try {
    return statSync3(target).size;
  } catch {
    return null;
  }
}
function leaner(subject) {
  if (!subject.diff || subject.kind === "edit" && !subject.edits?.length)
    return null;
  const { diff: _diff, ...lean } = subject;
  if (subject.kind !== "write" || subject.diff.startsWith("--- /dev/null"))
    return lean;
  lean.oldHidden = "too_large";
  const known = fileSize(subject);
  if (known !== null)
    lean.oldSize = known;
  const { content: _content, ...rest } = subject;
  const asEdit = { ...rest, kind: "edit" };
  return size(asEdit) <= size(lean) ? asEdit : lean;
}
function fits(approves) {
  const items = itemsOf(approves).map((item) => ({ ...item }));
  if (!items.length || items.length > MAX_ITEMS)
    return null;
  while (approvesBytes(items) > CARD_BUDGET_BYTES) {
    const order = items.map((_, i) => i).sort((a, b) => size(asTheHubCounts(items[b])) - size(asTheHubCounts(items[a])));
    const index = order.find((i) => leaner(items[i]) !== null);
    if (index === void 0)
      return null;
    items[index] = leaner(items[index]);
  }
  return Array.isArray(approves) ? items : items[0];
}
function fitQuestion(spec2) {
  let card = spec2;
  let description = card.description ?? "";
  while (size(card) > MAX_QUESTION_BYTES) {
    if (!description)
      return null;
    const over = size(card) - MAX_QUESTION_BYTES;
    description = description.slice(0, Math.max(0, description.length - over - 1));
    card = { ...card, description: description ? `${description}\u2026` : "" };
  }
  return card;
}
function sizeOf(approves) {
  let total = 0;
  for (const subject of itemsOf(approves)) {
    if (subject.kind === "command") {
      total += (subject.command ?? (subject.argv ?? []).map(shellQuote).join(" ")).length;
    } else if (subject.kind === "write") {
      total += (subject.content ?? "").length;
    } else if (subject.kind === "tool") {
      total += (JSON.stringify(subject.input, null, 2) ?? "").length;
    } else {
      const edits = (subject.edits ?? []).reduce((sum, e) => sum + e.old.length + e.new.length + 1, 0);
      total += edits || (subject.diff ?? "").length;
    }
  }
  return total;
}
function makeDiff(path2, before, after, cwd, newFile) {
  let name = path2;
  if (cwd && isAbsolute2(path2)) {
    const inside2 = relative2(cwd, path2);
    if (inside2 && !inside2.startsWith("..") && !isAbsolute2(inside2))
      name = inside2;
  }
  return unifiedDiff(before, after, newFile ? "/dev/null" : `a/${name}`, `b/${name}`);
}

// src/approvals.ts
import {
  createChannelApprovalNativeRuntimeAdapter
} from "openclaw/plugin-sdk/approval-handler-runtime";
import { resolveApprovalOverGateway } from "openclaw/plugin-sdk/approval-gateway-runtime";

// src/config.ts
import { homedir as homedir2 } from "node:os";
import { isAbsolute as isAbsolute3, join as join5 } from "node:path";
var CHANNEL_ID = "lineup";
var CHANNEL_LABEL = "LineUp";
var DEFAULT_ACCOUNT = "default";
function record(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
}
function section(cfg) {
  return record(record(record(cfg)?.channels)?.[CHANNEL_ID]) ?? {};
}
function expandHome(path2) {
  if (path2 === "~") return homedir2();
  if (path2.startsWith("~/")) return join5(homedir2(), path2.slice(2));
  return path2;
}
function resolveAccount(cfg, accountId) {
  const raw = section(cfg);
  const enabled = raw.enabled !== false;
  const hub = typeof raw.hub === "string" && raw.hub.trim() ? raw.hub.trim() : null;
  const file = typeof raw.credentialFile === "string" && raw.credentialFile.trim() ? expandHome(raw.credentialFile.trim()) : null;
  let problem = null;
  if (file === null) problem = "channels.lineup.credentialFile is not set: run `lineup connect openclaw`";
  else if (!isAbsolute3(file)) problem = "channels.lineup.credentialFile must be an absolute path";
  return {
    accountId: accountId?.trim() || DEFAULT_ACCOUNT,
    enabled,
    configured: problem === null,
    hub,
    credentialFile: file,
    forwardApprovals: raw.forwardApprovals === true,
    problem
  };
}

// src/ids.ts
function sessionConversationId(agentId, sessionKey) {
  return `conv_oc_${stableId("openclaw-session", agentId, sessionKey)}`;
}
function cardId(agentId, approvalId) {
  return `int_oc_${stableId("openclaw-approval", agentId, approvalId)}`;
}
function replyMessageId(agentId, inboundMessageId, index) {
  return `msg_oc_${stableId("openclaw-reply", agentId, inboundMessageId, index)}`;
}
function outboundMessageId(agentId, deliveryId, part) {
  return `msg_oc_${stableId("openclaw-delivery", agentId, deliveryId, part)}`;
}
function noteMessageId(agentId, what, about) {
  return `msg_oc_${stableId("openclaw-note", agentId, what, about)}`;
}
function clip2(text4, limit) {
  return text4.length <= limit ? text4 : `${text4.slice(0, limit - 1)}\u2026`;
}

// src/state.ts
import { randomUUID as randomUUID3 } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync as readFileSync3, renameSync as renameSync3, writeFileSync as writeFileSync2 } from "node:fs";
import { basename as basename3, dirname as dirname3, join as join6 } from "node:path";
var DECISIONS = ["allow-once", "allow-always", "deny"];
var MAX_CARDS = 2e3;
var MAX_SESSIONS = 2e3;
function record2(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
}
function readCard(value) {
  const o = record2(value);
  if (!o || typeof o.approvalId !== "string" || !o.approvalId || typeof o.conversationId !== "string") return null;
  if (o.approvalKind !== "exec" && o.approvalKind !== "plugin") return null;
  const decisions = Array.isArray(o.decisions) ? o.decisions.filter((d) => DECISIONS.includes(d)) : [];
  const state2 = o.state === "answered" || o.state === "ended" || o.state === "answering" ? o.state : "pending";
  return {
    approvalId: o.approvalId,
    approvalKind: o.approvalKind,
    conversationId: o.conversationId,
    decisions,
    expiresAtMs: typeof o.expiresAtMs === "number" && Number.isFinite(o.expiresAtMs) ? o.expiresAtMs : 0,
    boot: typeof o.boot === "string" ? o.boot : "",
    state: state2
  };
}
var ChannelState = class {
  path;
  agentId;
  /** This process: cards asked by an earlier one belong to a Gateway that has stopped. */
  boot = randomUUID3();
  cards = /* @__PURE__ */ new Map();
  sessions = /* @__PURE__ */ new Map();
  constructor(path2, agentId) {
    this.path = path2;
    this.agentId = agentId;
    let data = null;
    try {
      data = record2(JSON.parse(readFileSync3(path2, "utf8")));
    } catch {
      data = null;
    }
    if (!data || data.agentId !== agentId) return;
    for (const [id, raw] of Object.entries(record2(data.cards) ?? {})) {
      const card = readCard(raw);
      if (card) this.cards.set(id, card);
    }
    for (const [id, raw] of Object.entries(record2(data.sessions) ?? {})) {
      const o = record2(raw);
      if (o && typeof o.sessionKey === "string" && typeof o.title === "string") {
        this.sessions.set(id, { sessionKey: o.sessionKey, title: o.title });
      }
    }
  }
  save() {
    while (this.cards.size > MAX_CARDS) {
      const done = [...this.cards].find(([, c]) => c.state === "answered" || c.state === "ended");
      this.cards.delete((done ?? [...this.cards][0])[0]);
    }
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete([...this.sessions.keys()][0]);
    const dir = dirname3(this.path);
    mkdirSync(dir, { recursive: true, mode: 448 });
    const tmp = join6(dir, `${basename3(this.path)}.${process.pid}.tmp`);
    writeFileSync2(tmp, JSON.stringify({
      agentId: this.agentId,
      cards: Object.fromEntries(this.cards),
      sessions: Object.fromEntries(this.sessions)
    }), { mode: 384 });
    chmodSync(tmp, 384);
    renameSync3(tmp, this.path);
  }
};

// src/approvals.ts
var HUB_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
var SHORT_COMMAND = 120;
var EARLY_MS = 1e3;
function record3(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
}
function text2(value) {
  return typeof value === "string" ? value.trim() : "";
}
function linkOf(context) {
  const link = record3(context)?.link;
  return link && typeof link === "object" && "ask" in link ? link : null;
}
function requestFields(request3) {
  return record3(record3(request3)?.request) ?? {};
}
function originConversation(request3, accountId) {
  const r = requestFields(request3);
  if (text2(r.turnSourceChannel).toLowerCase() !== CHANNEL_ID) return null;
  const account = text2(r.turnSourceAccountId);
  if (account && accountId && account !== accountId) return null;
  const to = text2(r.turnSourceTo).replace(/^lineup:/i, "");
  return HUB_ID.test(to) ? to : null;
}
function forwardingOn(cfg, accountId, request3) {
  if (resolveAccount(cfg, accountId).forwardApprovals) return true;
  const exec = record3(record3(record3(cfg)?.approvals)?.exec);
  if (!exec || exec.enabled !== true) return false;
  const mode = text2(exec.mode) || "session";
  if (mode !== "targets" && mode !== "both") return false;
  const targets = Array.isArray(exec.targets) ? exec.targets : [];
  const ours = targets.some((t) => text2(record3(t)?.channel).toLowerCase() === CHANNEL_ID && (!text2(record3(t)?.accountId) || text2(record3(t)?.accountId) === (accountId || "default")));
  if (!ours) return false;
  return matchesFilters(exec, request3);
}
function matchesFilters(exec, request3) {
  const r = requestFields(request3);
  const agents = Array.isArray(exec.agentFilter) ? exec.agentFilter.filter((a) => typeof a === "string") : [];
  const sessionKey = text2(r.sessionKey);
  const agentId = text2(r.agentId) || (/^agent:([^:]+):/.exec(sessionKey)?.[1] ?? "");
  if (agents.length && !agents.includes(agentId)) return false;
  const sessions = Array.isArray(exec.sessionFilter) ? exec.sessionFilter.filter((s) => typeof s === "string") : [];
  if (!sessions.length) return true;
  return sessions.some((pattern) => {
    const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
    if (regex) {
      try {
        return new RegExp(regex[1], regex[2]).test(sessionKey);
      } catch {
        return false;
      }
    }
    return sessionKey.includes(pattern);
  });
}
function acpBridgeSession(request3) {
  return /^(agent:[^:]+:)?acp-bridge:/.test(text2(requestFields(request3).sessionKey));
}
function handles(cfg, accountId, request3, approvalKind) {
  if (approvalKind !== "exec") return false;
  if (!resolveAccount(cfg, accountId).enabled) return false;
  if (originConversation(request3, accountId) !== null) return true;
  return !acpBridgeSession(request3) && forwardingOn(cfg, accountId, request3);
}
var DESCRIPTIONS = {
  "allow-once": "OpenClaw runs this command this time and asks again next time.",
  // What OpenClaw 2026.9.6 keeps (its resolveAllowAlwaysPatterns): the program each part of the command runs, by its
  // resolved path, or the exact command when it runs through a shell wrapper.
  "allow-always": "OpenClaw runs it and adds the program it runs (its resolved path, e.g. /usr/bin/git for `git push`; the exact command when it goes through `sh -c`) to this agent's exec allowlist: from now on that program runs without asking, whatever its arguments (`openclaw approvals` shows and edits the list).",
  deny: "OpenClaw does not run it. OpenClaw's answer carries no note: a note you add is not passed on."
};
var STYLES = {
  "allow-once": "primary",
  "allow-always": "secondary",
  deny: "danger"
};
function cardOptions(view) {
  const seen = /* @__PURE__ */ new Set();
  const options2 = [];
  for (const action of view.actions) {
    const decision = action.decision;
    if (!DECISIONS.includes(decision) || seen.has(decision)) continue;
    seen.add(decision);
    options2.push({
      id: decision,
      label: clip2(action.label || decision, 80),
      style: STYLES[decision],
      description: DESCRIPTIONS[decision]
    });
  }
  return options2;
}
function cardTitle(command) {
  const line = command.trim();
  if (line.length <= SHORT_COMMAND && !line.includes("\n")) return `OpenClaw wants to run: ${line}`;
  return `OpenClaw wants to run a ${command.length.toLocaleString("en")}-character command`;
}
function cardFor(view, conversationTitle) {
  const subject = approvals_exports.fits(approvals_exports.commandApproval(view.commandText, view.cwd ?? void 0));
  if (subject === null) return null;
  const details = {};
  if (view.sessionKey) details.session = view.sessionKey;
  if (view.agentId) details.agent = view.agentId;
  if (view.host) details.host = view.nodeId ? `${view.host} (${view.nodeId})` : view.host;
  if (view.warningText) details.warning = clip2(view.warningText, 2e3);
  const description = [
    conversationTitle ? `From OpenClaw's session ${conversationTitle}.` : "",
    view.warningText ? clip2(view.warningText, 1e3) : ""
  ].filter(Boolean).join("\n\n");
  const spec2 = {
    type: "approval",
    title: cardTitle(view.commandText),
    description,
    risk: "medium",
    approves: subject,
    options: cardOptions(view),
    details,
    // OpenClaw's approval.resolve takes a decision only: a note the person adds does not reach the agent.
    notes: "not_sent"
  };
  if (Number.isFinite(view.expiresAtMs) && view.expiresAtMs > Date.now() + EARLY_MS) {
    spec2.expiresAt = new Date(Math.floor((view.expiresAtMs - EARLY_MS) / 1e3) * 1e3).toISOString();
  }
  return spec2;
}
var DECIDED = {
  "allow-once": "allowed it once",
  "allow-always": "allowed it always",
  deny: "denied it"
};
var SCOPE_CLOSED = "approval-scope-closed";
var SCOPE_CLOSED_REASON = "OpenClaw ended the turn that asked (it was stopped, or OpenClaw's Gateway is stopping) and denied this approval: the command did not run.";
function resolvedElsewhere(decision, resolvedBy) {
  if (resolvedBy === SCOPE_CLOSED && decision === "deny") return SCOPE_CLOSED_REASON;
  const who = resolvedBy ? ` (${clip2(resolvedBy, 80)})` : "";
  return `Answered in OpenClaw${who}: it ${DECIDED[decision] ?? "decided"}.`;
}
var EXPIRED_REASON = "OpenClaw stopped waiting for an answer (the approval expired) and did not run it.";
var RESTARTED_REASON = "OpenClaw's Gateway stopped while this approval waited, and OpenClaw denies an approval it stops waiting on: the command did not run. Ask OpenClaw again if you still want it.";
var STOPPING_REASON = "OpenClaw's Gateway is stopping, and OpenClaw denies an approval it stops waiting on: the command did not run. Ask OpenClaw again once its Gateway is back if you still want it.";
async function endCardsAsTheGatewayStops(params) {
  const { link, cfg, accountId } = params;
  const waiting = [...link.state.cards].filter(([, card]) => card.state === "pending" && card.boot === link.state.boot);
  if (waiting.length) link.log.info(`the Gateway is stopping: ${waiting.length} waiting card(s) end; OpenClaw: deny`);
  for (const [, card] of waiting) card.state = "ended";
  if (waiting.length) link.state.save();
  await Promise.all(waiting.map(async ([id, card]) => {
    try {
      await resolveApprovalOverGateway({
        cfg,
        approvalId: card.approvalId,
        decision: "deny",
        approvalKind: card.approvalKind,
        channel: CHANNEL_ID,
        accountId,
        senderId: "lineup",
        clientDisplayName: `${CHANNEL_LABEL} approval (the Gateway is stopping)`
      });
    } catch (error) {
      link.log.info(`OpenClaw approval ${card.approvalId} was not denied by LineUp as the Gateway stops: ` + String(error));
    }
    try {
      await link.withdraw(id, STOPPING_REASON);
    } catch (error) {
      link.log.warn(`could not end the card of OpenClaw approval ${card.approvalId}: ${String(error)}`);
    }
  }));
  return waiting.length;
}
async function withdrawStaleCards(link) {
  let ended = 0;
  for (const [id, card] of [...link.state.cards]) {
    if (card.state !== "pending" || card.boot === link.state.boot) continue;
    try {
      await link.withdraw(id, RESTARTED_REASON);
      ended += 1;
    } catch (error) {
      link.log.warn(`could not end the card of OpenClaw approval ${card.approvalId}: ${String(error)}`);
    }
  }
  return ended;
}
var nativeRuntime = createChannelApprovalNativeRuntimeAdapter({
  eventKinds: ["exec"],
  availability: {
    isConfigured: ({ context }) => linkOf(context) !== null,
    shouldHandle: ({ cfg, accountId, request: request3, approvalKind, context }) => linkOf(context) !== null && handles(cfg, accountId, request3, approvalKind)
  },
  presentation: {
    buildPendingPayload: ({ view }) => ({ view }),
    buildResolvedResult: ({ view }) => ({
      kind: "update",
      payload: { phase: "resolved", decision: view.decision, resolvedBy: view.resolvedBy ?? null }
    }),
    buildExpiredResult: () => ({ kind: "update", payload: { phase: "expired" } })
  },
  transport: {
    prepareTarget: ({ plannedTarget, request: request3, context, accountId }) => {
      const link = linkOf(context);
      if (!link) return null;
      const sessionKey = text2(requestFields(request3).sessionKey);
      const origin2 = plannedTarget.surface === "origin" ? originConversation(request3, accountId) : null;
      const conversationId = origin2 ?? sessionConversationId(link.agentId, sessionKey || "(no session)");
      return { dedupeKey: conversationId, target: { conversationId, sessionKey, forwarded: origin2 === null } };
    },
    deliverPending: async ({ preparedTarget, request: request3, view, context }) => {
      const link = linkOf(context);
      if (!link || view.approvalKind !== "exec") return null;
      const approvalId = text2(record3(request3)?.id);
      if (!approvalId) return null;
      const id = cardId(link.agentId, approvalId);
      const session = preparedTarget.sessionKey || "(no session)";
      if (preparedTarget.forwarded) {
        await link.sessionConversation(preparedTarget.conversationId, session, `OpenClaw: ${session}`);
      }
      const spec2 = cardFor(view, preparedTarget.forwarded ? session : null);
      if (spec2 === null) {
        await link.say(
          preparedTarget.conversationId,
          `OpenClaw asks to run a command of ${view.commandText.length.toLocaleString("en")} characters, too long to show whole on a card: answer it in OpenClaw (\`/approve ${approvalId} allow-once\` or \`deny\` in its chat, or \`openclaw approvals\`).`,
          noteMessageId(link.agentId, "too-long", approvalId)
        );
        return null;
      }
      const decisions = (spec2.options ?? []).map((o) => o.id);
      await link.ask(id, {
        approvalId,
        approvalKind: "exec",
        conversationId: preparedTarget.conversationId,
        decisions,
        expiresAtMs: view.expiresAtMs,
        boot: link.state.boot,
        state: "pending"
      }, spec2);
      return { cardId: id, conversationId: preparedTarget.conversationId };
    },
    updateEntry: async ({ entry, payload, context }) => {
      const link = linkOf(context);
      if (!link) return;
      const card = link.state.cards.get(entry.cardId);
      if (card && card.state !== "pending") return;
      const reason = payload.phase === "expired" ? EXPIRED_REASON : resolvedElsewhere(payload.decision, payload.resolvedBy);
      await link.withdraw(entry.cardId, reason);
    }
  }
});
async function answerApproval(params) {
  const { link, cfg, accountId, answer } = params;
  try {
    await resolveApprovalOverGateway({
      cfg,
      approvalId: answer.card.approvalId,
      decision: answer.decision,
      approvalKind: answer.card.approvalKind,
      channel: CHANNEL_ID,
      accountId,
      senderId: answer.responderId || "lineup",
      clientDisplayName: `${CHANNEL_LABEL} approval`
    });
    link.markAnswered(answer.cardId);
  } catch (error) {
    link.markAnswered(answer.cardId);
    const why = error instanceof Error ? error.message : String(error);
    link.log.warn(`OpenClaw did not take the answer to approval ${answer.card.approvalId}: ${why}`);
    await link.say(answer.card.conversationId, `OpenClaw no longer waited for this approval when your answer came (${clip2(why, 300)}), so it did not take it.`, noteMessageId(link.agentId, "late", answer.card.approvalId));
  }
}
function state(enabled) {
  return enabled ? { kind: "enabled" } : { kind: "disabled" };
}
var lineupApprovalCapability = {
  // The hub shows a card only to the people of its workspace, and only they can answer it.
  authorizeActorAction: () => ({ authorized: true }),
  getActionAvailabilityState: ({ cfg, accountId }) => state(resolveAccount(cfg, accountId).configured),
  getExecInitiatingSurfaceState: ({ cfg, accountId }) => state(resolveAccount(cfg, accountId).configured),
  describeExecApprovalSetup: () => "LineUp shows OpenClaw's exec approvals as cards when the LineUp channel runs (`lineup connect openclaw`); approvals of sessions started elsewhere come too with `channels.lineup.forwardApprovals: true`.",
  delivery: {
    // A `lineup` target in approvals.exec: the card is the prompt; no text copy of it through the outbound adapter.
    shouldSuppressForwardingFallback: ({ target }) => text2(record3(target)?.channel).toLowerCase() === CHANNEL_ID
  },
  native: {
    describeDeliveryCapabilities: ({ cfg, accountId, approvalKind, request: request3 }) => {
      const origin2 = originConversation(request3, accountId) !== null;
      const enabled = handles(cfg, accountId, request3, approvalKind);
      return {
        enabled,
        preferredSurface: origin2 ? "origin" : "approver-dm",
        supportsOriginSurface: enabled && origin2,
        supportsApproverDmSurface: enabled && !origin2,
        notifyOriginWhenDmOnly: false
      };
    },
    resolveOriginTarget: ({ accountId, request: request3 }) => {
      const conversation = originConversation(request3, accountId);
      return conversation ? { to: conversation } : null;
    },
    resolveApproverDmTargets: ({ cfg, accountId, request: request3, approvalKind }) => handles(cfg, accountId, request3, approvalKind) && originConversation(request3, accountId) === null ? [{ to: `session:${text2(requestFields(request3).sessionKey) || "(no session)"}` }] : []
  },
  // The typed spec erased to core's contract (as the bundled channels do): core hands each hook what the one before
  // it returned.
  nativeRuntime
};

// src/inbound.ts
import { resolveInboundRouteEnvelopeBuilderWithRuntime } from "openclaw/plugin-sdk/inbound-envelope";
import { createMessageReceiptFromOutboundResults } from "openclaw/plugin-sdk/channel-outbound";
function payloadText(payload) {
  if (typeof payload !== "object" || payload === null) return "";
  const p = payload;
  let out = typeof p.text === "string" ? p.text : "";
  const media = [p.mediaUrl, ...Array.isArray(p.mediaUrls) ? p.mediaUrls : []].filter((u) => typeof u === "string" && u.trim().length > 0);
  if (media.length) out += `${out ? "\n\n" : ""}${[...new Set(media)].map((u) => `(media: ${u})`).join("\n")}`;
  return out;
}
var openReplies = /* @__PURE__ */ new Map();
var REPLY_SETTLE_WAIT_MS = 1e4;
function openReply(conversationId) {
  let close = () => {
  };
  const settled = new Promise((resolve2) => {
    close = resolve2;
  });
  const open = openReplies.get(conversationId) ?? /* @__PURE__ */ new Set();
  open.add(settled);
  openReplies.set(conversationId, open);
  return () => {
    close();
    open.delete(settled);
    if (open.size === 0 && openReplies.get(conversationId) === open) openReplies.delete(conversationId);
  };
}
async function repliesSettled(conversationId, timeoutMs = REPLY_SETTLE_WAIT_MS) {
  const open = openReplies.get(conversationId);
  if (!open?.size) return;
  let timer;
  await Promise.race([
    Promise.all([...open]),
    new Promise((resolve2) => {
      timer = setTimeout(resolve2, timeoutMs);
    })
  ]);
  clearTimeout(timer);
}
var CONTENTION_TRIES = 10;
function isContention(error) {
  const name = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /Contention|another OpenClaw process owns/i.test(name);
}
function clipError(error) {
  const said = error instanceof Error ? error.message : String(error);
  return said.length > 200 ? `${said.slice(0, 200)}\u2026` : said;
}
async function dispatchPersonMessage(params) {
  const { runtime, cfg, accountId, link, message } = params;
  const target = message.conversationId;
  await repliesSettled(target);
  let replies = 0;
  const handing = [];
  const settleOne = () => handing.shift()?.();
  const dispatch = async () => {
    const { route, buildEnvelope } = resolveInboundRouteEnvelopeBuilderWithRuntime({
      cfg,
      channel: CHANNEL_ID,
      accountId,
      peer: { kind: "group", id: target },
      runtime: runtime.channel,
      sessionStore: cfg.session?.store
    });
    const { storePath, body } = buildEnvelope({
      channel: CHANNEL_LABEL,
      from: message.authorName,
      timestamp: message.occurredAtMs,
      body: message.text
    });
    const ctxPayload = runtime.channel.reply.finalizeInboundContext({
      Body: body,
      BodyForAgent: message.text,
      RawBody: message.text,
      CommandBody: message.text,
      From: target,
      To: target,
      SessionKey: route.sessionKey,
      AccountId: route.accountId ?? accountId,
      ChatType: "group",
      WasMentioned: true,
      ConversationLabel: `LineUp ${target}`,
      GroupSubject: `LineUp ${target}`,
      NativeChannelId: target,
      SenderName: message.authorName,
      SenderId: message.authorId,
      Provider: CHANNEL_ID,
      Surface: CHANNEL_ID,
      MessageSid: message.messageId,
      MessageSidFull: message.messageId,
      Timestamp: message.occurredAtMs,
      OriginatingChannel: CHANNEL_ID,
      OriginatingTo: target,
      // The hub lets only the workspace's people write here: they may use OpenClaw's commands (/new, /approve, …).
      CommandAuthorized: true
    });
    await runtime.channel.inbound.dispatchReply({
      cfg,
      channel: CHANNEL_ID,
      accountId,
      agentId: route.agentId,
      routeSessionKey: route.sessionKey,
      storePath,
      ctxPayload,
      recordInboundSession: runtime.channel.session.recordInboundSession,
      dispatchReplyWithBufferedBlockDispatcher: runtime.channel.reply.dispatchReplyWithBufferedBlockDispatcher,
      delivery: {
        deliver: async (payload) => {
          const content = payloadText(payload);
          if (!content.trim()) return { visibleReplySent: false };
          const id = replyMessageId(link.agentId, message.messageId, replies);
          replies += 1;
          handing.push(openReply(target));
          await link.say(target, content, id);
          return {
            messageIds: [id],
            visibleReplySent: true,
            content,
            receipt: createMessageReceiptFromOutboundResults({
              results: [{ channel: CHANNEL_ID, messageId: id }],
              kind: "text"
            })
          };
        },
        onDelivered: settleOne,
        onError: (error) => {
          settleOne();
          link.log.warn(`OpenClaw's reply to LineUp message ${message.messageId} failed: ${String(error)}`);
        }
      },
      replyPipeline: {},
      record: {
        onRecordError: (error) => {
          link.log.warn(`OpenClaw could not record LineUp conversation ${target}: ${String(error)}`);
        }
      }
    });
  };
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await dispatch();
        return;
      } catch (error) {
        if (replies === 0 && isContention(error) && attempt < CONTENTION_TRIES) {
          await new Promise((resolve2) => setTimeout(resolve2, Math.min(4e3, 500 * 2 ** (attempt - 1))));
          continue;
        }
        link.log.warn(`OpenClaw could not take LineUp message ${message.messageId}: ${String(error)}`);
        if (replies === 0) {
          await link.say(
            target,
            `OpenClaw could not take this message (${clipError(error)}). Send it again.`,
            noteMessageId(link.agentId, "not-taken", message.messageId)
          );
        }
        return;
      }
    }
  } finally {
    for (const close of handing.splice(0)) close();
  }
}

// src/link.ts
import { mkdirSync as mkdirSync2 } from "node:fs";
import { basename as basename4, dirname as dirname4, join as join7 } from "node:path";
var MAX_MESSAGE_CHARS = 32e3;
var MAX_HUB_MESSAGE_CHARS = 6e4;
function record4(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
}
function text3(value) {
  return typeof value === "string" ? value : "";
}
function stateDir(credentialFile) {
  const name = basename4(credentialFile).replace(/\.json$/, "");
  return join7(dirname4(credentialFile), `${name}.state`);
}
var HubLink = class _HubLink {
  credential;
  client;
  state;
  log;
  #handlers = null;
  constructor(credential, client, state2, log) {
    this.credential = credential;
    this.client = client;
    this.state = state2;
    this.log = log;
  }
  /** Load the credential `lineup connect openclaw` wrote and make the agent (not connected yet). */
  static open(credentialFile, options2) {
    const credential = loadCredential(credentialFile);
    if (options2.hub && normaliseUrl(options2.hub) !== normaliseUrl(credential.hubUrl)) {
      throw new Error(`channels.lineup.hub is ${options2.hub} but ${credentialFile} was paired with ${credential.hubUrl}: run \`lineup connect openclaw\` again`);
    }
    const dir = stateDir(credentialFile);
    mkdirSync2(dir, { recursive: true, mode: 448 });
    const client = new AgentClient(credential, {
      statePath: join7(dir, "cursor.json"),
      runtime: "openclaw",
      agentVersion: options2.version,
      capabilities: ["messages", "approval"],
      logger: options2.log,
      credentialPath: credentialFile,
      pairCommand: "lineup connect openclaw --hub URL --code CODE"
    });
    const state2 = new ChannelState(join7(dir, "openclaw-channel.json"), credential.agentId);
    return new _HubLink(credential, client, state2, options2.log);
  }
  get agentId() {
    return this.credential.agentId;
  }
  /** Start taking the person's messages and answers; resolves once connected and caught up. */
  async start(handlers, timeoutMs = 3e4) {
    this.#handlers = handlers;
    this.client.on("message.delivered", (frame) => this.#delivered(frame));
    this.client.on("interaction.resolved", (frame) => this.#resolved(frame));
    this.client.onTask(async (task) => {
      await task.fail("not_a_task", "OpenClaw, connected as a LineUp channel, takes messages, not tasks: send your request again as a plain message (without \u201CTrack as task\u201D).");
    });
    await this.client.start(timeoutMs);
  }
  async close() {
    await this.client.close();
    this.state.save();
  }
  // ---- from the hub ---------------------------------------------------------------------------------------------
  async #delivered(frame) {
    const payload = record4(frame.payload);
    const author = record4(payload?.author);
    const conversationId = frame.conversationId;
    if (!payload || !author || author.kind !== "user" || typeof conversationId !== "string" || !conversationId) return;
    let body = text3(payload.content);
    const files = (Array.isArray(payload.attachments) ? payload.attachments : []).map((a) => record4(a)).filter((a) => a !== null).map((a) => text3(a.name) || text3(a.fileId) || "a file");
    if (files.length) body += `${body ? "\n\n" : ""}(Attached in LineUp, not passed on to OpenClaw: ${files.join(", ")})`;
    if (!body.trim()) return;
    const messageId = text3(payload.messageId) || frame.id;
    const occurred = Date.parse(frame.occurredAt);
    const session = this.state.sessions.get(conversationId);
    if (session) {
      await this.say(conversationId, `This conversation shows the approvals of OpenClaw's session \`${session.sessionKey}\`, which started outside LineUp; OpenClaw does not take messages for it here. To talk to OpenClaw, start a new conversation with it.`, noteMessageId(this.agentId, "not-here", messageId));
      return;
    }
    await this.#handlers?.message({
      conversationId,
      messageId,
      text: clip2(body, MAX_MESSAGE_CHARS),
      authorId: text3(author.id),
      authorName: text3(author.name) || text3(author.id) || "you",
      occurredAtMs: Number.isFinite(occurred) ? occurred : Date.now()
    });
  }
  async #resolved(frame) {
    const p = frame.payload;
    const card = this.state.cards.get(p.interactionId);
    if (!card) return;
    if (card.state !== "pending") return;
    const response = record4(p.response) ?? {};
    if (p.outcome !== "answered" && p.outcome !== "declined") {
      card.state = "ended";
      this.state.save();
      return;
    }
    const chosen = text3(response.optionId);
    let decision = "deny";
    if (p.outcome === "answered" && DECISIONS.includes(chosen) && card.decisions.includes(chosen)) {
      decision = chosen;
    }
    card.state = "answering";
    this.state.save();
    await this.#handlers?.answer({
      cardId: p.interactionId,
      card,
      decision,
      comment: clip2(text3(response.comment), 2e3),
      responderId: text3(record4(p.respondedBy)?.id) || "lineup"
    });
  }
  // ---- to the hub -----------------------------------------------------------------------------------------------
  /** A message in a conversation, stored once under `messageId` (sent again with it, it is not said twice). */
  async say(conversationId, content, messageId) {
    if (!content.trim()) return;
    try {
      await this.client.sendTyped(
        "message.create",
        { content: clip2(content, MAX_HUB_MESSAGE_CHARS), messageId },
        { conversationId, id: `create-${messageId}` }
      );
    } catch (error) {
      if (!(error instanceof HubError && error.code === "conflict")) throw error;
    }
  }
  /** The conversation of an OpenClaw session that did not start in LineUp, made once (its id is the session's). */
  async sessionConversation(conversationId, sessionKey, title) {
    if (!this.state.sessions.has(conversationId)) {
      await this.client.sendTyped(
        "conversation.create",
        { title: clip2(title, 200) },
        { conversationId, id: `create-${conversationId}` }
      ).catch((error) => {
        if (!(error instanceof HubError && error.code === "conflict")) throw error;
      });
      this.state.sessions.set(conversationId, { sessionKey, title });
      this.state.save();
    }
  }
  /** Ask on a card (its id derived from the approval's: asked again after a restart, it is the same card). */
  async ask(cardIdValue, card, interaction) {
    const known = this.state.cards.get(cardIdValue);
    if (known && known.state !== "pending") return;
    this.state.cards.set(cardIdValue, { ...card, state: "pending" });
    this.state.save();
    try {
      await this.client.sendTyped(
        "interaction.requested",
        { interaction: { ...interaction, id: cardIdValue } },
        { conversationId: card.conversationId, id: `ask-${cardIdValue}` }
      );
    } catch (error) {
      if (!(error instanceof HubError && error.code === "conflict")) throw error;
    }
  }
  /** End a card that nobody needs to answer any more, saying why (false: it had ended). */
  async withdraw(cardIdValue, reason) {
    const card = this.state.cards.get(cardIdValue);
    if (card) {
      card.state = "ended";
      this.state.save();
    }
    return await this.client.withdraw(cardIdValue, clip2(reason, 500));
  }
  markAnswered(cardIdValue) {
    const card = this.state.cards.get(cardIdValue);
    if (card) {
      card.state = "answered";
      this.state.save();
    }
  }
};
function normaliseUrl(url) {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`.toLowerCase();
  } catch {
    return url.trim().replace(/\/+$/, "").toLowerCase();
  }
}

// src/version.ts
var VERSION = "0.1.0";

// src/channel.ts
var HUB_ID2 = /^[A-Za-z0-9_.:-]{1,128}$/;
var STOP_SIGNALS = ["SIGTERM", "SIGINT"];
function normalizeTarget(raw) {
  const id = raw.trim().replace(/^lineup:/i, "").replace(/^(conversation|group):/i, "");
  return HUB_ID2.test(id) ? id : void 0;
}
function logger(sink) {
  const at = (name) => (message, ...rest) => {
    const line = `[lineup] ${message}${rest.length ? ` ${rest.map(String).join(" ")}` : ""}`;
    const write = sink?.[name] ?? (name === "debug" ? void 0 : sink?.info);
    if (write) write(line);
    else if (name !== "debug") console.error(line);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
function abortPromise(signal) {
  return signal.aborted ? Promise.resolve() : new Promise((resolve2) => signal.addEventListener("abort", () => resolve2(), { once: true }));
}
async function sendText(params) {
  const conversationId = normalizeTarget(params.to);
  if (!conversationId) throw new Error(`not a LineUp conversation: ${JSON.stringify(params.to.slice(0, 80))}`);
  const link = links.get(params.accountId?.trim() || DEFAULT_ACCOUNT);
  if (!link) throw new Error("the LineUp channel is not connected to its hub (see `openclaw channels status`)");
  const messageId = params.deliveryQueueId ? outboundMessageId(link.agentId, params.deliveryQueueId, params.deliveryPartIndex ?? 0) : `msg_oc_${randomUUID4().replace(/-/g, "")}`;
  await link.say(conversationId, params.text, messageId);
  return { messageId };
}
async function onGatewayStopping() {
  await Promise.all([...links].map(async ([accountId, link]) => {
    const cfg = configs.get(accountId);
    if (cfg) await endCardsAsTheGatewayStops({ link, cfg, accountId });
  }));
}
var lineupPlugin = createChatChannelPlugin({
  base: {
    id: CHANNEL_ID,
    meta: {
      id: CHANNEL_ID,
      label: CHANNEL_LABEL,
      selectionLabel: CHANNEL_LABEL,
      docsPath: "/channels/lineup",
      blurb: "Your LineUp hub: OpenClaw's conversations and exec approvals on your phone."
    },
    capabilities: { chatTypes: ["group"] },
    reload: { configPrefixes: ["channels.lineup"] },
    config: {
      listAccountIds: () => [DEFAULT_ACCOUNT],
      defaultAccountId: () => DEFAULT_ACCOUNT,
      resolveAccount: (cfg, accountId) => resolveAccount(cfg, accountId),
      inspectAccount: (cfg) => {
        const account = resolveAccount(cfg);
        return {
          enabled: account.enabled,
          configured: account.configured,
          tokenStatus: account.configured ? "available" : "missing"
        };
      },
      isConfigured: (account) => account.configured,
      isEnabled: (account) => account.enabled,
      describeAccount: (account) => ({
        accountId: account.accountId,
        name: CHANNEL_LABEL,
        enabled: account.enabled,
        configured: account.configured,
        baseUrl: account.hub ?? void 0
      })
    },
    setup: {
      applyAccountConfig: ({ cfg, input }) => ({
        ...cfg,
        channels: { ...cfg.channels, [CHANNEL_ID]: { ...section(cfg), ...input } }
      })
    },
    messaging: {
      normalizeTarget,
      targetResolver: { looksLikeId: (raw) => normalizeTarget(raw) !== void 0, hint: "<conversation id>" }
    },
    gateway: {
      startAccount: async (ctx) => {
        const account = ctx.account;
        const log = logger(ctx.log);
        if (!account.configured || !account.credentialFile) throw new Error(account.problem ?? "not configured");
        const accountId = account.accountId;
        let link;
        try {
          link = HubLink.open(account.credentialFile, { hub: account.hub, log, version: VERSION });
        } catch (error) {
          throw new Error(`LineUp: ${error instanceof Error ? error.message : String(error)}`);
        }
        ctx.setStatus({ accountId, running: true, connected: false, baseUrl: link.credential.hubUrl });
        const started = link.start({
          message: (message) => dispatchPersonMessage({
            runtime: runtimeStore.getRuntime(),
            cfg: ctx.cfg,
            accountId,
            link,
            message
          }),
          answer: (answer) => answerApproval({ link, cfg: ctx.cfg, accountId, answer })
        });
        try {
          await started;
          await withdrawStaleCards(link);
        } catch (error) {
          if (error instanceof AuthError || error instanceof ReplacedError || error instanceof PinMismatch) {
            await link.close();
            throw new Error(`LineUp: ${error.message}`);
          }
          log.warn(`the hub ${link.credential.hubUrl} is not reachable yet; connecting in the background`);
        }
        links.set(accountId, link);
        configs.set(accountId, ctx.cfg);
        const stopping = AsyncResource.bind(() => {
          endCardsAsTheGatewayStops({ link, cfg: ctx.cfg, accountId }).catch((error) => log.warn(`ending the waiting cards failed: ${String(error)}`));
        });
        for (const signal of STOP_SIGNALS) process.on(signal, stopping);
        const lease = registerChannelRuntimeContext({
          channelRuntime: ctx.channelRuntime,
          channelId: CHANNEL_ID,
          accountId,
          capability: CHANNEL_APPROVAL_NATIVE_RUNTIME_CONTEXT_CAPABILITY,
          context: { link },
          abortSignal: ctx.abortSignal
        });
        ctx.setStatus({ accountId, running: true, connected: link.client.connected, lastError: null });
        try {
          await Promise.race([abortPromise(ctx.abortSignal), link.client.done]);
        } finally {
          for (const signal of STOP_SIGNALS) process.off(signal, stopping);
          lease?.dispose();
          if (links.get(accountId) === link) {
            links.delete(accountId);
            configs.delete(accountId);
          }
          await link.close();
          ctx.setStatus({ accountId, running: false, connected: false });
        }
      }
    },
    approvalCapability: lineupApprovalCapability
  },
  outbound: {
    base: {
      deliveryMode: "direct",
      shouldSuppressLocalPayloadPrompt: ({ hint }) => hint?.kind === "approval-pending" && hint.nativeRouteActive === true,
      sendPayload: async (ctx) => {
        const result = await sendText({ ...ctx, text: payloadText(ctx.payload) || ctx.text });
        return { channel: CHANNEL_ID, messageId: result.messageId };
      }
    },
    attachedResults: {
      channel: CHANNEL_ID,
      sendText: async (ctx) => await sendText(ctx)
    }
  }
});

export {
  runtimeStore,
  onGatewayStopping,
  lineupPlugin
};
