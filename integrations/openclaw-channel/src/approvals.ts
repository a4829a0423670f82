// OpenClaw's exec approvals as LineUp approval cards (docs/plugins/sdk-channel-plugins/approvals.md, "Native approval
// delivery"). Core runs the handler: it subscribes to the Gateway's approvals, asks `shouldHandle`, plans targets with
// `native`, and calls the runtime below to deliver a pending approval and to end it when it is resolved or expires;
// the person's answer goes back with `resolveApprovalOverGateway` (the canonical `approval.resolve`; the first answer
// wins, wherever it was given).
//
// Which approvals: those of sessions that started in LineUp, always (the card goes into that conversation); with
// forwarding on (`channels.lineup.forwardApprovals`, or a `lineup` target in OpenClaw's `approvals.exec.targets`),
// those of every other session too (Telegram, WhatsApp, the TUI, `openclaw agent`), each session's in a conversation
// of its own that the plugin makes, except sessions of OpenClaw's ACP bridge, whose ACP client asks for them (LineUp
// itself when the hub runs OpenClaw: one approval, one card). The card shows the whole command (`approves: {kind:
// "command"}`: the hub judges its risk) and OpenClaw's own decisions, worded as OpenClaw words them.

import type { ChannelApprovalCapability } from "openclaw/plugin-sdk/channel-contract";
import type { OpenClawConfig } from "openclaw/plugin-sdk/channel-core";
import {
  createChannelApprovalNativeRuntimeAdapter, type ChannelApprovalNativeRuntimeAdapter, type ExecApprovalPendingView,
  type PendingApprovalView,
} from "openclaw/plugin-sdk/approval-handler-runtime";
import { resolveApprovalOverGateway } from "openclaw/plugin-sdk/approval-gateway-runtime";
import type { InteractionOption, InteractionSpec, JsonObject } from "@lineup-agents/sdk";
import { approvals as subjects } from "@lineup-agents/sdk";

import { CHANNEL_ID, CHANNEL_LABEL, resolveAccount } from "./config.js";
import { cardId, clip, noteMessageId, sessionConversationId } from "./ids.js";
import type { CardAnswer, HubLink } from "./link.js";
import { DECISIONS, type Decision } from "./state.js";

/** What the plugin registers for core's handler (`approval.native` runtime context) while an account runs. */
export interface ApprovalContext {
  link: HubLink;
}

interface Target {
  conversationId: string;
  sessionKey: string;
  forwarded: boolean;
}

interface Entry {
  cardId: string;
  conversationId: string;
}

type Final = { phase: "resolved"; decision: Decision; resolvedBy: string | null } | { phase: "expired" };

const HUB_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
const SHORT_COMMAND = 120; // a command this short, on one line, is named in the card's title (hub/connect/hooks.py)
const EARLY_MS = 1000; // the card ends this long before OpenClaw stops waiting: never answered in vain

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

function text(value: unknown): string {
  return typeof value === "string" ? value.trim() : "";
}

function linkOf(context: unknown): HubLink | null {
  const link = record(context)?.link;
  return link && typeof link === "object" && "ask" in link ? link as HubLink : null;
}

/** The request's own fields (OpenClaw's ExecApprovalRequest payload), read defensively. */
function requestFields(request: unknown): Record<string, unknown> {
  return record(record(request)?.request) ?? {};
}

/** The LineUp conversation the session started in, when it started in LineUp (this account's). */
export function originConversation(request: unknown, accountId: string | null | undefined): string | null {
  const r = requestFields(request);
  if (text(r.turnSourceChannel).toLowerCase() !== CHANNEL_ID) return null;
  const account = text(r.turnSourceAccountId);
  if (account && accountId && account !== accountId) return null;
  const to = text(r.turnSourceTo).replace(/^lineup:/i, "");
  return HUB_ID.test(to) ? to : null;
}

