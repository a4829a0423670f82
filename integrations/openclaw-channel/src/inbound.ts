// A message of the person's, from the app into OpenClaw: each LineUp conversation is an OpenClaw conversation of its
// own (a `group` peer of the `lineup` channel, so a session of its own, `agent:<id>:lineup:group:<conversation>`), and
// what OpenClaw answers goes back into that conversation (docs/plugins/sdk-channel-inbound.md; the flow is the
// bundled QA channel's).

import type { OpenClawConfig, PluginRuntime } from "openclaw/plugin-sdk/channel-core";
import { resolveInboundRouteEnvelopeBuilderWithRuntime } from "openclaw/plugin-sdk/inbound-envelope";

import { CHANNEL_ID, CHANNEL_LABEL } from "./config.js";
import { replyMessageId } from "./ids.js";
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

export async function dispatchPersonMessage(params: {
  runtime: PluginRuntime;
  cfg: OpenClawConfig;
  accountId: string;
  link: HubLink;
  message: PersonMessage;
}): Promise<void> {
  const { runtime, cfg, accountId, link, message } = params;
  const target = message.conversationId;
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
  let replies = 0;
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
        if (!content.trim()) return;
        // The n-th reply to this message: the same id if OpenClaw says it again after a restart.
        const id = replyMessageId(link.agentId, message.messageId, replies);
        replies += 1;
        await link.say(target, content, id);
      },
      onError: (error) => {
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
}
