// What an agent does with a task: accept, report progress, ask the person, stream, finish (hub/sdk/tasks.py).
//
// Restart-safe (docs/sdk.md "Restart-safe handlers"): child tasks, questions, artifacts and messages get ids derived
// from the task and from what they are, so a handler run again after a restart stores nothing new, and a question
// asked again returns the answer already given (also one given while the agent was down) instead of a second card.

import { createHash, randomUUID } from "node:crypto";

import { ClientStopped, HubError } from "./errors.js";
import type { Logger } from "./log.js";
import type {
  Ack, AgentToHub, ApprovalSubject, InteractionOption, InteractionSpec, JsonObject, MessageCreate, Responder,
  StoredTaskStatusChanged, TaskCreated,
} from "./protocol.js";

/** A task's status (the hub's vocabulary, hub/protocol/vocabulary.py; tests/unit/test_typescript_schema.py checks). */
export type TaskStatus = NonNullable<StoredTaskStatusChanged["status"]>;
/** A task in one of these is finished. */
export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ["succeeded", "failed", "cancelled"];
/** A task in one of these was accepted and is not finished. */
export const ACTIVE_TASK_STATUSES: readonly TaskStatus[] = ["running", "waiting_for_human"];

export type OutcomeKind = "answered" | "declined" | "expired" | "cancelled";

/** An id that a handler run again (after a restart, or in another copy of the agent) makes again. */
export function stableId(...parts: Array<string | number>): string {
  return createHash("sha256").update(parts.map(String).join("\x1f")).digest("hex").slice(0, 24);
}

// An approval asked without options gets these from the hub (hub/domain/interactions.py).
const DEFAULT_OPTIONS: readonly InteractionOption[] = [{ id: "approve", label: "Approve" }, { id: "reject", label: "Reject" }];

/** How a question ended: answered, declined, expired or cancelled — never a silent timeout. */
export class Outcome {
  readonly interactionId: string;
  readonly outcome: OutcomeKind;
  readonly response: JsonObject;
  readonly respondedBy: Responder | null;
  /** The options the question offered, when this process asked it: for `optionLabel`. */
  readonly options: readonly InteractionOption[];

  constructor(interactionId: string, outcome: OutcomeKind, response: JsonObject | null = null,
    respondedBy: Responder | null = null, options: readonly InteractionOption[] = []) {
    this.interactionId = interactionId;
    this.outcome = outcome;
    this.response = response ?? {};
    this.respondedBy = respondedBy;
    this.options = options;
  }

  get answered(): boolean {
    return this.outcome === "answered";
  }

  /** For approvals: the person chose an approving option. */
  get approved(): boolean {
    return this.outcome === "answered" && this.response.approved !== false;
  }

  /** The chosen option's id (`o2` for the second plain label), not its label. */
  get optionId(): string | null {
    return typeof this.response.optionId === "string" ? this.response.optionId : null;
  }

  get optionIds(): string[] {
    const ids = this.response.optionIds;
    if (Array.isArray(ids)) return ids.filter((id): id is string => typeof id === "string");
    return this.optionId ? [this.optionId] : [];
  }

  /** The label of the option the person chose. */
  get optionLabel(): string | null {
    return this.optionId === null ? null : this.label(this.optionId);
  }

  get optionLabels(): string[] {
    return this.optionIds.map((id) => this.label(id));
  }

  get text(): string | null {
    return typeof this.response.text === "string" ? this.response.text : null;
  }

  /** A review's decision: `approve` or `request_changes`. */
  get decision(): string | null {
    return typeof this.response.decision === "string" ? this.response.decision : null;
  }

  get comment(): string | null {
    return typeof this.response.comment === "string" ? this.response.comment : null;
  }

  /** Why a cancelled question ended: task_cancelled, task_ended, withdrawn, agent_revoked. */
  get cause(): string | null {
    return this.outcome === "cancelled" && typeof this.response.cause === "string" ? this.response.cause : null;
  }

  /** This outcome knowing the options of the question it answers. */
  withOptions(interaction: { options?: InteractionOption[] | null }): Outcome {
    const options = (interaction.options ?? []).filter((o) => typeof o === "object" && o !== null);
    return new Outcome(this.interactionId, this.outcome, this.response, this.respondedBy, options);
  }

  private label(id: string): string {
    const options = this.options.length ? this.options : DEFAULT_OPTIONS;
    return options.find((o) => o.id === id)?.label ?? id;
  }
}