/** Forwarding of other sessions' approvals is on: our own switch, or a `lineup` target in `approvals.exec`. */
export function forwardingOn(cfg: unknown, accountId: string | null | undefined, request: unknown): boolean {
  if (resolveAccount(cfg, accountId).forwardApprovals) return true;
  const exec = record(record(record(cfg)?.approvals)?.exec);
  if (!exec || exec.enabled !== true) return false;
  const mode = text(exec.mode) || "session";
  if (mode !== "targets" && mode !== "both") return false;
  const targets = Array.isArray(exec.targets) ? exec.targets : [];
  const ours = targets.some((t) => text(record(t)?.channel).toLowerCase() === CHANNEL_ID
    && (!text(record(t)?.accountId) || text(record(t)?.accountId) === (accountId || "default")));
  if (!ours) return false;
  return matchesFilters(exec, request);
}

/** `approvals.exec.agentFilter` / `sessionFilter` (agent ids; session key substrings or /regex/). */
function matchesFilters(exec: Record<string, unknown>, request: unknown): boolean {
  const r = requestFields(request);
  const agents = Array.isArray(exec.agentFilter) ? exec.agentFilter.filter((a): a is string => typeof a === "string") : [];
  const sessionKey = text(r.sessionKey);
  const agentId = text(r.agentId) || (/^agent:([^:]+):/.exec(sessionKey)?.[1] ?? "");
  if (agents.length && !agents.includes(agentId)) return false;
  const sessions = Array.isArray(exec.sessionFilter) ? exec.sessionFilter.filter((s): s is string => typeof s === "string") : [];
  if (!sessions.length) return true;
  return sessions.some((pattern) => {
    const regex = /^\/(.+)\/([a-z]*)$/.exec(pattern);
    if (regex) {
      try {
        return new RegExp(regex[1]!, regex[2]).test(sessionKey);
      } catch {
        return false;
      }
    }
    return sessionKey.includes(pattern);
  });
}

/** A session of OpenClaw's ACP bridge (`openclaw acp`, whose sessions are `agent:<id>:acp-bridge:<ACP session id>`
 * unless its client names one): the bridge asks its ACP client for the session's approvals. When the LineUp hub runs
 * OpenClaw (`lineup agents add openclaw`), that client is LineUp itself, which already shows the approval as a card:
 * forwarded too, the person would be asked the same thing twice. So forwarding leaves these to their ACP client. */
export function acpBridgeSession(request: unknown): boolean {
  return /^(agent:[^:]+:)?acp-bridge:/.test(text(requestFields(request).sessionKey));
}

function handles(cfg: unknown, accountId: string | null | undefined, request: unknown, approvalKind: string): boolean {
  if (approvalKind !== "exec") return false; // plugin and system approvals stay with OpenClaw's own surfaces
  if (!resolveAccount(cfg, accountId).enabled) return false;
  if (originConversation(request, accountId) !== null) return true;
  return !acpBridgeSession(request) && forwardingOn(cfg, accountId, request);
}

// ---- what the card says -----------------------------------------------------------------------------------------

const DESCRIPTIONS: Record<Decision, string> = {
  "allow-once": "OpenClaw runs this command this time and asks again next time.",
  // What OpenClaw 2026.9.6 keeps (its resolveAllowAlwaysPatterns): the program each part of the command runs, by its
  // resolved path, or the exact command when it runs through a shell wrapper.
  "allow-always": "OpenClaw runs it and adds the program it runs (its resolved path, e.g. /usr/bin/git for `git " +
    "push`; the exact command when it goes through `sh -c`) to this agent's exec allowlist: from now on that program " +
    "runs without asking, whatever its arguments (`openclaw approvals` shows and edits the list).",
  deny: "OpenClaw does not run it. OpenClaw's answer carries no note: a note you add is not passed on.",
};
const STYLES: Record<Decision, InteractionOption["style"]> = {
  "allow-once": "primary", "allow-always": "secondary", deny: "danger",
};

/** The card's options: OpenClaw's decisions for this approval, in its order and with its labels. */
export function cardOptions(view: Pick<PendingApprovalView, "actions">): InteractionOption[] {
  const seen = new Set<string>();
  const options: InteractionOption[] = [];
  for (const action of view.actions) {
    const decision = action.decision;
    if (!DECISIONS.includes(decision) || seen.has(decision)) continue;
    seen.add(decision);
    options.push({ id: decision, label: clip(action.label || decision, 80), style: STYLES[decision],
      description: DESCRIPTIONS[decision] });
  }
  return options;
}

