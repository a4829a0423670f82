// Pairing an agent with a code and keeping its credential in a file only the owner can read (hub/sdk/credentials.py).
// The file has the Python SDK's format, so either SDK can use a credential the other stored.

import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { inspect } from "node:util";

import { HubError, SdkError } from "./errors.js";
import { writePrivateFile } from "./files-private.js";
import { allowedByEnvironment, isLoopbackHost, refuseCleartext } from "./cleartext.js";
import { postJson } from "./http.js";
import { consoleLogger, type Logger } from "./log.js";
import { normaliseFingerprint } from "./tlspin.js";

/** Why the agent a credential file held was not taken over by pairing again (the hub's `notReplaced`, plus the SDK's
 * own `other_address`). */
export const NOT_REPLACED: Readonly<Record<string, string>> = {
  unknown: "the hub does not know the stored credential (another hub, or its data was reset)",
  revoked: "the stored credential's agent was revoked",
  replaced: "the stored credential had already been replaced by a newer pairing",
  other_workspace: "the stored credential belongs to another workspace",
  other_address: "the stored credential is for another hub address, so it was not sent there",
};

/** What a fresh pairing code did to the agent this credential file held before: `kept` true, the same agent paired
 * again (its id, conversations, tasks and questions kept); false, a new agent, and `reason` says why. */
export interface Replacement {
  previousAgentId: string | null;
  kept: boolean;
  reason: string | null;
  explanation: string;
}

function replacement(previousAgentId: string | null, kept: boolean, reason: string | null = null): Replacement {
  return { previousAgentId, kept, reason, explanation: reason ? NOT_REPLACED[reason] ?? reason : "" };
}

export interface CredentialFields {
  hubUrl: string;
  agentId: string;
  workspaceId: string;
  /** The secret. */
  credential: string;
  tlsFingerprint?: string | null;
  codeSha256?: string | null;
  replaced?: Replacement | null;
  /** Paired over plain http beyond this machine by the person's explicit choice (./cleartext.ts): an agent started
   * from this credential later keeps that choice. */
  insecure?: boolean;
}

/** An agent's credential. The secret is kept out of `console.log`, `util.inspect` and `JSON.stringify`. */
export class Credential {
  readonly hubUrl: string;
  readonly agentId: string;
  readonly workspaceId: string;
  /** The pinned SHA-256 of a self-signed hub certificate (https hubs), `AB:CD:…`. */
  readonly tlsFingerprint: string | null;
  /** The pairing code it came from, hashed: the same code again loads it instead of pairing. */
  readonly codeSha256: string | null;
  /** What pairing did to the agent it replaces (never stored in the file). */
  readonly replaced: Replacement | null;
  /** Paired over plain http beyond this machine by explicit choice (./cleartext.ts). */
  readonly insecure: boolean;
  readonly #secret: string;

