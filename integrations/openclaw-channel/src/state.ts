// The plugin's own file beside the credential (`<credential>.state/openclaw-channel.json`, owner-only): the cards it
// asked and what each is about (OpenClaw's approval id, its kind, its conversation), and the conversations it made for
// OpenClaw sessions that did not start in LineUp. A restarted Gateway reads it back: an answer given while it was down
// still reaches OpenClaw, and a card whose approval OpenClaw no longer has is withdrawn, saying why.

import { randomUUID } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";

export type ApprovalKind = "exec" | "plugin";
export type Decision = "allow-once" | "allow-always" | "deny";
export const DECISIONS: readonly Decision[] = ["allow-once", "allow-always", "deny"];

export interface CardRecord {
  approvalId: string;
  approvalKind: ApprovalKind;
  conversationId: string;
  /** The decisions the card offered (OpenClaw's, in its order). */
  decisions: Decision[];
  expiresAtMs: number;
  /** The plugin process (Gateway run) that asked. */
  boot: string;
  /** answered: the person's answer went to OpenClaw; ended: the card ended (resolved elsewhere, expired, withdrawn). */
  state: "pending" | "answering" | "answered" | "ended";
}

export interface SessionConversation {
  sessionKey: string;
  title: string;
}

const MAX_CARDS = 2000;
const MAX_SESSIONS = 2000;

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

function readCard(value: unknown): CardRecord | null {
  const o = record(value);
  if (!o || typeof o.approvalId !== "string" || !o.approvalId || typeof o.conversationId !== "string") return null;
  if (o.approvalKind !== "exec" && o.approvalKind !== "plugin") return null;
  const decisions = Array.isArray(o.decisions)
    ? o.decisions.filter((d): d is Decision => DECISIONS.includes(d as Decision)) : [];
  const state = o.state === "answered" || o.state === "ended" || o.state === "answering" ? o.state : "pending";
  return {
    approvalId: o.approvalId, approvalKind: o.approvalKind, conversationId: o.conversationId, decisions,
    expiresAtMs: typeof o.expiresAtMs === "number" && Number.isFinite(o.expiresAtMs) ? o.expiresAtMs : 0,
    boot: typeof o.boot === "string" ? o.boot : "", state,
  };
}

export class ChannelState {
  readonly path: string;
  readonly agentId: string;
  /** This process: cards asked by an earlier one belong to a Gateway that has stopped. */
  readonly boot = randomUUID();
  cards = new Map<string, CardRecord>();
  sessions = new Map<string, SessionConversation>();

  constructor(path: string, agentId: string) {
    this.path = path;
    this.agentId = agentId;
    let data: Record<string, unknown> | null = null;
    try {
      data = record(JSON.parse(readFileSync(path, "utf8")));
    } catch {
      data = null; // none yet, or unreadable: start afresh
    }
    if (!data || data.agentId !== agentId) return; // another agent's (paired again with a fresh code)
    for (const [id, raw] of Object.entries(record(data.cards) ?? {})) {
      const card = readCard(raw);
      if (card) this.cards.set(id, card);
    }
    for (const [id, raw] of Object.entries(record(data.sessions) ?? {})) {
      const o = record(raw);
      if (o && typeof o.sessionKey === "string" && typeof o.title === "string") {
        this.sessions.set(id, { sessionKey: o.sessionKey, title: o.title });
      }
    }
  }

  save(): void {
    // Finished cards are forgotten first, oldest first, so the file stays small.
    while (this.cards.size > MAX_CARDS) {
      const done = [...this.cards].find(([, c]) => c.state === "answered" || c.state === "ended");
      this.cards.delete((done ?? [...this.cards][0]!)[0]);
    }
    while (this.sessions.size > MAX_SESSIONS) this.sessions.delete([...this.sessions.keys()][0]!);
    const dir = dirname(this.path);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = join(dir, `${basename(this.path)}.${process.pid}.tmp`);
    writeFileSync(tmp, JSON.stringify({
      agentId: this.agentId,
      cards: Object.fromEntries(this.cards),
      sessions: Object.fromEntries(this.sessions),
    }), { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}