/** Never a cut that reads as the whole command: a short one-line command by itself, any other by its size (the card
 * shows all of it, `approves`). */
export function cardTitle(command: string): string {
  const line = command.trim();
  if (line.length <= SHORT_COMMAND && !line.includes("\n")) return `OpenClaw wants to run: ${line}`;
  return `OpenClaw wants to run a ${command.length.toLocaleString("en")}-character command`;
}

/** The interaction for a pending exec approval, or null when the command is too long to show whole on a card. */
export function cardFor(view: ExecApprovalPendingView, conversationTitle: string | null): InteractionSpec | null {
  const subject = subjects.fits(subjects.commandApproval(view.commandText, view.cwd ?? undefined));
  if (subject === null) return null;
  const details: JsonObject = {};
  if (view.sessionKey) details.session = view.sessionKey;
  if (view.agentId) details.agent = view.agentId;
  if (view.host) details.host = view.nodeId ? `${view.host} (${view.nodeId})` : view.host;
  if (view.warningText) details.warning = clip(view.warningText, 2000);
  const description = [
    conversationTitle ? `From OpenClaw's session ${conversationTitle}.` : "",
    view.warningText ? clip(view.warningText, 1000) : "",
  ].filter(Boolean).join("\n\n");
  const spec: InteractionSpec = {
    type: "approval",
    title: cardTitle(view.commandText),
    description,
    risk: "medium",
    approves: subject,
    options: cardOptions(view),
    details,
    // OpenClaw's approval.resolve takes a decision only: a note the person adds does not reach the agent.
    notes: "not_sent",
  };
  if (Number.isFinite(view.expiresAtMs) && view.expiresAtMs > Date.now() + EARLY_MS) {
    spec.expiresAt = new Date(Math.floor((view.expiresAtMs - EARLY_MS) / 1000) * 1000).toISOString();
  }
  return spec;
}

const DECIDED: Record<Decision, string> = {
  "allow-once": "allowed it once", "allow-always": "allowed it always", deny: "denied it",
};

// OpenClaw's own name for an approval it denied because the turn that asked ended (aborted, or the Gateway stopping).
const SCOPE_CLOSED = "approval-scope-closed";
export const SCOPE_CLOSED_REASON = "OpenClaw ended the turn that asked (it was stopped, or OpenClaw's Gateway is " +
  "stopping) and denied this approval: the command did not run.";

/** Why a card ends when OpenClaw resolved its approval elsewhere. */
export function resolvedElsewhere(decision: Decision, resolvedBy: string | null): string {
  if (resolvedBy === SCOPE_CLOSED && decision === "deny") return SCOPE_CLOSED_REASON;
  const who = resolvedBy ? ` (${clip(resolvedBy, 80)})` : "";
  return `Answered in OpenClaw${who}: it ${DECIDED[decision] ?? "decided"}.`;
}

export const EXPIRED_REASON = "OpenClaw stopped waiting for an answer (the approval expired) and did not run it.";

export const RESTARTED_REASON = "OpenClaw's Gateway stopped while this approval waited, and OpenClaw denies an " +
  "approval it stops waiting on: the command did not run. Ask OpenClaw again if you still want it.";

export const STOPPING_REASON = "OpenClaw's Gateway is stopping, and OpenClaw denies an approval it stops waiting on: " +
  "the command did not run. Ask OpenClaw again once its Gateway is back if you still want it.";

/** The Gateway is stopping (its SIGTERM or SIGINT, or its `gateway:shutdown` hook where internal hooks are on; both
 * before it drains its work: src/channel.ts): every card this Gateway run asked that still waits ends now, saying so,
 * and OpenClaw is told "deny". Before, the card stayed answerable while OpenClaw held the turn through its drain (up to
 * 5 minutes), then pending until the Gateway came back, and its answer reached no one. Denying is what OpenClaw does
 * with an approval it stops waiting on; said at once, the turn ends now and the Gateway stops without waiting on it.
 * A card the person answered just before is left to that answer. */
