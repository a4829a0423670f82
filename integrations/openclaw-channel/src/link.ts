// The plugin's connection to the LineUp hub: one SDK agent (@lineup-agents/sdk) per configured account. The person's
// messages (`message.delivered`) go to OpenClaw, what OpenClaw says becomes messages, OpenClaw's approvals become
// cards whose answers go back to the Gateway; every frame from the hub is checked by the SDK against the hub's schema,
// and the fields used here once more.

import { mkdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";

import {
  AgentClient, HubError, loadCredential, type Credential, type HubFrame, type InteractionSpec, type Logger,
} from "@lineup-agents/sdk";

import { clip, noteMessageId } from "./ids.js";
import { ChannelState, DECISIONS, type CardRecord, type Decision } from "./state.js";

export const MAX_MESSAGE_CHARS = 32_000; // what one message from the person may carry into OpenClaw
const MAX_HUB_MESSAGE_CHARS = 60_000; // one message to the hub (its frames are at most 64 KiB of JSON with the rest)

/** One of the person's messages from the app, checked. */
export interface PersonMessage {
  conversationId: string;
  messageId: string;
  text: string;
  authorId: string;
  authorName: string;
  occurredAtMs: number;
}

/** The person answered a card: what to tell OpenClaw. */
export interface CardAnswer {
  cardId: string;
  card: CardRecord;
  decision: Decision;
  comment: string;
  responderId: string;
}

export interface LinkHandlers {
  message(message: PersonMessage): Promise<void>;
  answer(answer: CardAnswer): Promise<void>;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** Where the plugin keeps its files: `<credential folder>/<credential name>.state/` (the hermes bridge's place). */
export function stateDir(credentialFile: string): string {
  const name = basename(credentialFile).replace(/\.json$/, "");
  return join(dirname(credentialFile), `${name}.state`);
}

export class HubLink {
  readonly credential: Credential;
  readonly client: AgentClient;
  readonly state: ChannelState;
  readonly log: Logger;
  #handlers: LinkHandlers | null = null;

  private constructor(credential: Credential, client: AgentClient, state: ChannelState, log: Logger) {
    this.credential = credential;
    this.client = client;
    this.state = state;
    this.log = log;
  }

  /** Load the credential `lineup connect openclaw` wrote and make the agent (not connected yet). */
  static open(credentialFile: string, options: { hub: string | null; log: Logger; version: string }): HubLink {
    const credential = loadCredential(credentialFile);
    if (options.hub && normaliseUrl(options.hub) !== normaliseUrl(credential.hubUrl)) {
      throw new Error(`channels.lineup.hub is ${options.hub} but ${credentialFile} was paired with ` +
        `${credential.hubUrl}: run \`lineup connect openclaw\` again`);
    }
    const dir = stateDir(credentialFile);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const client = new AgentClient(credential, {
      statePath: join(dir, "cursor.json"),
      runtime: "openclaw",
      agentVersion: options.version,
      capabilities: ["messages", "approval"],
      logger: options.log,
      credentialPath: credentialFile,
      pairCommand: "lineup connect openclaw --hub URL --code CODE",
    });
    const state = new ChannelState(join(dir, "openclaw-channel.json"), credential.agentId);
    return new HubLink(credential, client, state, options.log);
  }

  get agentId(): string {
    return this.credential.agentId;
  }

  /** Start taking the person's messages and answers; resolves once connected and caught up. */
  async start(handlers: LinkHandlers, timeoutMs = 30_000): Promise<void> {
    this.#handlers = handlers;
    this.client.on("message.delivered", (frame) => this.#delivered(frame));
    this.client.on("interaction.resolved", (frame) => this.#resolved(frame));
    this.client.onTask(async (task) => {
      await task.fail("not_a_task", "OpenClaw, connected as a LineUp channel, takes messages, not tasks: send your " +
        "request again as a plain message (without \u201cTrack as task\u201d).");
    });
    await this.client.start(timeoutMs);
  }

  async close(): Promise<void> {
    await this.client.close();
    this.state.save();
  }

  // ---- from the hub ---------------------------------------------------------------------------------------------

  async #delivered(frame: HubFrame<"message.delivered">): Promise<void> {
    const payload = record(frame.payload);
    const author = record(payload?.author);
    const conversationId = frame.conversationId;
    if (!payload || !author || author.kind !== "user" || typeof conversationId !== "string" || !conversationId) return;
    let body = text(payload.content);
    const files = (Array.isArray(payload.attachments) ? payload.attachments : [])
      .map((a) => record(a)).filter((a): a is Record<string, unknown> => a !== null)
      .map((a) => text(a.name) || text(a.fileId) || "a file");
    if (files.length) body += `${body ? "\n\n" : ""}(Attached in LineUp, not passed on to OpenClaw: ${files.join(", ")})`;
    if (!body.trim()) return;
    const messageId = text(payload.messageId) || frame.id;
    const occurred = Date.parse(frame.occurredAt);
    const session = this.state.sessions.get(conversationId);
    if (session) {
      // A conversation this plugin made for an OpenClaw session started elsewhere: OpenClaw takes messages for that
      // session where it started (Telegram, the TUI, …); this one only carries its approvals.
      await this.say(conversationId, `This conversation shows the approvals of OpenClaw's session ` +
        `\`${session.sessionKey}\`, which started outside LineUp; OpenClaw does not take messages for it here. ` +
        "To talk to OpenClaw, start a new conversation with it.", noteMessageId(this.agentId, "not-here", messageId));
      return;
    }
    await this.#handlers?.message({
      conversationId, messageId, text: clip(body, MAX_MESSAGE_CHARS),
      authorId: text(author.id), authorName: text(author.name) || text(author.id) || "you",
      occurredAtMs: Number.isFinite(occurred) ? occurred : Date.now(),
    });
  }

  async #resolved(frame: HubFrame<"interaction.resolved">): Promise<void> {
    const p = frame.payload;
    const card = this.state.cards.get(p.interactionId);
    if (!card) return;
    if (card.state !== "pending") return; // answered or ended already (a replayed event after a restart)
    const response = record(p.response) ?? {};
    if (p.outcome !== "answered" && p.outcome !== "declined") {
      card.state = "ended"; // expired, withdrawn (by this plugin: OpenClaw stopped waiting), the agent revoked
      this.state.save();
      return;
    }
    const chosen = text(response.optionId);
    let decision: Decision = "deny";
    if (p.outcome === "answered" && DECISIONS.includes(chosen as Decision) && card.decisions.includes(chosen as Decision)) {
      decision = chosen as Decision;
    }
    card.state = "answering";
    this.state.save();
    await this.#handlers?.answer({
      cardId: p.interactionId, card, decision, comment: clip(text(response.comment), 2000),
      responderId: text(record(p.respondedBy)?.id) || "lineup",
    });
  }

  // ---- to the hub -----------------------------------------------------------------------------------------------

  /** A message in a conversation, stored once under `messageId` (sent again with it, it is not said twice). */
  async say(conversationId: string, content: string, messageId: string): Promise<void> {
    if (!content.trim()) return;
    try {
      await this.client.sendTyped("message.create", { content: clip(content, MAX_HUB_MESSAGE_CHARS), messageId },
        { conversationId, id: `create-${messageId}` });
    } catch (error) {
      if (!(error instanceof HubError && error.code === "conflict")) throw error; // said before (another text)
    }
  }

  /** The conversation of an OpenClaw session that did not start in LineUp, made once (its id is the session's). */
  async sessionConversation(conversationId: string, sessionKey: string, title: string): Promise<void> {
    if (!this.state.sessions.has(conversationId)) {
      await this.client.sendTyped("conversation.create", { title: clip(title, 200) },
        { conversationId, id: `create-${conversationId}` }).catch((error: unknown) => {
        if (!(error instanceof HubError && error.code === "conflict")) throw error;
      });
      this.state.sessions.set(conversationId, { sessionKey, title });
      this.state.save();
    }
  }

  /** Ask on a card (its id derived from the approval's: asked again after a restart, it is the same card). */
  async ask(cardIdValue: string, card: CardRecord, interaction: InteractionSpec): Promise<void> {
    const known = this.state.cards.get(cardIdValue);
    if (known && known.state !== "pending") return; // answered or ended already: OpenClaw replays what it still has
    this.state.cards.set(cardIdValue, { ...card, state: "pending" });
    this.state.save();
    try {
      await this.client.sendTyped("interaction.requested", { interaction: { ...interaction, id: cardIdValue } },
        { conversationId: card.conversationId, id: `ask-${cardIdValue}` });
    } catch (error) {
      if (!(error instanceof HubError && error.code === "conflict")) throw error; // asked before
    }
  }

  /** End a card that nobody needs to answer any more, saying why (false: it had ended). */
  async withdraw(cardIdValue: string, reason: string): Promise<boolean> {
    const card = this.state.cards.get(cardIdValue);
    if (card) {
      card.state = "ended";
      this.state.save();
    }
    return await this.client.withdraw(cardIdValue, clip(reason, 500));
  }

  markAnswered(cardIdValue: string): void {
    const card = this.state.cards.get(cardIdValue);
    if (card) {
      card.state = "answered";
      this.state.save();
    }
  }
}

function normaliseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`.toLowerCase();
  } catch {
    return url.trim().replace(/\/+$/, "").toLowerCase();
  }
}
