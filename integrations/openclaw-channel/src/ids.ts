// Ids derived from OpenClaw's own (session key, approval id, delivery id) and the hub's (message id), so a restarted
// Gateway or plugin sends the same envelope again, which the hub stores once: nothing is posted twice, nothing asked
// twice (docs/sdk.md "Restart-safe handlers"; the SDK's `stableId` is the Python SDK's).

import { stableId } from "@lineup-agents/sdk";

/** The LineUp conversation of an OpenClaw session that did not start in LineUp (its approvals come forwarded). */
export function sessionConversationId(agentId: string, sessionKey: string): string {
  return `conv_oc_${stableId("openclaw-session", agentId, sessionKey)}`;
}

/** The card of an OpenClaw approval. */
export function cardId(agentId: string, approvalId: string): string {
  return `int_oc_${stableId("openclaw-approval", agentId, approvalId)}`;
}

/** The n-th reply (0-based) OpenClaw gives to one of the person's messages. */
export function replyMessageId(agentId: string, inboundMessageId: string, index: number): string {
  return `msg_oc_${stableId("openclaw-reply", agentId, inboundMessageId, index)}`;
}

/** A message OpenClaw sends on its own (a follow-up, the message tool): its durable delivery's id when it has one. */
export function outboundMessageId(agentId: string, deliveryId: string, part: number): string {
  return `msg_oc_${stableId("openclaw-delivery", agentId, deliveryId, part)}`;
}

/** A note the plugin adds to a conversation about a card (answered too late, too long for a card). */
export function noteMessageId(agentId: string, what: string, about: string): string {
  return `msg_oc_${stableId("openclaw-note", agentId, what, about)}`;
}

/** Text clipped to `limit` characters, saying so. */
export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
