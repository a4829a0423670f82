// No credential in clear beyond this machine (the Python SDK's hub/sdk/cleartext.py): the agent's credential (its
// hello, its uploads) and a pairing code (which becomes one) would cross the network readable by anyone on the way.
// The hub's own machine (127.0.0.0/8, ::1, localhost) is fine; another address needs https (a hub on the LAN offers
// agents TLS, with a pinned certificate), or the person's explicit choice: `allowInsecure: true`, or
// LINEUP_ALLOW_INSECURE_HUB=1; a credential paired that way keeps the choice in its file (docs/security.md).

import { isIP } from "node:net";

import { SdkError } from "./errors.js";

export const ALLOW_INSECURE_ENV = "LINEUP_ALLOW_INSECURE_HUB";

/** A credential would go to a hub beyond this machine in clear. */
export class InsecureHub extends SdkError {}

/** Whether a host name or address means this machine only. */
export function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, "").toLowerCase().replace(/\.$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  if (isIP(name) === 4) return name.split(".")[0] === "127";
  if (isIP(name) === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(name);
    if (mapped) return mapped[1]!.split(".")[0] === "127";
    return /^(0{0,4}:){2,7}0{0,3}1$/.test(name) || name === "::1";
  }
  return false;
}

export function allowedByEnvironment(): boolean {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[ALLOW_INSECURE_ENV];
  return ["1", "true", "yes"].includes((value ?? "").trim().toLowerCase());
}

/** Throw InsecureHub if `what` (a credential, a pairing code) would go to `url` in clear beyond this machine. */
export function refuseCleartext(url: string, allowInsecure: boolean, what: string): void {
  const target = new URL(url);
  if (target.protocol === "https:" || target.protocol === "wss:" || isLoopbackHost(target.hostname) || allowInsecure) {
    return;
  }
  const host = target.hostname || "HOST";
  const port = Number(target.port || 80);
  throw new InsecureHub(`Refusing to send ${what} to ${target.protocol}//${host}:${port} in clear: anyone on the ` +
    `network on the way could read it. Use the hub's https:// address (by default https://${host}:${port + 1}, the ` +
    "hub's port + 1, with the fingerprint its pairing command shows). On a network you trust, allow plain http " +
    `explicitly: allowInsecure: true, or ${ALLOW_INSECURE_ENV}=1.`);
}