export async function endCardsAsTheGatewayStops(params: {
  link: HubLink; cfg: OpenClawConfig; accountId: string;
}): Promise<number> {
  const { link, cfg, accountId } = params;
  const waiting = [...link.state.cards].filter(([, card]) => card.state === "pending" && card.boot === link.state.boot);
  if (waiting.length) link.log.info(`the Gateway is stopping: ${waiting.length} waiting card(s) end; OpenClaw: deny`);
  for (const [, card] of waiting) card.state = "ended"; // an answer from now on is not passed on
  if (waiting.length) link.state.save();
  await Promise.all(waiting.map(async ([id, card]) => {
    try {
      await resolveApprovalOverGateway({
        cfg, approvalId: card.approvalId, decision: "deny", approvalKind: card.approvalKind, channel: CHANNEL_ID,
        accountId, senderId: "lineup", clientDisplayName: `${CHANNEL_LABEL} approval (the Gateway is stopping)`,
      });
    } catch (error) { // resolved meanwhile, or the Gateway takes no more requests: it denies it as it stops
      link.log.info(`OpenClaw approval ${card.approvalId} was not denied by LineUp as the Gateway stops: ` +
        String(error));
    }
    try {
      await link.withdraw(id, STOPPING_REASON);
    } catch (error) {
      link.log.warn(`could not end the card of OpenClaw approval ${card.approvalId}: ${String(error)}`);
    }
  }));
  return waiting.length;
}

/** Cards an earlier Gateway run asked that are still open: nobody waits for them any more (OpenClaw keeps approvals
 * in memory and denies those pending when it stops), so they end, saying so. Run once the link is caught up, after
 * the answers given while the Gateway was down were passed on. */
