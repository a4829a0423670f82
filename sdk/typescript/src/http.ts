// HTTP to the hub (pairing, files) with the same rules as the agent's socket: a pinned certificate checked before
// anything is sent, secrets only in the body or the Authorization header (never in the URL).

import * as http from "node:http";
import * as https from "node:https";
import type { Readable } from "node:stream";

import { AuthError, HubError, SdkError } from "./errors.js";
import { pinnedSocket } from "./tlspin.js";

export interface HttpRequest {
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: Uint8Array | string | Readable;
  /** The pinned certificate of an https hub (normalised fingerprint). */
  fingerprint?: string | null;
  timeoutMs?: number;
}

/** Open a request; resolves with the response once its headers arrived. */
export async function openRequest(url: string, request: HttpRequest): Promise<http.IncomingMessage> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  if (!secure && target.protocol !== "http:") throw new SdkError(`Not an http(s) address: ${url}`);
  const host = target.hostname.replace(/^\[|\]$/g, "");
  const port = Number(target.port || (secure ? 443 : 80));
  const timeoutMs = request.timeoutMs ?? 10_000;
  const options: http.RequestOptions = {
    method: request.method, host, port, path: target.pathname + target.search,
    headers: { ...request.headers }, timeout: timeoutMs,
  };
  let send: typeof http.request = http.request;
  if (secure && request.fingerprint) {
    const socket = await pinnedSocket(host, port, request.fingerprint, timeoutMs, ["http/1.1"]);
    options.createConnection = () => socket;
  } else if (secure) {
    send = https.request;
  }
  return await new Promise<http.IncomingMessage>((resolve, reject) => {
    const req = send(options, resolve);
    req.on("timeout", () => req.destroy(new SdkError(`The hub at ${target.origin} did not answer within ${timeoutMs} ms.`)));
    req.on("error", reject);
    const body = request.body;
    if (body === undefined) req.end();
    else if (typeof body === "string" || body instanceof Uint8Array) req.end(body);
    else {
      body.on("error", (error) => req.destroy(error));
      body.pipe(req);
    }
  });
}

/** The whole body, at most `limit` bytes (more is an error). */
export async function readBody(response: http.IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      response.destroy();
      throw new SdkError(`The hub's answer is larger than ${limit} bytes.`);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The refusal an HTTP error answer carries (`{"error": {code, message, hint, details?}}`). */
export async function refusal(response: http.IncomingMessage, authCodes: readonly string[]): Promise<HubError> {
  let error: unknown;
  try {
    error = (JSON.parse((await readBody(response, 64 * 1024)).toString("utf8")) as { error?: unknown }).error;
  } catch {
    error = undefined;
  }
  if (typeof error !== "object" || error === null || typeof (error as { code?: unknown }).code !== "string") {
    return new HubError("internal", `The hub answered HTTP ${response.statusCode}.`);
  }
  const code = (error as { code: string }).code;
  return authCodes.includes(code) ? AuthError.fromPayload(error) : HubError.fromPayload(error);
}

/** POST JSON, answer JSON (an object), refusals as HubError / AuthError, an unreachable hub as SdkError. */
export async function postJson(url: string, body: unknown, fingerprint: string | null | undefined,
  timeoutMs: number): Promise<Record<string, unknown>> {
  let response: http.IncomingMessage;
  try {
    response = await openRequest(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      fingerprint: fingerprint ?? null, timeoutMs,
    });
  } catch (error) {
    throw unreachable(url, error);
  }
  if ((response.statusCode ?? 0) >= 400) throw await refusal(response, ["unauthorized", "expired", "forbidden"]);
  const text = (await readBody(response, 1024 * 1024)).toString("utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HubError("internal", `The hub's answer to ${new URL(url).pathname} is not JSON.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new HubError("internal", `The hub's answer to ${new URL(url).pathname} is not a JSON object.`);
  }
  return parsed as Record<string, unknown>;
}

/** An error reaching the hub, said so that the person knows what to check. */
export function unreachable(url: string, error: unknown): Error {
  if (error instanceof SdkError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS/.test(code)) {
    return new SdkError(`The hub at ${new URL(url).origin} has a certificate no authority vouches for (a self-signed ` +
      "one). Pass its fingerprint (the hub prints it; the app's pairing command includes it).");
  }
  const what = error instanceof Error ? error.message : String(error);
  return new SdkError(`Cannot reach the hub at ${new URL(url).origin}: ${what}. Is it running, and is the address right?`);
}