  constructor(fields: CredentialFields) {
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
  get credential(): string {
    return this.#secret;
  }

  /** The agent socket's address. */
  get wsUrl(): string {
    const url = new URL(this.hubUrl);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.pathname = url.pathname.replace(/\/+$/, "") + "/ws/agent";
    url.search = "";
    url.hash = "";
    return url.toString();
  }

  with(fields: Partial<CredentialFields>): Credential {
    return new Credential({ ...this.fields(), ...fields });
  }

  fields(): CredentialFields {
    return { hubUrl: this.hubUrl, agentId: this.agentId, workspaceId: this.workspaceId, credential: this.#secret,
      tlsFingerprint: this.tlsFingerprint, codeSha256: this.codeSha256, replaced: this.replaced,
      insecure: this.insecure };
  }

  toJSON(): Record<string, unknown> {
    return { hubUrl: this.hubUrl, agentId: this.agentId, workspaceId: this.workspaceId };
  }

  toString(): string {
    return `Credential(${this.hubUrl}, agent ${this.agentId})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }
}

/** The stored form: the Python SDK's file (snake_case), so a credential works with either SDK. */
function storedForm(credential: Credential): string {
  return JSON.stringify({
    hub_url: credential.hubUrl, agent_id: credential.agentId, workspace_id: credential.workspaceId,
    credential: credential.credential, tls_fingerprint: credential.tlsFingerprint, code_sha256: credential.codeSha256,
    ...(credential.insecure ? { insecure: true } : {}),
  });
}

/** Write the credential readable by the owner only (0600), atomically. */
export function saveCredential(credential: Credential, path: string): void {
  writePrivateFile(path, storedForm(credential));
}

export function loadCredential(path: string): Credential {
  let data: Record<string, unknown>;
  try {
    data = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  } catch (error) {
    throw new SdkError(`Cannot read the credential file ${path}: ${(error as Error).message}`);
  }
  const text = (key: string): string => {
    const value = data[key];
    if (typeof value !== "string" || !value) throw new SdkError(`The credential file ${path} has no ${key}.`);
    return value;
  };
  const optional = (key: string): string | null => (typeof data[key] === "string" ? data[key] as string : null);
  return new Credential({ hubUrl: text("hub_url"), agentId: text("agent_id"), workspaceId: text("workspace_id"),
    credential: text("credential"), tlsFingerprint: optional("tls_fingerprint"), codeSha256: optional("code_sha256"),
    insecure: data.insecure === true });
}

export function codeHash(code: string): string {
  return createHash("sha256").update(code.trim().toUpperCase()).digest("hex");
}

export interface PairOptions {
  /** The agent's name (the app shows it unless the person named the code). */
  name?: string;
  runtime?: string;
  agentVersion?: string;
  timeoutMs?: number;
  /** The fingerprint of a hub with a self-signed certificate (`--fingerprint`, as the hub prints it). */
  tlsFingerprint?: string | null;
  /** The credential this agent held until now: the hub keeps the agent and rotates its credential. */
  replaces?: Credential | null;
  /** Send the code (and the credential after it) to a plain http:// hub beyond this machine: only on a network you
   * trust (./cleartext.ts). Default: LINEUP_ALLOW_INSECURE_HUB=1, else refused with InsecureHub. */
  allowInsecure?: boolean;
}

/** Redeem a one-time pairing code (from the app or `lineup pair`) for this agent's credential. The code and the
 * credential it replaces travel in the request body, never in the URL, and never in clear beyond this machine unless
 * `allowInsecure`. */
export async function pair(hubUrl: string, code: string, options: PairOptions = {}): Promise<Credential> {
  const base = hubUrl.replace(/\/+$/, "");
  refuseCleartext(base, options.allowInsecure ?? allowedByEnvironment(), "the pairing code");
  const pin = options.tlsFingerprint ? normaliseFingerprint(options.tlsFingerprint) : null;
  const body: Record<string, string> = { code, name: options.name ?? "agent", runtime: options.runtime ?? "typescript-sdk",
    agentVersion: options.agentVersion ?? "" };
  if (options.replaces) body.replaces = options.replaces.credential;
  const answer = await postJson(`${base}/api/pair`, body, pin, options.timeoutMs ?? 10_000);
  const { agentId, workspaceId, credential } = answer;
  if (typeof agentId !== "string" || typeof workspaceId !== "string" || typeof credential !== "string") {
    throw new HubError("internal", "The hub's answer to the pairing has no agentId, workspaceId or credential.");
  }
  let replaced: Replacement | null = null;
  if (typeof answer.replaced === "string") {
    replaced = replacement(answer.replaced, true);
  } else if (options.replaces || typeof answer.notReplaced === "string") {
    replaced = replacement(options.replaces?.agentId ?? null, false,
      typeof answer.notReplaced === "string" ? answer.notReplaced : null);
  }
  const url = new URL(base);
  const insecure = url.protocol !== "https:" && !isLoopbackHost(url.hostname);
  return new Credential({ hubUrl: base, agentId, workspaceId, credential, tlsFingerprint: pin, codeSha256: codeHash(code),
    replaced, insecure });
}

function machine(host: string): string {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || name.startsWith("127.") ? "loopback" : name;
}

function port(url: URL): string {
  return url.port || (url.protocol === "https:" ? "443" : "80");
}

/** Whether the stored credential may go to `hubUrl` as proof that this is the same agent pairing again: only where
 * it already goes at every connection (hub/sdk/credentials.py `_may_send`). */
export function maySend(stored: Credential, hubUrl: string, pin: string | null | undefined): boolean {
  let old: URL, next: URL;
  try {
    old = new URL(stored.hubUrl);
    next = new URL(hubUrl);
  } catch {
    return false;
  }
  if (machine(old.hostname) !== machine(next.hostname)) return false;
  if (stored.tlsFingerprint) {
    let samePin = false;
    try {
      samePin = !!pin && normaliseFingerprint(pin) === stored.tlsFingerprint;
    } catch {
      samePin = false;
    }
    if (next.protocol !== "https:" || !samePin) return false;
  }
  if (old.protocol === next.protocol) return port(old) === port(next);
  return old.protocol === "http:" && next.protocol === "https:";
}

export interface PairOrLoadOptions extends Omit<PairOptions, "replaces"> {
  logger?: Logger;
}

/** The credential to connect with: a fresh `code` pairs, otherwise the one stored at `path` is loaded.
 *
 * A code this credential was not paired with is used: the new credential replaces the file and the old one is kept
 * beside it (`<file>.bak`), so a stale credential never beats a fresh code. The stored credential goes along as proof
 * that this is the same agent (only to the address it was stored for): the hub then keeps the agent and rotates its
 * credential (`Credential.replaced`). The code the stored credential came from loads the stored one.
 *
 * No `hubUrl`, `code` or `tlsFingerprint` given: LINEUP_HUB, LINEUP_CODE and LINEUP_TLS_FINGERPRINT stand in
 * (`lineup keep --hub … --code … -- node my-agent.js`, the connect dialog's one line, sets them). */
export async function pairOrLoad(hubUrl: string | null | undefined, code: string | null | undefined, path: string,
  options: PairOrLoadOptions = {}): Promise<Credential> {
  const log = options.logger ?? consoleLogger();
  hubUrl = hubUrl || process.env.LINEUP_HUB || null;
  code = code || process.env.LINEUP_CODE || null;
  if (!options.tlsFingerprint && process.env.LINEUP_TLS_FINGERPRINT) {
    options = { ...options, tlsFingerprint: process.env.LINEUP_TLS_FINGERPRINT };
  }
  const stored = existsSync(path) ? loadCredential(path) : null;
  if (code && stored && stored.codeSha256 === codeHash(code)) return stored;
  if (!code) {
    if (stored) return stored;
    throw new SdkError(`No credential at ${path}: give a pairing code (from the app's "Connect my agent", or \`lineup ` +
      "pair` on the hub's machine).");
  }
  let target = hubUrl ?? stored?.hubUrl;
  if (!target) throw new SdkError("Give the hub's address (e.g. http://192.168.1.20:9527) to pair with.");
  target = target.replace(/\/+$/, "");
  let pairOptions: PairOptions = { ...options };
  if (stored?.tlsFingerprint && !pairOptions.tlsFingerprint && stored.hubUrl === target) {
    // The same TLS hub as before: its certificate was pinned when first paired.
    pairOptions = { ...pairOptions, tlsFingerprint: stored.tlsFingerprint };
  }
  const replaces = stored && maySend(stored, target, pairOptions.tlsFingerprint) ? stored : null;
  let credential = await pair(target, code, { ...pairOptions, replaces });
  if (stored && !replaces) credential = credential.with({ replaced: replacement(stored.agentId, false, "other_address") });
  if (stored) {
    const backup = `${path}.bak`;
    // Copied, not moved: the file is replaced atomically below, so it never goes missing in between.
    writePrivateFile(backup, storedForm(stored));
    if (credential.replaced?.kept) {
      log.info(`paired again as the same agent ${credential.agentId}: it keeps its conversations and tasks; the ` +
        `previous credential no longer works (kept in ${backup})`);
    } else {
      log.info(`paired as a new agent: the previous agent ${stored.agentId} was not taken over ` +
        `(${credential.replaced?.explanation ?? ""}); it stays in the app until you revoke it, and its credential is ` +
        `kept in ${backup}`);
    }
  }
  saveCredential(credential, path);
  log.info(`paired with ${credential.hubUrl} as agent ${credential.agentId}; credential saved in ${path}`);
  return credential;
}
