// AgentClient: one agent's connection to the hub — hello, heartbeat, resume, outbox, handlers, reconnects
// (hub/sdk/client.py; docs/protocol.md for the wire, docs/sdk.md for the guarantees).

import { randomUUID } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

import { allowedByEnvironment, refuseCleartext } from "./cleartext.js";
import { type Credential } from "./credentials.js";
import {
  AuthError, ClientStopped, HubError, PinMismatch, ReplacedError, SdkError, ToolCallError,
} from "./errors.js";
import { downloadFile, uploadFile, type DownloadOptions } from "./files.js";
import { consoleLogger, type Logger } from "./log.js";
import { Outbox } from "./outbox.js";
import {
  PROTOCOL_VERSION, type Ack, type AgentHello, type AgentToHub, type Envelope, type HubToAgent, type HubToClient,
  type InteractionSpec, type JsonObject, type Responder, type Welcome,
} from "./protocol.js";
import {
  Outcome, TaskHandle, TERMINAL_TASK_STATUSES, type OpenTask, type OutcomeKind, type SendFields, type StoredFile,
  type TaskClient, type UploadOptions,
} from "./tasks.js";
import { BINARY, openSocket, type Frame, type Socket } from "./transport.js";
import { frameProblem } from "./validate.js";

export const CLOSE_REVOKED = 4401;
export const CLOSE_REPLACED = 4409;

/** Every frame the hub may send an agent, with its payload's type. */
type Incoming = HubToAgent & HubToClient;
export type HubFrame<T extends keyof Incoming = keyof Incoming> = T extends keyof Incoming
  ? Omit<Envelope, "type" | "payload"> & { type: T; payload: Incoming[T] } : never;

export type TaskHandler = (task: TaskHandle) => Promise<void> | void;
export type EventHandler<T extends keyof Incoming = keyof Incoming> = (frame: HubFrame<T>) => Promise<void> | void;
/** Answers a call of this agent's tool: `(action, arguments) => result`; throw ToolCallError(code, message) to answer
 * with an error (any other error answers `tool_failed`). */
export type ToolHandler = (action: string | null, args: JsonObject) => Promise<JsonObject> | JsonObject;

// What a retried refusal means, for the agent's log and the task's summary while it lasts.
const WAITING_FOR: Readonly<Record<string, string>> = {
  storage_full: "the hub is out of disk space",
  rate_limited: "the hub asked this agent to send more slowly",
  internal: "the hub failed to store the agent's update",
};
const ERROR_MESSAGE_MAX = 4000; // error.message of a failed task (hub/protocol/payloads.py)
const SUMMARY_MAX = 2000; // a task's summary

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/** What went wrong, for the person: the error's type and message (never its stack, which the agent's log keeps).
 * A refusal also names what the hub refused. */
export function describeError(error: unknown): string {
  let type: string;
  let message: string;
  if (error instanceof Error) {
    const constructorName = error.constructor?.name;
    type = constructorName && constructorName !== "Error" ? constructorName : error.name || "Error";
    message = error.message;
  } else {
    type = error === null ? "null" : typeof error === "object" ? (error.constructor?.name ?? "Object")
      : `${(typeof error).charAt(0).toUpperCase()}${(typeof error).slice(1)}`;
    message = typeof error === "object" ? JSON.stringify(error) ?? String(error) : String(error);
  }
  let text = message ? `${type}: ${message}` : type;
  if (error instanceof HubError && error.envelopeType) text += ` (the hub refused the agent's ${error.envelopeType})`;
  return clip(text, ERROR_MESSAGE_MAX);
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
  settled: boolean;
}

function deferred<T>(): Deferred<T> {
  const d = { settled: false } as Deferred<T>;
  d.promise = new Promise<T>((resolve, reject) => {
    d.resolve = (value) => { d.settled = true; resolve(value); };
    d.reject = (error) => { d.settled = true; reject(error); };
  });
  d.promise.catch(() => {});
  return d;
}

interface Retrying {
  since: number;
  code: string;
  taskId: string | null;
  note: boolean; // it is itself the task's "Waiting to retry" note
}

export interface AgentClientOptions {
  /** Keeps `epoch` and `lastSequence` so a restarted agent resumes where it left off. */
  statePath?: string;
  runtime?: string;
  agentVersion?: string;
  capabilities?: string[];
  maxOutbox?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** This agent's own tools (docs/design.md#tool-types), offered to apps through the hello. */
  tools?: JsonObject[];
  /** Names this copy of the agent: leave unset for an agent that takes tasks (one copy runs); give each process
   * its own for siblings that share an identity on purpose. */
  instance?: string;
  /** Only make errors say which file holds the credential and how to pair again. */
  credentialPath?: string;
  pairCommand?: string;
  logger?: Logger;
  /** Check every frame this client sends against the schema before sending (default: LINEUP_SDK_CHECK_FRAMES=1). */
  checkFrames?: boolean;
  /** Send the credential to a plain http:// hub beyond this machine: only on a network you trust (./cleartext.ts).
   * Default: the credential's own choice at pairing, else LINEUP_ALLOW_INSECURE_HUB=1, else refused (InsecureHub,
   * thrown by the constructor before anything is sent). */
  allowInsecure?: boolean;
}

