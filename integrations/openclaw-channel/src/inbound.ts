// A message of the person's, from the app into OpenClaw: each LineUp conversation is an OpenClaw conversation of its
// own (a `group` peer of the `lineup` channel, so a session of its own, `agent:<id>:lineup:group:<conversation>`), and
// what OpenClaw answers goes back into that conversation (docs/plugins/sdk-channel-inbound.md; the flow is the
// bundled QA channel's).

import type { OpenClawConfig, PluginRuntime } from "openclaw/plugin-sdk/channel-core";
import { resolveInboundRouteEnvelopeBuilderWithRuntime } from "openclaw/plugin-sdk/inbound-envelope";
import { createMessageReceiptFromOutboundResults } from "openclaw/plugin-sdk/channel-outbound";

import { CHANNEL_ID, CHANNEL_LABEL } from "./config.js";
import { noteMessageId, replyMessageId } from "./ids.js";
import type { HubLink, PersonMessage } from "./link.js";

/** The text of one reply payload (media is not passed on: LineUp shows the text; a media URL is named). */
export function payloadText(payload: unknown): string {
  if (typeof payload !== "object" || payload === null) return "";
  const p = payload as { text?: unknown; mediaUrl?: unknown; mediaUrls?: unknown };
  let out = typeof p.text === "string" ? p.text : "";
  const media = [p.mediaUrl, ...(Array.isArray(p.mediaUrls) ? p.mediaUrls : [])]
    .filter((u): u is string => typeof u === "string" && u.trim().length > 0);
  if (media.length) out += `${out ? "\n\n" : ""}${[...new Set(media)].map((u) => `(media: ${u})`).join("\n")}`;
  return out;
}

// Replies being handed to the hub, per conversation, until OpenClaw has recorded them as delivered. OpenClaw marks a
// reply's delivery "unknown" just before handing it over and "delivered" once `deliver` returned; a message of the
// person's that starts a turn in between finds the reply unconfirmed and makes OpenClaw post "I couldn't confirm
// whether my previous reply reached this chat" (its pending-delivery notice). The person sees the reply as soon as the
// hub stored it, before the hub's ack is back here, so a quick answer would often land in that window: it waits.
const openReplies = new Map<string, Set<Promise<void>>>();
const REPLY_SETTLE_WAIT_MS = 10_000; // at most: a reply whose ack never comes does not hold the conversation up

function openReply(conversationId: string): () => void {
  let close = (): void => {};
  const settled = new Promise<void>((resolve) => { close = resolve; });
  const open = openReplies.get(conversationId) ?? new Set<Promise<void>>();
  open.add(settled);
  openReplies.set(conversationId, open);
  return () => {
    close();
    open.delete(settled);
    if (open.size === 0 && openReplies.get(conversationId) === open) openReplies.delete(conversationId);
  };
}

/** Resolves once OpenClaw has recorded the replies it is handing to this conversation (or after 10 s). */
export async function repliesSettled(conversationId: string, timeoutMs = REPLY_SETTLE_WAIT_MS): Promise<void> {
  const open = openReplies.get(conversationId);
  if (!open?.size) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([Promise.all([...open]),
    new Promise<void>((resolve) => { timer = setTimeout(resolve, timeoutMs); })]);
  clearTimeout(timer);
}

// About 30 s of tries (0.5, 1, 2, 4, 4, … s apart) while OpenClaw's state database is held by another of its processes.
const CONTENTION_TRIES = 10;

function isContention(error: unknown): boolean {
  const name = error instanceof Error ? `${error.name} ${error.message}` : String(error);
  return /Contention|another OpenClaw process owns/i.test(name);
}

function clipError(error: unknown): string {
  const said = error instanceof Error ? error.message : String(error);
  return said.length > 200 ? `${said.slice(0, 200)}…` : said;
}

export async function dispatchPersonMessage(params: {
  runtime: PluginRuntime;
  cfg: OpenClawConfig;
  accountId: string;
  link: HubLink;
  message: PersonMessage;
}): Promise<void> {
  const { runtime, cfg, accountId, link, message } = params;
  const target = message.conversationId;
  await repliesSettled(target);
  let replies = 0;
  // OpenClaw hands over one reply at a time and records it (onDelivered, onError) before the next.
  const handing: Array<() => void> = [];
  const settleOne = (): void => handing.shift()?.();
  // Everything that reads OpenClaw's state is in here, so a try that found it held starts again from the top.
  const dispatch = async (): Promise<void> => {
    const { route, buildEnvelope } = resolveInboundRouteEnvelopeBuilderWithRuntime({
      cfg,
      channel: CHANNEL_ID,
      accountId,
      peer: { kind: "group" as const, id: target },
      runtime: runtime.channel,
      sessionStore: cfg.session?.store,
    });
    const { storePath, body } = buildEnvelope({
      channel: CHANNEL_LABEL,
      from: message.authorName,
      timestamp: message.occurredAtMs,
      body: message.text,
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
      CommandAuthorized: true,
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
          // The n-th reply to this message: the same id if OpenClaw says it again after a restart.
          const id = replyMessageId(link.agentId, message.messageId, replies);
          replies += 1;
          handing.push(openReply(target));
          await link.say(target, content, id);
          // The hub stored it (acked): OpenClaw records the reply as delivered, with the message's id.
          return {
            messageIds: [id], visibleReplySent: true, content,
            receipt: createMessageReceiptFromOutboundResults({ results: [{ channel: CHANNEL_ID, messageId: id }],
              kind: "text" }),
          };
        },
        onDelivered: settleOne,
        onError: (error) => {
          settleOne();
          link.log.warn(`OpenClaw's reply to LineUp message ${message.messageId} failed: ${String(error)}`);
        },
      },
      replyPipeline: {},
      record: {
        onRecordError: (error) => {
          link.log.warn(`OpenClaw could not record LineUp conversation ${target}: ${String(error)}`);
        },
      },
    });
  };
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await dispatch();
        return;
      } catch (error) {
        // OpenClaw's state database is briefly owned by another of its processes or workers (seen as a Gateway starts:
        // its start-up maintenance holds it for seconds): nothing of this message was taken, so it is handed again.
        // Once a reply went out, or after CONTENTION_TRIES, never again: the person is told instead.
        if (replies === 0 && isContention(error) && attempt < CONTENTION_TRIES) {
          await new Promise((resolve) => setTimeout(resolve, Math.min(4000, 500 * 2 ** (attempt - 1))));
          continue;
        }
        link.log.warn(`OpenClaw could not take LineUp message ${message.messageId}: ${String(error)}`);
        if (replies === 0) {
          await link.say(target, `OpenClaw could not take this message (${clipError(error)}). Send it again.`,
            noteMessageId(link.agentId, "not-taken", message.messageId));
        }
        return;
      }
    }
  } finally {
    for (const close of handing.splice(0)) close();
  }
}
