// The LineUp channel (docs/plugins/sdk-channel-plugins.md): an account is one LineUp agent (the credential
// `lineup connect openclaw` wrote); while it runs, the person's messages come in (src/inbound.ts), OpenClaw's replies
// and sends go out as messages, and its exec approvals become cards (src/approvals.ts).

import { AsyncResource } from "node:async_hooks";
import { randomUUID } from "node:crypto";

import { createChatChannelPlugin, type ChannelPlugin } from "openclaw/plugin-sdk/channel-core";
import { registerChannelRuntimeContext } from "openclaw/plugin-sdk/channel-runtime-context";
import { CHANNEL_APPROVAL_NATIVE_RUNTIME_CONTEXT_CAPABILITY } from "openclaw/plugin-sdk/approval-handler-adapter-runtime";
import { AuthError, PinMismatch, ReplacedError, type Logger } from "@lineup-agents/sdk";

import { answerApproval, endCardsAsTheGatewayStops, lineupApprovalCapability, withdrawStaleCards } from "./approvals.js";
import { CHANNEL_ID, CHANNEL_LABEL, DEFAULT_ACCOUNT, resolveAccount, section, type LineupAccount } from "./config.js";
import { outboundMessageId } from "./ids.js";
import { dispatchPersonMessage, payloadText } from "./inbound.js";
import { HubLink } from "./link.js";
import { configs, links, runtimeStore } from "./runtime.js";
import { VERSION } from "./version.js";

const HUB_ID = /^[A-Za-z0-9_.:-]{1,128}$/;
// What stops the Gateway (a service manager's stop or restart, Ctrl+C; SIGUSR2 is a restart only when authorized, so
// it is left to the hook): its `gateway:shutdown` hook runs only where internal hooks are configured, and its typed
// `gateway_stop` only after it drained its work.
const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/** A LineUp target: a conversation id, with or without the `lineup:` prefix. */
export function normalizeTarget(raw: string): string | undefined {
  const id = raw.trim().replace(/^lineup:/i, "").replace(/^(conversation|group):/i, "");
  return HUB_ID.test(id) ? id : undefined;
}

interface LogSink {
  debug?: (message: string) => void;
  info?: (message: string) => void;
  warn?: (message: string) => void;
  error?: (message: string) => void;
}