/** Connects with a Credential and keeps connecting: jittered exponential backoff from 0.5 s to 20 s.
 *
 * Every envelope waits in the outbox until the hub acks it and is re-sent with the same id after a reconnect. The
 * cursor (`epoch`, `lastSequence`) is kept in `statePath`, so a restarted agent resumes where it left off and no
 * event is handled twice; the tasks to resume come from the hub (the welcome's `openTasks`). */
export class AgentClient implements TaskClient {
  readonly credential: Credential;
  readonly log: Logger;
  readonly instance: string | undefined;
  readonly runtime: string;
  readonly agentVersion: string;
  readonly capabilities: string[];
  readonly statePath: string | undefined;
  readonly outbox: Outbox;
  readonly tools: JsonObject[] | undefined;
  backoffInitialMs: number;
  backoffMaxMs: number;
  /** After this long of retries a task's summary says it waits; an `internal` refusal is given up after
   * `retryInternalMs` (a bug in the hub does not heal by itself) and thrown to the caller. */
  retryNoteAfterMs = 5_000;
  retryInternalMs = 30_000;
  heartbeatIntervalMs = 25_000;
  epoch: string | null = null;
  lastSequence = 0;
  /** How many times a session reached caught_up (tests and diagnostics). */
  connections = 0;
  readonly tasks = new Map<string, TaskHandle>();

  readonly #options: AgentClientOptions;
  readonly #checkFrames: boolean;
  readonly #handled = new Set<string>(); // tasks whose handler this process started (once each)
  readonly #ended = new Set<string>(); // tasks that reached a final status
  #snapshot = new Map<string, OpenTask>(); // the welcome's openTasks, by task id
  #snapshotHead = 0;
  #deferred = new Map<string, TaskHandle>(); // task.assigned seen while replaying, started at caught_up
  #deferredSequence = new Map<string, number>();
  #live = false;
  #taskHandler: TaskHandler | null = null;
  readonly #handlers = new Map<string, EventHandler[]>();
  readonly #waiters = new Map<string, Deferred<Outcome>>();
  readonly #outcomes = new Map<string, Outcome>();
  readonly #toolHandlers = new Map<string, ToolHandler>();
  readonly #toolWaiters = new Map<string, Deferred<JsonObject>>();
  readonly #retrying = new Map<string, Retrying>();
  readonly #retryNotes = new Map<string, { id: string; ack: Promise<Ack> }>();
  readonly #running = new Set<Promise<unknown>>();
  #socket: Socket | null = null;
  #caughtUp = deferred<void>();
  #closing = false;
  #stopping = false;
  #runner: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #lastHeard = 0;
  #badFrames = 0;
  readonly #allowInsecure: boolean;