/** Fields of the envelope besides its type and payload. */
export interface SendFields {
  id?: string;
  taskId?: string | null;
  conversationId?: string | null;
  correlationId?: string | null;
}

export interface StoredFile {
  fileId: string;
  name: string;
  mimeType: string;
  size: number;
  sha256: string;
  [key: string]: unknown;
}

export interface UploadOptions {
  name?: string;
  mimeType?: string;
}

/** What a task and a message stream use of the client that made them (src/client.ts's AgentClient). */
export interface TaskClient {
  readonly log: Logger;
  sendTyped<T extends keyof AgentToHub>(type: T, payload: AgentToHub[T], fields?: SendFields): Promise<Ack>;
  ask(interaction: InteractionSpec, where: { taskId?: string | null; conversationId?: string | null }): Promise<Outcome>;
  withdraw(interactionId: string, reason?: string): Promise<boolean>;
  outcome(interactionId: string): Outcome | undefined;
  taskFinished(taskId: string): void;
  uploadFile(source: string | Uint8Array, options?: UploadOptions): Promise<StoredFile>;
}

/** An entry of the welcome's `openTasks`: what the hub has of an unfinished task (docs/protocol.md). */
export interface OpenTask {
  taskId: string;
  conversationId: string | null;
  title: string;
  description: string;
  status: string | null;
  progress: number | null;
  summary: string | null;
  cancelRequested: boolean;
  cancelReason: string | null;
  checkpoints: JsonObject;
  children: Array<{ taskId: string; status: string }>;
  interactions: Array<{ interactionId: string; status: string; response: JsonObject | null; respondedBy: Responder | null }>;
}

export interface ApprovalOptions {
  description?: string;
  /** `low` / `medium` / `high`; the hub may raise it (`command`, `approves`). */
  risk?: "low" | "medium" | "high";
  /** What happens if approved. */
  impact?: string;
  /** A JSON object shown as facts. */
  details?: JsonObject;
  /** ISO 8601: past it the question ends as `expired`. */
  expiresAt?: string;
  interactionId?: string;
  /** The whole command that will run: the card shows all of it and the hub judges its risk. */
  command?: string;
  /** What approving approves, whole: one item or a list of up to 50 (commands, file writes and edits, tool inputs;
   * src/approvals.ts builds them and `fits` says beforehand whether they can be shown whole). */
  approves?: ApprovalSubject | ApprovalSubject[];
  options?: InteractionOption[];
  /** What happens to a note the person adds: "sent" (default), "next_message" or "not_sent" when the agent cannot
   * take it with the answer. */
  notes?: "sent" | "next_message" | "not_sent";
}

export interface ChoiceOptions {
  multiple?: boolean;
  description?: string;
  expiresAt?: string;
  interactionId?: string;
}

export interface InputOptions {
  description?: string;
  format?: "text" | "url" | "email" | "number" | "integer";
  /** RE2: the whole answer must match. */
  pattern?: string;
  placeholder?: string;
  maxLength?: number;
  expiresAt?: string;
  interactionId?: string;
}

export interface ReviewOptions {
  description?: string;
  attachments?: JsonObject[];
  expiresAt?: string;
  interactionId?: string;
}

export interface ArtifactOptions {
  /** A link (http(s), data:, file: or a hub path). */
  url?: string;
  /** A file to upload to the hub: a path, or the bytes. */
  file?: string | Uint8Array;
  mimeType?: string;
  summary?: string;
}

function options(list: Array<string | InteractionOption>): InteractionOption[] {
  return list.map((o, i) => (typeof o === "string" ? { id: `o${i + 1}`, label: o } : o));
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  return typeof value === "object" && !Array.isArray(value) && Object.keys(value as object).length === 0;
}

function spec(type: InteractionSpec["type"], title: string, description: string, fields: Record<string, unknown>):
  InteractionSpec {
  const out: Record<string, unknown> = { type, title, description };
  for (const [key, value] of Object.entries(fields)) if (!isEmpty(value)) out[key] = value;
  return out as unknown as InteractionSpec;
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === "object" && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as JsonObject).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v)) ?? "null";
}

/** One task assigned to this agent. Every method waits for the hub's ack and throws HubError on refusal.
 *
 * `resumed` is true when the task was started before this process ran it (a previous run was killed or restarted,
 * or another copy of the agent was replaced): the handler runs again from the start, and the handle makes that safe. */
