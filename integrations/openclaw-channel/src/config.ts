// `channels.lineup` in OpenClaw's config: which hub, where the credential is, whether approvals of other sessions come
// too. Read from the config OpenClaw hands the plugin; every field checked (a wrong type is "not configured", never a
// crash of the Gateway).

import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

export const CHANNEL_ID = "lineup";
export const CHANNEL_LABEL = "LineUp";
export const DEFAULT_ACCOUNT = "default";

/** What the plugin reads of `channels.lineup`. */
export interface LineupAccount {
  accountId: string;
  enabled: boolean;
  configured: boolean;
  /** The hub's address as `lineup connect openclaw` wrote it (the credential names the hub it was paired with). */
  hub: string | null;
  /** The credential file `lineup connect openclaw` wrote (owner-only, the Python SDK's format). */
  credentialFile: string | null;
  /** Approvals of OpenClaw sessions started elsewhere (Telegram, WhatsApp, the TUI, `openclaw agent`) come too. */
  forwardApprovals: boolean;
  /** Why it is not configured, for `openclaw channels status` and the log. */
  problem: string | null;
}

function record(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : null;
}

/** `channels.lineup` of a config, or an empty section. */
export function section(cfg: unknown): Record<string, unknown> {
  return record(record(record(cfg)?.channels)?.[CHANNEL_ID]) ?? {};
}

function expandHome(path: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return path;
}

export function resolveAccount(cfg: unknown, accountId?: string | null): LineupAccount {
  const raw = section(cfg);
  const enabled = raw.enabled !== false;
  const hub = typeof raw.hub === "string" && raw.hub.trim() ? raw.hub.trim() : null;
  const file = typeof raw.credentialFile === "string" && raw.credentialFile.trim()
    ? expandHome(raw.credentialFile.trim()) : null;
  let problem: string | null = null;
  if (file === null) problem = "channels.lineup.credentialFile is not set: run `lineup connect openclaw`";
  else if (!isAbsolute(file)) problem = "channels.lineup.credentialFile must be an absolute path";
  return {
    accountId: accountId?.trim() || DEFAULT_ACCOUNT,
    enabled,
    configured: problem === null,
    hub,
    credentialFile: file,
    forwardApprovals: raw.forwardApprovals === true,
    problem,
  };
}