  constructor(credential: Credential, options: AgentClientOptions = {}) {
    // Never the credential in clear beyond this machine, unless the person chose it (./cleartext.ts).
    this.#allowInsecure = options.allowInsecure ?? (credential.insecure || allowedByEnvironment());
    refuseCleartext(credential.hubUrl, this.#allowInsecure, "this agent's credential");
    this.credential = credential;
    this.#options = options;
    this.log = options.logger ?? consoleLogger();
    this.instance = options.instance;
    this.runtime = options.runtime ?? "typescript-sdk";
    this.agentVersion = options.agentVersion ?? "";
    this.capabilities = [...(options.capabilities ?? [])];
    this.statePath = options.statePath;
    this.tools = options.tools;
    this.backoffInitialMs = options.backoffInitialMs ?? 500;
    this.backoffMaxMs = options.backoffMaxMs ?? 20_000;
    this.outbox = new Outbox(options.maxOutbox ?? 10_000);
    this.#checkFrames = options.checkFrames ?? process.env.LINEUP_SDK_CHECK_FRAMES === "1";
    this.#loadState();
  }

  // ---- registering handlers ---------------------------------------------------------------------------------------

  /** `handler(task)` runs for every task assigned to this agent, once per process (again only after a restart with
   * the task unfinished, then with `task.resumed`). */
  onTask(handler: TaskHandler): this {
    this.#taskHandler = handler;
    return this;
  }

  /** `handler(frame)` runs for every event of that type addressed to the agent (e.g. `message.delivered`). */
  on<T extends keyof Incoming>(type: T, handler: EventHandler<T>): this {
    const list = this.#handlers.get(type) ?? [];
    list.push(handler as unknown as EventHandler);
    this.#handlers.set(type, list);
    return this;
  }

  /** Answer calls of this agent's tool `name`. */
  onTool(name: string, handler: ToolHandler): this {
    this.#toolHandlers.set(name, handler);
    return this;
  }

  // ---- tools and files --------------------------------------------------------------------------------------------

  /** Call a tool the hub or an app offers (docs/protocol.md#tools); returns `result`, throws ToolCallError. */
  async callTool(name: string, args: JsonObject = {}, options: { action?: string; taskId?: string;
    conversationId?: string } = {}): Promise<JsonObject> {
    const callId = `call_${randomUUID().replace(/-/g, "")}`;
    const waiter = deferred<JsonObject>();
    this.#toolWaiters.set(callId, waiter);
    const payload: AgentToHub["tool.call"] = { call_id: callId, name, arguments: args };
    if (options.action !== undefined) payload.action = options.action;
    try {
      await this.sendTyped("tool.call", payload, { taskId: options.taskId ?? null,
        conversationId: options.conversationId ?? null });
      return await waiter.promise;
    } finally {
      this.#toolWaiters.delete(callId);
    }
  }

  /** What the hub and the apps offer this agent (tool.list without tools). */
  async listTools(): Promise<JsonObject[]> {
    const requestId = randomUUID();
    const waiter = deferred<JsonObject>();
    this.#toolWaiters.set(requestId, waiter);
    try {
      await this.sendTyped("tool.list", {}, { id: requestId });
      const offer = await waiter.promise;
      return Array.isArray(offer.tools) ? offer.tools as JsonObject[] : [];
    } finally {
      this.#toolWaiters.delete(requestId);
    }
  }

  /** Store a file on the hub (a path or bytes): `{fileId, name, mimeType, size, sha256}` (`POST /api/files`). */
  async uploadFile(source: string | Uint8Array, options: UploadOptions = {}): Promise<StoredFile> {
    return await uploadFile(this.credential, source, options);
  }

  /** A file's bytes (a message's `attachments[i].fileId`), or with `to` the path written. */
  async downloadFile(fileId: string, options: DownloadOptions = {}): Promise<Buffer | string> {
    return await downloadFile(this.credential, fileId, options);
  }

  // ---- running ----------------------------------------------------------------------------------------------------

  /** Connect and stay connected until `close()`. Rejects with AuthError (refused or revoked), ReplacedError (another
   * copy took over, or the agent was paired again elsewhere) or PinMismatch: those are never retried. */
  async run(): Promise<void> {
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
      if (this.connections > before) attempt = 0; // that session got through: a new outage starts the backoff over
      if (this.#closing) break;
      const delay = Math.min(this.backoffMaxMs, this.backoffInitialMs * 2 ** attempt);
      attempt += 1;
      await this.#sleep(delay * (0.5 + Math.random() * 0.5));
    }
  }

  /** Run in the background and resolve once connected and caught up (rejects at once with AuthError & co). */
  async start(timeoutMs = 30_000): Promise<void> {
    const runner = this.run();
    this.#runner = runner;
    runner.catch(() => {}); // said in the log; `done` has it
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.#caughtUp.promise,
        runner.then(() => { throw new SdkError("The agent stopped before it connected."); }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new SdkError(`Could not connect to ${this.credential.hubUrl} within ${timeoutMs} ms.`)),
            timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The background run of `start()`: resolves after `close()`, rejects with what stopped it. */
  get done(): Promise<void> {
    return this.#runner ?? Promise.resolve();
  }

  async waitConnected(timeoutMs = 30_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([this.#caughtUp.promise, new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SdkError(`Not connected within ${timeoutMs} ms.`)), timeoutMs);
      })]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stop: the socket is closed (the hub shows the agent signed off), handlers waiting on the hub get ClientStopped,
   * unfinished tasks stay open for the next process. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#wake?.();
    this.#socket?.close(1000, "the agent stopped");
    if (this.#runner) await this.#runner.catch(() => {});
    this.#stop(new ClientStopped("The agent client was closed."));
    await Promise.allSettled([...this.#running]);
    this.#saveState();
  }

  get connected(): boolean {
    return this.#socket !== null && this.#caughtUp.settled;
  }

  // ---- sending ----------------------------------------------------------------------------------------------------

  #envelope(type: string, payload: object, fields: SendFields = {}): Envelope {
    const envelope: Envelope = { id: fields.id ?? randomUUID(), type, version: PROTOCOL_VERSION,
      occurredAt: new Date().toISOString(), workspaceId: this.credential.workspaceId, payload: payload as JsonObject };
    if (fields.taskId) envelope.taskId = fields.taskId;
    if (fields.conversationId) envelope.conversationId = fields.conversationId;
    if (fields.correlationId) envelope.correlationId = fields.correlationId;
    return envelope;
  }

  /** Send an envelope and wait for its ack (rejects with HubError if refused). Typed for the protocol's agent-to-hub
   * events (src/protocol.ts); any other type is sent as it is (the hub acks it with `warning: "unknown_type"`). */
  send<T extends keyof AgentToHub>(type: T, payload: AgentToHub[T], fields?: SendFields): Promise<Ack>;
  send(type: string, payload: JsonObject, fields?: SendFields): Promise<Ack>;
  send(type: string, payload: JsonObject, fields: SendFields = {}): Promise<Ack> {
    return this.#queue(type, payload, fields);
  }

  /** The typed send the SDK itself uses: a renamed or reshaped event in the hub's schema fails the build. */
  sendTyped<T extends keyof AgentToHub>(type: T, payload: AgentToHub[T], fields: SendFields = {}): Promise<Ack> {
    return this.#queue(type, payload, fields);
  }

  #queue(type: string, payload: object, fields: SendFields): Promise<Ack> {
    try {
      if (type.startsWith("system.")) {
        throw new TypeError(`${type} is the connection's own (the client sends its heartbeats itself); send() is for ` +
          "messages the hub acks");
      }
      if (this.#stopping) throw new ClientStopped("The agent client has stopped.");
      const envelope = this.#envelope(type, payload, fields);
      if (this.outbox.has(envelope.id)) return this.outbox.add(envelope); // on its way already: one answer for both
      this.#check("agentToHub", envelope);
      const ack = this.outbox.add(envelope);
      this.#transmit(envelope);
      return ack;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  #check(direction: "agentToHub" | "handshake", envelope: Envelope): void {
    if (!this.#checkFrames) return;
    const problem = frameProblem(direction, JSON.parse(JSON.stringify(envelope)));
    if (problem) throw new SdkError(`the SDK built a ${envelope.type} frame the protocol does not allow: ${problem}`);
  }

  #transmit(envelope: Envelope): void {
    this.#socket?.send(JSON.stringify(envelope)); // without a socket: sent again after the next hello
  }

  /** Request an interaction and wait for its outcome; asking again with the same id does not ask twice. */
  async ask(interaction: InteractionSpec, where: { taskId?: string | null; conversationId?: string | null } = {}):
    Promise<Outcome> {
    const id = interaction.id || `int_${randomUUID().replace(/-/g, "")}`;
    const known = this.#outcomes.get(id);
    if (known) return known.withOptions(interaction);
    let waiter = this.#waiters.get(id);
    if (!waiter || waiter.settled) {
      waiter = deferred<Outcome>();
      this.#waiters.set(id, waiter);
    }
    // The envelope id derives from the interaction id: a re-issued ask is a harmless re-send. `conflict`: the
    // question exists already, asked with other words (a re-run handler): wait for that one's outcome.
    try {
      await this.sendTyped("interaction.requested", { interaction: { ...interaction, id } },
        { id: `ask-${id}`, taskId: where.taskId ?? null, conversationId: where.conversationId ?? null });
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "conflict") throw error;
    }
    const answered = this.#outcomes.get(id); // answered while the ask was on its way (a resumed task)
    if (answered) return answered.withOptions(interaction);
    return (await waiter.promise).withOptions(interaction);
  }

  /** How a question ended, if this process has heard (undefined: pending, or not known here). */
  outcome(interactionId: string): Outcome | undefined {
    return this.#outcomes.get(interactionId);
  }

  /** Stop waiting for a question (answered elsewhere, given up): it ends as withdrawn everywhere, `reason` shown to
   * the person; the pending ask resolves with `outcome` "cancelled", `cause` "withdrawn". False when it had ended
   * (answered, or withdrawn already: the same withdraw again with another reason is the hub's `conflict`). */
  async withdraw(interactionId: string, reason = ""): Promise<boolean> {
    try {
      await this.sendTyped("interaction.withdraw", { interactionId, reason: reason.slice(0, 500) },
        { id: `withdraw-${interactionId}` });
    } catch (error) {
      if (error instanceof HubError && ["already_resolved", "not_found", "conflict"].includes(error.code)) return false;
      throw error;
    }
    return true;
  }

  // ---- one connection ---------------------------------------------------------------------------------------------

  async #session(): Promise<void> {
    const socket = await openSocket(this.credential.wsUrl, this.credential.tlsFingerprint, this.#allowInsecure);
    if (this.#closing) { // closed while connecting
      socket.close(1000, "the agent stopped");
      return;
    }
    try {
      const hello: AgentHello = { credential: this.credential.credential, runtime: this.runtime,
        agentVersion: this.agentVersion, capabilities: this.capabilities, lastSequence: this.lastSequence };
      if (this.tools !== undefined) hello.tools = this.tools;
      if (this.instance !== undefined) hello.instance = this.instance;
      if (this.epoch) hello.epoch = this.epoch;
      const helloEnvelope = this.#envelope("agent.hello", hello);
      this.#check("handshake", helloEnvelope);
      socket.send(JSON.stringify(helloEnvelope));
      const first = this.#parse(await socket.next(15_000));
      if (first === null) throw new HubError("invalid_envelope", "The hub's first frame is not a protocol frame.");
      if (first.type === "system.error") {
        const error = first.payload;
        if (error.code === "unauthorized") throw this.#refused(error.message);
        if (error.code === "forbidden") throw new AuthError("forbidden", error.message, error.hint);
        throw HubError.fromPayload(error);
      }
      if (first.type !== "system.welcome") throw new HubError("invalid_envelope", `Expected system.welcome, got ${first.type}.`);
      const welcome = first.payload;
      this.heartbeatIntervalMs = Math.min(3_600_000, Math.max(100, welcome.heartbeatIntervalMs));
      if (this.epoch === null) this.epoch = welcome.epoch;
      this.#takeSnapshot(welcome);
      this.#socket = socket;
      for (const envelope of this.outbox.pending()) socket.send(JSON.stringify(envelope)); // same ids: stored once
      this.#lastHeard = Date.now();
      const heartbeat = this.#heartbeat(socket);
      socket.listen((text) => {
        this.#lastHeard = Date.now();
        const frame = this.#parse(text);
        if (frame === null) return;
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
      if (this.#socket === socket) this.#socket = null;
      this.#live = false;
      if (this.#caughtUp.settled) this.#caughtUp = deferred<void>();
      this.#saveState();
    }
  }

  #afterClose(code: number, reason: string): void {
    if (code === CLOSE_REVOKED && reason.startsWith("credential replaced")) {
      // hub/gateway/session.py CREDENTIAL_REPLACED: the same agent paired again elsewhere; that copy is the agent now.
      throw new ReplacedError(`Agent ${this.credential.agentId} paired again with a fresh code, so this credential no ` +
        "longer works; the newly paired copy is the agent now (its conversations and tasks stay with it), and this " +
        "one stops. To run this copy instead, pair it again with a fresh code.");
    }
    if (code === CLOSE_REVOKED) throw this.#refused("The hub closed the connection: this agent's credential was revoked.");
    if (code === CLOSE_REPLACED) {
      throw new ReplacedError(`Another copy of agent ${this.credential.agentId} connected to ${this.credential.hubUrl} ` +
        "with the same credential and took over; this one stops so the two do not both take every task. Run one copy " +
        "per credential, or pair the second copy as an agent of its own with a fresh code.");
    }
    if (!this.#closing) this.log.info(`the hub closed the connection (${code}${reason ? `: ${reason}` : ""}); reconnecting`);
  }

  /** The credential is unknown or revoked: say which file holds it and what fixes it. */
  #refused(message: string): AuthError {
    const where = this.#options.credentialPath ? ` The credential is kept in ${this.#options.credentialPath}.` : "";
    const command = this.#options.pairCommand ?? "pair the agent again with a fresh pairing code";
    return new AuthError("unauthorized", message + where, "Pair the agent again: get a fresh pairing code (the app's " +
      `"Connect my agent", or \`lineup pair\` on the hub's machine) and run: ${command}. A new code replaces the stored ` +
      "credential (the old file is kept beside it as .bak).");
  }

  #heartbeat(socket: Socket): { stop(): void } {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const beat = (): void => {
      if (stopped) return;
      if (Date.now() - this.#lastHeard > 3 * this.heartbeatIntervalMs) {
        // Every ping is answered: this much silence is a dead link that TCP would take minutes to report.
        this.log.info(`nothing from ${this.credential.hubUrl} for ${Math.round(3 * this.heartbeatIntervalMs / 1000)} s; reconnecting`);
        socket.terminate();
        return;
      }
      socket.send(JSON.stringify(this.#envelope("system.ping", {})));
      timer = setTimeout(beat, this.heartbeatIntervalMs);
    };
    // The first beat is jittered so that agents restarted together do not beat in step.
    timer = setTimeout(beat, this.heartbeatIntervalMs * (0.3 + Math.random() * 0.7));
    return { stop: () => { stopped = true; clearTimeout(timer); } };
  }

  // ---- frames from the hub ----------------------------------------------------------------------------------------

  /** The frame, checked against the hub's schema (frames.hubToAgent), or null (logged): a hostile or broken hub gets
   * its frame ignored, never a crash. */
  #parse(text: Frame): HubFrame | null {
    if (text === BINARY) {
      this.#badFrame("a binary frame (the protocol is text frames only)");
      return null;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.#badFrame("it is not JSON");
      return null;
    }
    const problem = frameProblem("hubToAgent", value);
    if (problem !== null) {
      const type = typeof value === "object" && value !== null ? (value as { type?: unknown }).type : undefined;
      this.#badFrame(`${typeof type === "string" ? `${type}: ` : ""}${problem}`);
      return null;
    }
    // Past what a JavaScript number counts exactly, or below zero: every later event would look handled already.
    const sequence = (value as { sequence?: unknown }).sequence;
    if (typeof sequence === "number" && !(sequence >= 0 && sequence <= Number.MAX_SAFE_INTEGER)) {
      this.#badFrame(`$.sequence: ${sequence} is beyond 0 to ${Number.MAX_SAFE_INTEGER}`);
      return null;
    }
    return value as HubFrame;
  }

  #badFrame(why: string): void {
    this.#badFrames += 1;
    if (this.#badFrames <= 5 || this.#badFrames % 100 === 0) {
      this.log.warn(`ignoring a frame from the hub that breaks the protocol (${clip(why, 300)}); ${this.#badFrames} so far`);
    }
  }

  #onFrame(frame: HubFrame): void {
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
          this.log.info(`connected to ${this.credential.hubUrl} as agent ${this.credential.agentId} (${n} unfinished ` +
            `task${n === 1 ? "" : "s"} to resume)`);
        }
        this.#live = true;
        this.#startOpenTasks();
        this.#caughtUp.resolve();
        return;
      }
      case "system.resync_required":
        // Our cursor means nothing in this log: start over; handlers are idempotent by object id.
        this.epoch = frame.payload.epoch;
        this.lastSequence = 0;
        this.#saveState();
        return;
      case "system.welcome":
      case "system.pong":
        return;
      case "tool.list":
        if (frame.sequence === null || frame.sequence === undefined) {
          const waiter = this.#toolWaiters.get(frame.correlationId ?? "");
          if (waiter && !waiter.settled) waiter.resolve(frame.payload as unknown as JsonObject);
          return;
        }
        break;
      default:
        break;
    }
    if (frame.sequence === null || frame.sequence === undefined) return;
    if (frame.sequence <= this.lastSequence) return; // already handled before a reconnect
    this.lastSequence = frame.sequence;
    this.#dispatch(frame);
    // Saved after every event: an agent killed and restarted does not handle an event twice.
    this.#saveState();
  }