export class TaskHandle {
  readonly client: TaskClient;
  readonly id: string;
  conversationId: string | null;
  readonly title: string;
  readonly description: string;
  readonly payload: Partial<TaskCreated>;
  resumed = false;
  /** The person's reason, once they asked to stop. */
  cancelReason: string | null = null;
  /** Set when the hub or the person ended the task, not this agent. */
  endedStatus: string | null = null;
  status: string = "queued";
  /** Named steps done (`once`, `checkpoint`), kept by the hub. */
  checkpoints: JsonObject = {};
  /** The last summary reported (the hub's, for a resumed task). */
  summary: string | null = null;
  readonly #cancel = new AbortController();
  #progressFloor = -1;
  readonly #children = new Map<string, string>();
  readonly #counts = new Map<string, number>();
  #questions: string[] = [];

  constructor(client: TaskClient, id: string, conversationId: string | null, payload: Partial<TaskCreated>) {
    this.client = client;
    this.id = id;
    this.conversationId = conversationId;
    this.payload = payload;
    this.title = typeof payload.title === "string" ? payload.title : "";
    this.description = typeof payload.description === "string" ? payload.description : "";
  }

  /** True once the person asked to stop (or the hub ended the task): finish with `cancelled()`. */
  get cancelRequested(): boolean {
    return this.#cancel.signal.aborted;
  }

  /** Aborted when the person asks to stop or the hub ends the task: pass it to fetch, child processes, timers. */
  get signal(): AbortSignal {
    return this.#cancel.signal;
  }