export async function withdrawStaleCards(link: HubLink): Promise<number> {
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

// ---- the capability -----------------------------------------------------------------------------------------------

const nativeRuntime = createChannelApprovalNativeRuntimeAdapter<
  { view: PendingApprovalView }, Target, Entry, unknown, Final
>({
  eventKinds: ["exec"],
  availability: {
    isConfigured: ({ context }) => linkOf(context) !== null,
    shouldHandle: ({ cfg, accountId, request, approvalKind, context }) =>
      linkOf(context) !== null && handles(cfg, accountId, request, approvalKind),
  },
  presentation: {
    buildPendingPayload: ({ view }) => ({ view }),
    buildResolvedResult: ({ view }) => ({
      kind: "update",
      payload: { phase: "resolved", decision: view.decision, resolvedBy: view.resolvedBy ?? null },
    }),
    buildExpiredResult: () => ({ kind: "update", payload: { phase: "expired" } }),
  },
  transport: {
    prepareTarget: ({ plannedTarget, request, context, accountId }) => {
      const link = linkOf(context);
      if (!link) return null;
      const sessionKey = text(requestFields(request).sessionKey);
      const origin = plannedTarget.surface === "origin" ? originConversation(request, accountId) : null;
      const conversationId = origin ?? sessionConversationId(link.agentId, sessionKey || "(no session)");
      return { dedupeKey: conversationId, target: { conversationId, sessionKey, forwarded: origin === null } };
    },
    deliverPending: async ({ preparedTarget, request, view, context }) => {
      const link = linkOf(context);
      if (!link || view.approvalKind !== "exec") return null;
      const approvalId = text(record(request)?.id);
      if (!approvalId) return null;
      const id = cardId(link.agentId, approvalId);
      const session = preparedTarget.sessionKey || "(no session)";
      if (preparedTarget.forwarded) {
        await link.sessionConversation(preparedTarget.conversationId, session, `OpenClaw: ${session}`);
      }
      const spec = cardFor(view, preparedTarget.forwarded ? session : null);
      if (spec === null) {
        await link.say(preparedTarget.conversationId, `OpenClaw asks to run a command of ` +
          `${view.commandText.length.toLocaleString("en")} characters, too long to show whole on a card: answer it ` +
          `in OpenClaw (\`/approve ${approvalId} allow-once\` or \`deny\` in its chat, or \`openclaw approvals\`).`,
          noteMessageId(link.agentId, "too-long", approvalId));
        return null;
      }
      const decisions = (spec.options ?? []).map((o) => o.id as Decision);
      await link.ask(id, {
        approvalId, approvalKind: "exec", conversationId: preparedTarget.conversationId, decisions,
        expiresAtMs: view.expiresAtMs, boot: link.state.boot, state: "pending",
      }, spec);
      return { cardId: id, conversationId: preparedTarget.conversationId };
    },
    updateEntry: async ({ entry, payload, context }) => {
      const link = linkOf(context);
      if (!link) return;
      const card = link.state.cards.get(entry.cardId);
      if (card && card.state !== "pending") return; // the person's own answer, or ended already (the Gateway stops)
      const reason = payload.phase === "expired" ? EXPIRED_REASON
        : resolvedElsewhere(payload.decision, payload.resolvedBy);
      await link.withdraw(entry.cardId, reason);
    },
  },
});

/** The person answered on the card: tell the Gateway (the canonical `approval.resolve`). */
export async function answerApproval(params: {
  link: HubLink; cfg: OpenClawConfig; accountId: string; answer: CardAnswer;
}): Promise<void> {
  const { link, cfg, accountId, answer } = params;
  try {
    await resolveApprovalOverGateway({
      cfg, approvalId: answer.card.approvalId, decision: answer.decision, approvalKind: answer.card.approvalKind,
      channel: CHANNEL_ID, accountId, senderId: answer.responderId || "lineup",
      clientDisplayName: `${CHANNEL_LABEL} approval`,
    });
    link.markAnswered(answer.cardId);
  } catch (error) {
    link.markAnswered(answer.cardId);
    const why = error instanceof Error ? error.message : String(error);
    link.log.warn(`OpenClaw did not take the answer to approval ${answer.card.approvalId}: ${why}`);
    await link.say(answer.card.conversationId, "OpenClaw no longer waited for this approval when your answer came " +
      `(${clip(why, 300)}), so it did not take it.`, noteMessageId(link.agentId, "late", answer.card.approvalId));
  }
}

function state(enabled: boolean): { kind: "enabled" } | { kind: "disabled" } {
  return enabled ? { kind: "enabled" } : { kind: "disabled" };
}

export const lineupApprovalCapability: ChannelApprovalCapability = {
  // The hub shows a card only to the people of its workspace, and only they can answer it.
  authorizeActorAction: () => ({ authorized: true }),
  getActionAvailabilityState: ({ cfg, accountId }) => state(resolveAccount(cfg, accountId).configured),
  getExecInitiatingSurfaceState: ({ cfg, accountId }) => state(resolveAccount(cfg, accountId).configured),
  describeExecApprovalSetup: () => "LineUp shows OpenClaw's exec approvals as cards when the LineUp channel runs " +
    "(`lineup connect openclaw`); approvals of sessions started elsewhere come too with " +
    "`channels.lineup.forwardApprovals: true`.",
  delivery: {
    // A `lineup` target in approvals.exec: the card is the prompt; no text copy of it through the outbound adapter.
    shouldSuppressForwardingFallback: ({ target }) => text(record(target)?.channel).toLowerCase() === CHANNEL_ID,
  },
  native: {
    describeDeliveryCapabilities: ({ cfg, accountId, approvalKind, request }) => {
      const origin = originConversation(request, accountId) !== null;
      const enabled = handles(cfg, accountId, request, approvalKind);
      return {
        enabled,
        preferredSurface: origin ? "origin" : "approver-dm",
        supportsOriginSurface: enabled && origin,
        supportsApproverDmSurface: enabled && !origin,
        notifyOriginWhenDmOnly: false,
      };
    },
    resolveOriginTarget: ({ accountId, request }) => {
      const conversation = originConversation(request, accountId);
      return conversation ? { to: conversation } : null;
    },
    resolveApproverDmTargets: ({ cfg, accountId, request, approvalKind }) =>
      handles(cfg, accountId, request, approvalKind) && originConversation(request, accountId) === null
        ? [{ to: `session:${text(requestFields(request).sessionKey) || "(no session)"}` }] : [],
  },
  // The typed spec erased to core's contract (as the bundled channels do): core hands each hook what the one before
  // it returned.
  nativeRuntime: nativeRuntime as unknown as ChannelApprovalNativeRuntimeAdapter,
};