  #dispatch(frame: HubFrame): void {
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
            // Replayed: the welcome's openTasks says whether it is still open; decided at caught_up.
            this.#deferred.set(taskId, task);
            this.#deferredSequence.set(taskId, frame.sequence ?? 0);
          } else {
            this.#start(task);
          }
        }
        break;
      }
      case "task.status_changed":
        if ((TERMINAL_TASK_STATUSES as readonly string[]).includes(frame.payload.status)) {
          // Someone else ended one of our tasks (a cancel, the cancel timeout, the grace period).
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
          if (error) waiter.reject(new ToolCallError(error.code, error.message ?? ""));
          else waiter.resolve(frame.payload.result ?? {});
        }
        break;
      }
      case "tool.call":
        this.#spawn(this.#answerToolCall(frame as HubFrame<"tool.call">));
        break;
      case "interaction.resolved": {
        const p = frame.payload;
        const outcome = new Outcome(p.interactionId, p.outcome, p.response, p.respondedBy ?? null);
        this.#outcomes.set(outcome.interactionId, outcome);
        const waiter = this.#waiters.get(outcome.interactionId);
        this.#waiters.delete(outcome.interactionId);
        if (waiter && !waiter.settled) waiter.resolve(outcome);
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

  async #answerToolCall(frame: HubFrame<"tool.call">): Promise<void> {
    const { call_id: callId, name, action } = frame.payload;
    const handler = this.#toolHandlers.get(name);
    const answer: AgentToHub["tool.result"] = { call_id: callId, name, action: action ?? null };
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
      // The call's envelope id pairs the answer with exactly this call (docs/protocol.md#tools).
      await this.sendTyped("tool.result", answer, { correlationId: frame.id });
    } catch (error) {
      if (!(error instanceof ClientStopped)) this.log.warn(`the answer to tool call ${callId} was refused: ${describeError(error)}`);
    }
  }

  // ---- refusals the SDK retries -----------------------------------------------------------------------------------

  #onError(error: HubToClient["system.error"]): void {
    const envelopeId = error.id;
    if (envelopeId === null || envelopeId === undefined) {
      this.log.warn(`the hub reported an error: ${error.code} ${error.message}`);
      return;
    }
    const envelope = this.outbox.get(envelopeId);
    const refusal = HubError.fromPayload(error, envelope?.type);
    if (refusal.retryable && envelope && !this.#giveUp(envelope, refusal)) {
      // Nothing was stored: send the same envelope again shortly, keeping it in the outbox. A cap only the person can
      // lift (questions waiting, checkpoints) is the caller's error at once: retrying it would hang silently.
      setTimeout(() => { if (this.outbox.has(envelopeId)) this.#transmit(envelope); }, 1000);
      return;
    }
    this.#retrying.delete(envelopeId);
    this.outbox.settle(envelopeId, { error: refusal });
  }

  /** Note a retried refusal: the agent's log says so once, a task waiting long says so in its summary; an `internal`
   * refusal that lasts `retryInternalMs` is given up (true): the caller gets the HubError. */
  #giveUp(envelope: Envelope, refusal: HubError): boolean {
    const now = Date.now();
    let retrying = this.#retrying.get(envelope.id);
    if (!retrying) {
      const isNote = [...this.#retryNotes.values()].some((note) => note.id === envelope.id);
      retrying = { since: now, code: refusal.code, taskId: envelope.taskId ?? null, note: isNote };
      this.#retrying.set(envelope.id, retrying);
      this.log.warn(`the hub refused ${envelope.type} for now (${refusal.code}: ${refusal.reason}); sending it again ` +
        "every second until it is stored");
    }
    retrying.code = refusal.code;
    if (refusal.code === "internal" && now - retrying.since >= this.retryInternalMs) {
      this.log.error(`the hub kept refusing ${envelope.type} with \`internal\` for ${Math.round((now - retrying.since) / 1000)} s; giving up`);
      return true;
    }
    if (now - retrying.since >= this.retryNoteAfterMs && !retrying.note) this.#noteWaiting(retrying.taskId, refusal.code);
    return false;
  }

  #noteWaiting(taskId: string | null, code: string): void {
    const task = taskId ? this.tasks.get(taskId) : undefined;
    if (!task || taskId === null || task.finished || this.#retryNotes.has(taskId)) return;
    const id = randomUUID();
    const ack = this.sendTyped("task.status_changed", { summary: `Waiting to retry: ${WAITING_FOR[code] ?? code}` },
      { id, taskId, conversationId: task.conversationId });
    ack.catch(() => {});
    this.#retryNotes.set(taskId, { id, ack });
  }

  /** An envelope was acked: if it had been retried, say so, and end its task's note once nothing waits. */
  #stored(envelopeId: string): void {
    const retrying = this.#retrying.get(envelopeId);
    if (!retrying) return;
    this.#retrying.delete(envelopeId);
    this.log.info(`the hub stored it after ${Math.round((Date.now() - retrying.since) / 1000)} s of retries`);
    const taskId = retrying.taskId;
    if (taskId === null || retrying.note) return;
    const note = this.#retryNotes.get(taskId);
    if (!note) return;
    if ([...this.#retrying.values()].some((r) => r.taskId === taskId && !r.note)) return; // another still waits
    this.#spawn(this.#endWaiting(taskId, note));
  }

  async #endWaiting(taskId: string, note: { id: string; ack: Promise<Ack> }): Promise<void> {
    await note.ack.catch(() => {});
    if (this.#retryNotes.get(taskId) === note) this.#retryNotes.delete(taskId);
    const task = this.tasks.get(taskId);
    if (!task || task.finished) return;
    try {
      await task.progress(null, task.summary ?? "Working again");
    } catch (error) {
      this.log.info(`the task's summary was not put back: ${describeError(error)}`);
    }
  }

  // ---- tasks ------------------------------------------------------------------------------------------------------

  /** The task reached a final status: nothing to resume after a restart. */
  taskFinished(taskId: string): void {
    if (!taskId) return;
    this.#ended.add(taskId);
    this.#snapshot.delete(taskId);
    this.#deferred.delete(taskId);
  }

  /** The hub's list of this agent's unfinished tasks: what to resume, and how far each got. */
  #takeSnapshot(welcome: Welcome): void {
    this.#snapshot = new Map();
    for (const raw of welcome.openTasks ?? []) {
      const task = readOpenTask(raw);
      if (task === null) {
        this.#badFrame("an openTasks entry of the welcome is malformed");
        continue;
      }
      this.#snapshot.set(task.taskId, task);
      for (const question of task.interactions) {
        if (question.status !== "pending" && isOutcome(question.status)) {
          this.#outcomes.set(question.interactionId, new Outcome(question.interactionId, question.status,
            question.response, question.respondedBy));
        }
      }
    }
    this.#snapshotHead = welcome.headSequence;
    if (welcome.openTasksTruncated) {
      this.log.warn(`the hub listed only the oldest ${this.#snapshot.size} unfinished tasks of this agent`);
    }
  }

  /** At caught_up: run the handler for every open task not yet running here, exactly once per process. */
  #startOpenTasks(): void {
    const deferredTasks = this.#deferred;
    const sequences = this.#deferredSequence;
    this.#deferred = new Map();
    this.#deferredSequence = new Map();
    if (!this.#taskHandler) return;
    for (const [taskId, info] of this.#snapshot) {
      if (this.#handled.has(taskId) || this.#ended.has(taskId)) continue;
      let task = this.tasks.get(taskId);
      if (!task || !deferredTasks.has(taskId)) {
        task = new TaskHandle(this, taskId, info.conversationId, { title: info.title, description: info.description });
        this.tasks.set(taskId, task);
      }
      task.restore(info);
      if (task.resumed) this.log.info(`resuming unfinished task ${taskId} (${info.status ?? "?"})`);
      this.#start(task);
    }
    for (const [taskId, task] of deferredTasks) {
      if (!this.#handled.has(taskId) && !this.#ended.has(taskId) && (sequences.get(taskId) ?? 0) > this.#snapshotHead) {
        this.#start(task);
      }
    }
  }

  #start(task: TaskHandle): void {
    if (!this.#taskHandler || this.#handled.has(task.id)) return;
    this.#handled.add(task.id);
    this.#spawn(this.#runTask(task, this.#taskHandler));
  }

  /** Run the handler; a task it leaves unfinished is ended so that it never stays "Running" (docs/sdk.md "When a
   * handler fails"): failed with the error it threw (`handler_error`) or because it returned without finishing
   * (`handler_returned`), cancelled when the person asked to stop. */
  async #runTask(task: TaskHandle, handler: TaskHandler): Promise<void> {
    try {
      await handler(task);
    } catch (error) {
      if (this.#stopping) return; // the SDK stops (close, replaced, revoked): the task stays open for the next process
      if (task.endedStatus !== null && error instanceof HubError && error.code === "illegal_transition") {
        // The person cancelled (or the hub ended the task) and the handler carried on: not a crash.
        this.log.info(`the handler of task ${task.id} (${JSON.stringify(task.title)}) stopped: the task had ended ` +
          `(${task.endedStatus}) and the hub refused ${error.envelopeType ?? "what it sent"}`);
        return;
      }
      this.log.error(`the task handler failed on task ${task.id} (${JSON.stringify(task.title)})`,
        error instanceof Error ? error.stack ?? error.message : error); // the stack: here only
      await this.#endUnfinished(task, error);
      return;
    }
    if (!this.#stopping) await this.#endUnfinished(task, null);
  }

  async #endUnfinished(task: TaskHandle, error: unknown): Promise<void> {
    if (task.finished) {
      if (error !== null) this.log.warn(`the handler of task ${task.id} threw after the task had ended (${describeError(error)})`);
      return;
    }
    try {
      if (task.cancelRequested) {
        let summary = "Stopped on request";
        if (error !== null) summary += `; the handler ended with ${describeError(error)}`;
        await task.cancelled(clip(summary, SUMMARY_MAX));
        this.log.info(`task ${task.id} (${JSON.stringify(task.title)}) cancelled: ${summary}`);
      } else if (error !== null) {
        await task.fail("handler_error", describeError(error));
        this.log.error(`task ${task.id} (${JSON.stringify(task.title)}) failed: ${describeError(error)}`);
      } else {
        await task.fail("handler_returned", "The agent's handler returned without finishing the task: it called " +
          "none of succeed, fail or cancelled.");
        this.log.error(`task ${task.id} (${JSON.stringify(task.title)}) failed: the handler returned without calling ` +
          "task.succeed(), task.fail() or task.cancelled()");
      }
    } catch (failure) {
      if (failure instanceof ClientStopped) return;
      if (!task.finished) this.log.warn(`could not record the end of task ${task.id}: ${describeError(failure)}`);
    }
  }

  #spawn(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => {
      if (!(error instanceof ClientStopped)) this.log.error(`unexpected: ${describeError(error)}`);
    });
    this.#running.add(tracked);
    void tracked.finally(() => this.#running.delete(tracked));
  }

  /** Closed, replaced or revoked: whatever waits on the hub is told so (ClientStopped), or it would wait for acks
   * and answers that never come; the tasks stay open for the next process. */
  #stop(reason: Error): void {
    if (this.#stopping) return;
    this.#stopping = true;
    const stopped = reason instanceof ClientStopped ? reason : new ClientStopped(`The agent client stopped: ${reason.message}`);
    this.outbox.failAll(stopped);
    for (const waiter of this.#waiters.values()) waiter.reject(stopped);
    for (const waiter of this.#toolWaiters.values()) waiter.reject(stopped);
    this.#waiters.clear();
    if (!this.#caughtUp.settled) this.#caughtUp.reject(reason);
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.#wake = null; resolve(); }, ms);
      this.#wake = () => { clearTimeout(timer); this.#wake = null; resolve(); };
    });
  }

  // ---- the cursor on disk -----------------------------------------------------------------------------------------

  #loadState(): void {
    if (!this.statePath) return;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(this.statePath, "utf8"));
    } catch (error) {
      if ((error as { code?: string }).code !== "ENOENT") this.log.warn(`ignoring an unreadable state file ${this.statePath}`);
      return;
    }
    if (typeof data !== "object" || data === null) return;
    const state = data as { agentId?: unknown; epoch?: unknown; lastSequence?: unknown };
    if (state.agentId !== undefined && state.agentId !== null && state.agentId !== this.credential.agentId) {
      // Paired again with a fresh code (a new agent): the old agent's cursor means nothing to this one.
      this.log.info(`the state file ${this.statePath} belongs to agent ${String(state.agentId)}: starting afresh as agent ` +
        this.credential.agentId);
      return;
    }
    this.epoch = typeof state.epoch === "string" ? state.epoch : null;
    this.lastSequence = typeof state.lastSequence === "number" && Number.isInteger(state.lastSequence)
      ? Math.max(0, state.lastSequence) : 0;
  }

  #saveState(): void {
    if (!this.statePath) return;
    // A temporary name of this process's own: two copies started on one file do not trip over each other.
    const tmp = join(dirname(this.statePath), `${basename(this.statePath)}.${process.pid}.tmp`);
    try {
      writeFileSync(tmp, JSON.stringify({ agentId: this.credential.agentId, epoch: this.epoch,
        lastSequence: this.lastSequence }), { mode: 0o600 });
      renameSync(tmp, this.statePath);
    } catch (error) {
      this.log.warn(`could not save the cursor in ${this.statePath}: ${describeError(error)}`);
    }
  }
}