function logger(sink: LogSink | undefined): Logger {
  const at = (name: keyof LogSink) => (message: string, ...rest: unknown[]): void => {
    const line = `[lineup] ${message}${rest.length ? ` ${rest.map(String).join(" ")}` : ""}`;
    const write = sink?.[name] ?? (name === "debug" ? undefined : sink?.info);
    if (write) write(line);
    else if (name !== "debug") console.error(line);
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

function abortPromise(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve()
    : new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

async function sendText(params: { to: string; text: string; accountId?: string | null; deliveryQueueId?: string;
  deliveryPartIndex?: number }): Promise<{ messageId: string }> {
  const conversationId = normalizeTarget(params.to);
  if (!conversationId) throw new Error(`not a LineUp conversation: ${JSON.stringify(params.to.slice(0, 80))}`);
  const link = links.get(params.accountId?.trim() || DEFAULT_ACCOUNT);
  if (!link) throw new Error("the LineUp channel is not connected to its hub (see `openclaw channels status`)");
  const messageId = params.deliveryQueueId
    ? outboundMessageId(link.agentId, params.deliveryQueueId, params.deliveryPartIndex ?? 0)
    : `msg_oc_${randomUUID().replace(/-/g, "")}`;
  await link.say(conversationId, params.text, messageId);
  return { messageId };
}

/** OpenClaw's `gateway:shutdown` hook (before the Gateway drains its work, for a stop and a restart alike; it runs only
 * where internal hooks are on, so each account also listens for the stop signals): each running account ends the cards
 * still waiting, so none stays answerable for a Gateway that no longer listens. */
export async function onGatewayStopping(): Promise<void> {
  await Promise.all([...links].map(async ([accountId, link]) => {
    const cfg = configs.get(accountId);
    if (cfg) await endCardsAsTheGatewayStops({ link, cfg, accountId });
  }));
}

export const lineupPlugin: ChannelPlugin<LineupAccount> = createChatChannelPlugin<LineupAccount>({
  base: {
    id: CHANNEL_ID,
    meta: {
      id: CHANNEL_ID,
      label: CHANNEL_LABEL,
      selectionLabel: CHANNEL_LABEL,
      docsPath: "/channels/lineup",
      blurb: "Your LineUp hub: OpenClaw's conversations and exec approvals on your phone.",
    },
    capabilities: { chatTypes: ["group"] },
    reload: { configPrefixes: ["channels.lineup"] },
    config: {
      listAccountIds: () => [DEFAULT_ACCOUNT],
      defaultAccountId: () => DEFAULT_ACCOUNT,
      resolveAccount: (cfg, accountId) => resolveAccount(cfg, accountId),
      inspectAccount: (cfg) => {
        const account = resolveAccount(cfg);
        return { enabled: account.enabled, configured: account.configured,
          tokenStatus: account.configured ? "available" : "missing" };
      },
      isConfigured: (account) => account.configured,
      isEnabled: (account) => account.enabled,
      describeAccount: (account) => ({ accountId: account.accountId, name: CHANNEL_LABEL, enabled: account.enabled,
        configured: account.configured, baseUrl: account.hub ?? undefined }),
    },
    setup: {
      applyAccountConfig: ({ cfg, input }) => ({
        ...cfg,
        channels: { ...cfg.channels, [CHANNEL_ID]: { ...section(cfg), ...(input as Record<string, unknown>) } },
      }),
    },
    messaging: {
      normalizeTarget,
      targetResolver: { looksLikeId: (raw) => normalizeTarget(raw) !== undefined, hint: "<conversation id>" },
    },
    gateway: {
      startAccount: async (ctx) => {
        const account = ctx.account;
        const log = logger(ctx.log as LogSink | undefined);
        if (!account.configured || !account.credentialFile) throw new Error(account.problem ?? "not configured");
        const accountId = account.accountId;
        let link: HubLink;
        try {
          link = HubLink.open(account.credentialFile, { hub: account.hub, log, version: VERSION });
        } catch (error) {
          throw new Error(`LineUp: ${error instanceof Error ? error.message : String(error)}`);
        }
        ctx.setStatus({ accountId, running: true, connected: false, baseUrl: link.credential.hubUrl });
        const started = link.start({
          message: (message) => dispatchPersonMessage({ runtime: runtimeStore.getRuntime(), cfg: ctx.cfg, accountId,
            link, message }),
          answer: (answer) => answerApproval({ link, cfg: ctx.cfg, accountId, answer }),
        });
        try {
          await started;
          await withdrawStaleCards(link);
        } catch (error) {
          if (error instanceof AuthError || error instanceof ReplacedError || error instanceof PinMismatch) {
            await link.close();
            throw new Error(`LineUp: ${error.message}`);
          }
          // Not reachable yet: the SDK keeps connecting (0.5 s to 20 s between tries) and catches up once it is.
          log.warn(`the hub ${link.credential.hubUrl} is not reachable yet; connecting in the background`);
        }
        links.set(accountId, link);
        configs.set(accountId, ctx.cfg);
        // The Gateway stops (or restarts) on these signals; its own listener runs first and begins the stop. Bound
        // to this account's task, so telling OpenClaw "deny" runs as this account, in process.
        const stopping = AsyncResource.bind(() => {
          endCardsAsTheGatewayStops({ link, cfg: ctx.cfg, accountId })
            .catch((error: unknown) => log.warn(`ending the waiting cards failed: ${String(error)}`));
        });
        for (const signal of STOP_SIGNALS) process.on(signal, stopping);
        const lease = registerChannelRuntimeContext({
          channelRuntime: ctx.channelRuntime, channelId: CHANNEL_ID, accountId,
          capability: CHANNEL_APPROVAL_NATIVE_RUNTIME_CONTEXT_CAPABILITY, context: { link }, abortSignal: ctx.abortSignal,
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
      },
    },
    approvalCapability: lineupApprovalCapability,
  },
  outbound: {
    base: {
      deliveryMode: "direct",
      shouldSuppressLocalPayloadPrompt: ({ hint }) => hint?.kind === "approval-pending" && hint.nativeRouteActive === true,
      sendPayload: async (ctx) => {
        const result = await sendText({ ...ctx, text: payloadText(ctx.payload) || ctx.text });
        return { channel: CHANNEL_ID, messageId: result.messageId };
      },
    },
    attachedResults: {
      channel: CHANNEL_ID,
      sendText: async (ctx) => await sendText(ctx),
    },
  },
});