  /** Resolves when the person asks to stop (or the hub ends the task). */
  whenCancelRequested(): Promise<void> {
    if (this.cancelRequested) return Promise.resolve();
    return new Promise((resolve) => this.#cancel.signal.addEventListener("abort", () => resolve(), { once: true }));
  }

  /** The person asked to stop (task.cancel_requested). */
  requestCancel(reason: string | null): void {
    this.cancelReason = reason;
    if (!this.cancelRequested) this.#cancel.abort(new Error(reason ?? "The person asked to stop."));
  }

  /** Take what the hub has of this task (the welcome's openTasks entry) before the handler runs. */
  restore(info: OpenTask): void {
    this.status = info.status ?? this.status;
    this.resumed = this.status !== "queued";
    this.conversationId = info.conversationId ?? this.conversationId;
    this.checkpoints = { ...info.checkpoints };
    if (this.resumed && info.progress !== null) this.#progressFloor = Math.trunc(info.progress);
    this.summary = info.summary ?? this.summary;
    this.#questions = info.interactions.map((q) => q.interactionId);
    this.#children.clear();
    for (const child of info.children) this.#children.set(child.taskId, child.status);
    if (info.cancelRequested) this.requestCancel(info.cancelReason);
  }

  /** Someone else ended the task (cancelled while queued or waiting, cancel timeout, agent_unreachable): the handler
   * should stop; finishing it afterwards is a no-op. */
  endedByHub(status: string): void {
    this.endedStatus = status;
    this.requestCancel(this.cancelReason);
  }

  /** The task has a final status: this agent finished it, or the hub or the person ended it. */
  get finished(): boolean {
    return this.endedStatus !== null || (TERMINAL_TASK_STATUSES as readonly string[]).includes(this.status);
  }

  /** The ids of questions asked in this task whose outcome has not come (yet). */
  pendingQuestions(): string[] {
    return [...new Set(this.#questions)].filter((q) => this.client.outcome(q) === undefined);
  }

  toString(): string {
    return `TaskHandle(${this.id}, ${JSON.stringify(this.title)})`;
  }

  /** The n-th `kind` of these contents in this task: the same id each time the handler runs. */
  nextId(kind: string, ...what: string[]): string {
    const key = JSON.stringify([kind, ...what]);
    const n = (this.#counts.get(key) ?? 0) + 1;
    this.#counts.set(key, n);
    return stableId(this.id, kind, ...what, n);
  }

  /** Send with an id derived from the object: a re-run is a re-send (acked as a duplicate). `conflict` means the
   * object exists with other contents (a step done again differently): the first one stands. */
  async sendOnce<T extends keyof AgentToHub>(type: T, payload: AgentToHub[T], envelopeId: string,
    taskId?: string): Promise<void> {
    try {
      await this.client.sendTyped(type, payload, { id: envelopeId, taskId: taskId ?? this.id,
        conversationId: this.conversationId });
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "conflict") throw error;
      this.client.log.info(`${type} ${envelopeId} exists already; keeping the first one`);
    }
  }

  /** Accept the task; accepting a task that already runs (a restarted agent) is not an error. */
  async accept(): Promise<void> {
    if (this.status !== "queued") return;
    try {
      await this.sendOnce("task.accepted", {}, `accept-${this.id}`);
    } catch (error) {
      // Already running, or waiting for the person (this agent accepted it before it restarted): fine.
      const from = error instanceof HubError ? error.details.from : undefined;
      if (!(error instanceof HubError) || error.code !== "illegal_transition"
        || !(ACTIVE_TASK_STATUSES as readonly unknown[]).includes(from)) throw error;
    }
    this.status = "running";
  }

  /** Report progress (0–100) and/or a summary; in a resumed task a percentage the hub already passed is not sent
   * again, so the app's progress never runs backwards while the handler catches up. */
  async progress(percent: number | null, summary?: string): Promise<void> {
    const payload: AgentToHub["task.status_changed"] = {};
    if (percent !== null && percent !== undefined) {
      payload.progress = Math.max(0, Math.min(100, Math.trunc(percent)));
      if (payload.progress <= this.#progressFloor) return;
    }
    if (summary !== undefined) payload.summary = summary;
    await this.client.sendTyped("task.status_changed", payload, { taskId: this.id, conversationId: this.conversationId });
    if (summary !== undefined) this.summary = summary;
  }

  /** A display-only child task; made again by a re-run handler, it is the same child (not a second one). */
  async child(title: string, status: "running" | "queued" | "succeeded" | "failed" | "cancelled" = "running"):
    Promise<ChildTask> {
    const childId = `task_${this.nextId("child", title)}`;
    let known = this.#children.get(childId);
    if (known === undefined) {
      await this.sendOnce("task.child_created", { parentTaskId: this.id, title, status, taskId: childId },
        `child-${childId}`);
      known = status;
      this.#children.set(childId, known);
    }
    return new ChildTask(this, childId, known);
  }

  /** @internal a child reports its status. */
  childStatus(childId: string, status: string): void {
    this.#children.set(childId, status);
  }

  /** A link (`url`), or a file (`file`: a path or bytes) uploaded to the hub and shown in the app. */
  async artifact(name: string, what: string | ArtifactOptions): Promise<string> {
    const source: ArtifactOptions = typeof what === "string" ? { url: what } : what;
    const artifactId = `art_${this.nextId("artifact", name)}`;
    const payload: AgentToHub["artifact.created"] = { name, artifactId };
    if (source.file !== undefined) {
      payload.fileId = (await this.client.uploadFile(source.file, source.mimeType ? { mimeType: source.mimeType } : {}))
        .fileId;
    } else if (source.url !== undefined) {
      payload.url = source.url;
    } else {
      throw new TypeError("An artifact needs a url or a file.");
    }
    if (source.mimeType) payload.mimeType = source.mimeType;
    if (source.summary) payload.summary = source.summary;
    await this.sendOnce("artifact.created", payload, `art-${artifactId}`);
    return artifactId;
  }

  /** Post a message in the task's conversation, in Markdown (posted once, also when the handler runs again). */
  async message(text: string, extra: Partial<MessageCreate> = {}): Promise<string> {
    if (this.conversationId === null) throw new TypeError("This task has no conversation to post in.");
    const messageId = `msg_${this.nextId("message", text)}`;
    await this.sendOnce("message.create", { ...extra, content: text, messageId }, `msg-${messageId}`);
    return messageId;
  }

  /** Tell the hub a named step of this task is done (with a small JSON result); kept for a re-run. */
  async checkpoint(name: string, data: unknown = null): Promise<void> {
    await this.sendOnce("task.checkpoint", { name, data }, `cp-${stableId(this.id, name, canonical(data))}`);
    this.checkpoints[name] = data;
  }

  /** Run `step` at most once for this task. Its result (JSON, at most 16 KiB) is kept by the hub under `name`; a
   * handler run again after a restart gets it back without running the step. A process killed during the step runs
   * it again: make the step safe to repeat, or short. */
  async once<T>(name: string, step: () => T | Promise<T>): Promise<T> {
    if (Object.prototype.hasOwnProperty.call(this.checkpoints, name)) return this.checkpoints[name] as T;
    const result = await step();
    await this.checkpoint(name, result === undefined ? null : result);
    return result;
  }

  /** Streamed text: each `write` goes out live as a delta; `end()` stores the whole message. With a `name` (unique
   * within the task) the stream is restart-safe: a handler run again finds the message complete and says nothing
   * twice. */
  stream(name?: string): MessageStream {
    if (this.conversationId === null) throw new TypeError("This task has no conversation to stream into.");
    const messageId = name !== undefined ? `msg_${stableId(this.id, "stream", name)}` : undefined;
    return new MessageStream(this.client, this.conversationId, this.id, messageId);
  }

  /** `await task.streamed("report", async (s) => { await s.write("…") })`: the stream ended when `write` is done,
   * and the text so far stored (without waiting) when it throws. */
  async streamed(name: string | undefined, write: (stream: MessageStream) => Promise<void>): Promise<void> {
    const stream = this.stream(name);
    try {
      await write(stream);
    } catch (error) {
      stream.abandon();
      throw error;
    }
    await stream.end();
  }

  async succeed(summary?: string): Promise<void> {
    await this.finish("succeeded", summary);
  }

  async fail(code: string, message = "", summary?: string): Promise<void> {
    await this.finish("failed", summary, { code, message });
  }

  /** Confirm a cancel request: the task becomes cancelled (docs/design.md#cancel-is-a-request). */
  async cancelled(summary?: string): Promise<void> {
    await this.finish("cancelled", summary);
  }

  private async finish(status: "succeeded" | "failed" | "cancelled", summary?: string,
    error?: { code: string; message: string }): Promise<void> {
    if (this.endedStatus !== null) return; // already ended by the hub or the person
    if (status === "failed" && this.status === "queued") await this.accept();
    for (const question of this.pendingQuestions()) {
      // A task waiting for the person cannot be finished by its agent, and a finished task asks nothing.
      await this.client.withdraw(question, `The agent ended the task (${status}) before this was answered.`);
    }
    const payload: AgentToHub["task.status_changed"] = { status };
    if (status === "succeeded") payload.progress = 100;
    if (summary !== undefined) payload.summary = summary;
    if (error) payload.error = error;
    await this.sendOnce("task.status_changed", payload, `end-${this.id}-${status}`);
    this.status = status;
    this.client.taskFinished(this.id);
  }

  // ---- asking the person ------------------------------------------------------------------------------------------

  /** Ask with a full interaction object; waits until the person answers or it ends otherwise. Without an `id` the
   * question's id derives from the task, its type and title: asked again by a re-run handler, it returns the answer
   * already given, or waits for the same pending question. */
  async ask(interaction: InteractionSpec): Promise<Outcome> {
    const question = interaction.id ? interaction : { ...interaction, id: this.questionId(interaction) };
    this.#questions.push(question.id!);
    return await this.client.ask(question, { taskId: this.id, conversationId: this.conversationId });
  }

  /** The id `ask` gives a question without one (the n-th of its type and title in this task), for a caller that
   * needs it before the answer comes (to withdraw it). */
  questionId(interaction: Pick<InteractionSpec, "type" | "title">): string {
    return `int_${this.nextId("ask", interaction.type, interaction.title)}`;
  }

  /** Ask to approve; the answer's `approved` says yes, `optionId` is `approve` or `reject` (or your option's). */
  async askApproval(title: string, opts: ApprovalOptions = {}): Promise<Outcome> {
    const approves = opts.command !== undefined ? { kind: "command" as const, command: opts.command } : opts.approves;
    return await this.ask(spec("approval", title, opts.description ?? "", {
      risk: opts.risk ?? "medium", impact: opts.impact, details: opts.details, expiresAt: opts.expiresAt,
      id: opts.interactionId, approves, options: opts.options, notes: opts.notes,
    }));
  }

  /** Ask to pick one option (`multiple`: several). `options` are labels (their ids: `o1`, `o2`, …) or
   * `{id, label, …}` objects; the answer's `optionId` is the chosen id, `optionLabel` its label. */
  async askChoice(title: string, choices: Array<string | InteractionOption>, opts: ChoiceOptions = {}):
    Promise<Outcome> {
    return await this.ask(spec("choice", title, opts.description ?? "", {
      options: options(choices), multiple: opts.multiple ?? false, expiresAt: opts.expiresAt, id: opts.interactionId,
    }));
  }

  /** Ask for a typed answer (`format`: text, url, email, number, integer); the answer's `text` is a string. */
  async askInput(title: string, opts: InputOptions = {}): Promise<Outcome> {
    return await this.ask(spec("input", title, opts.description ?? "", {
      format: opts.format ?? "text", pattern: opts.pattern, placeholder: opts.placeholder, maxLength: opts.maxLength,
      expiresAt: opts.expiresAt, id: opts.interactionId,
    }));
  }

  /** Ask to review `content` (plain text, or a unified diff shown as a diff); the answer's `decision` is `approve` or
   * `request_changes`. Content that starts as a diff but is not one is refused (HubError invalid_payload). */
  async askReview(title: string, content: string, opts: ReviewOptions = {}): Promise<Outcome> {
    return await this.ask(spec("review", title, opts.description ?? "", {
      content, attachments: opts.attachments, expiresAt: opts.expiresAt, id: opts.interactionId,
    }));
  }
}

/** A display-only child task (docs/design.md#task-states); its status is reported like any task's. */
export class ChildTask {
  readonly parent: TaskHandle;
  readonly id: string;
  status: string;

  constructor(parent: TaskHandle, id: string, status: string) {
    this.parent = parent;
    this.id = id;
    this.status = status;
  }

  /** Report the child's status; a status it already has (a re-run handler) is not sent again. */
  async setStatus(status: "running" | "succeeded" | "failed" | "cancelled", summary?: string): Promise<void> {
    if (status === this.status && status !== "running") return;
    const payload: AgentToHub["task.status_changed"] = { status };
    if (summary) payload.summary = summary;
    if (status === "failed") payload.error = { code: "child_failed", message: summary ?? "" };
    await this.parent.sendOnce("task.status_changed", payload, `${this.id}-${status}`, this.id);
    this.status = status;
    this.parent.childStatus(this.id, status);
  }

  async succeed(summary?: string): Promise<void> {
    await this.setStatus("succeeded", summary);
  }

  async fail(summary?: string): Promise<void> {
    await this.setStatus("failed", summary);
  }
}

/** Streamed text: each `write` goes out live as a `message.delta` (its `offset` is where the text starts, so a
 * re-sent delta is recognised); `end()` stores the whole message. */
export class MessageStream {
  readonly client: TaskClient;
  readonly conversationId: string;
  readonly taskId: string | null;
  readonly messageId: string;
  text = "";
  /** False once the hub lost the stream's start (a hub restart): the final message carries all of it. */
  live = true;
  /** The hub has this message complete already (a handler run again): the rest is not sent. */
  saidBefore = false;
  #ended = false;

  constructor(client: TaskClient, conversationId: string, taskId: string | null, messageId?: string) {
    this.client = client;
    this.conversationId = conversationId;
    this.taskId = taskId;
    this.messageId = messageId ?? `msg_${randomUUID().replace(/-/g, "")}`;
  }

  async write(text: string): Promise<void> {
    if (!text) return;
    if (this.#ended) throw new TypeError("This stream has ended.");
    const offset = this.text.length;
    this.text += text;
    if (!this.live) return;
    try {
      await this.client.sendTyped("message.delta", { messageId: this.messageId, offset, text },
        { conversationId: this.conversationId, taskId: this.taskId });
    } catch (error) {
      if (error instanceof HubError && error.code === "conflict") { // already complete: said before
        this.live = false;
        this.saidBefore = true;
        return;
      }
      if (!(error instanceof HubError) || error.code !== "invalid_payload") throw error;
      this.live = false;
    }
  }

  /** Store the whole message (once; a message said before is not said again). */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.text || this.saidBefore) return;
    try {
      await this.client.sendTyped("message.create", { content: this.text, messageId: this.messageId },
        { conversationId: this.conversationId, taskId: this.taskId, id: `create-${this.messageId}` });
    } catch (error) {
      if (!(error instanceof HubError) || error.code !== "conflict") throw error;
    }
  }

  /** Left by an error: queue the text so far without waiting for the ack (the outbox still delivers it). */
  abandon(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (!this.text || this.saidBefore) return;
    this.client.sendTyped("message.create", { content: this.text, messageId: this.messageId },
      { conversationId: this.conversationId, taskId: this.taskId, id: `create-${this.messageId}` })
      .catch((error: unknown) => {
        if (!(error instanceof ClientStopped)) this.client.log.info(`the interrupted message was not stored: ${String(error)}`);
      });
  }
}