function isOutcome(status: string): status is OutcomeKind {
  return status === "answered" || status === "declined" || status === "expired" || status === "cancelled";
}

function text(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function object(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as JsonObject : null;
}

/** An entry of the welcome's openTasks, checked field by field (the schema says only "object"), or null. */
export function readOpenTask(raw: unknown): OpenTask | null {
  const o = object(raw);
  if (!o || typeof o.taskId !== "string" || !o.taskId) return null;
  const children: OpenTask["children"] = [];
  for (const c of Array.isArray(o.children) ? o.children : []) {
    const child = object(c);
    if (child && typeof child.taskId === "string" && typeof child.status === "string") {
      children.push({ taskId: child.taskId, status: child.status });
    }
  }
  const interactions: OpenTask["interactions"] = [];
  for (const q of Array.isArray(o.interactions) ? o.interactions : []) {
    const question = object(q);
    if (!question || typeof question.interactionId !== "string" || typeof question.status !== "string") continue;
    const by = object(question.respondedBy);
    const respondedBy = by && typeof by.id === "string" && typeof by.kind === "string"
      ? by as unknown as Responder : null;
    interactions.push({ interactionId: question.interactionId, status: question.status,
      response: object(question.response), respondedBy });
  }
  return {
    taskId: o.taskId, conversationId: text(o.conversationId), title: text(o.title) ?? "",
    description: text(o.description) ?? "", status: text(o.status),
    progress: typeof o.progress === "number" && Number.isFinite(o.progress) ? o.progress : null,
    summary: text(o.summary), cancelRequested: o.cancelRequested === true, cancelReason: text(o.cancelReason),
    checkpoints: object(o.checkpoints) ?? {}, children, interactions,
  };
}
