// Errors the SDK raises, each saying what happened and what to do next (the Python SDK's hub/sdk/errors.py).

import type { JsonObject } from "./protocol.js";

/** Base of every error this SDK raises. */
export class SdkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Refusals that stored nothing and that the SDK sends again by itself (docs/protocol.md "Errors"): a full disk,
 * the hub's own failure, and `rate_limited` for sending too fast (details.limit "rate"; other limits are the
 * person's). */
export const RETRYABLE: readonly string[] = ["storage_full", "internal", "rate_limited"];

/** The hub refused an envelope or request: `code` is one of docs/protocol.md#errors; branch on `code` and
 * `details` (e.g. `{from: "running", to: "running"}` of an illegal_transition), never on the message. */
export class HubError extends SdkError {
  readonly code: string;
  readonly hint: string;
  readonly details: JsonObject;
  /** What was refused (`artifact.created`), when it was an envelope. */
  readonly envelopeType: string | undefined;
  /** The hub's message alone (`message` also names the code and the hint). */
  readonly reason: string;

  constructor(code: string, message: string, hint = "", details: JsonObject = {}, envelopeType?: string) {
    super(`${code}: ${message}${hint ? ` (${hint})` : ""}`);
    this.code = code;
    this.reason = message;
    this.hint = hint;
    this.details = details;
    this.envelopeType = envelopeType;
  }

  /** From a `system.error` payload or an HTTP error body's `error`. */
  static fromPayload<T extends HubError>(this: new (code: string, message: string, hint?: string,
    details?: JsonObject, envelopeType?: string) => T, error: unknown, envelopeType?: string): T {
    const e = (typeof error === "object" && error !== null ? error : {}) as JsonObject;
    const details = typeof e.details === "object" && e.details !== null && !Array.isArray(e.details)
      ? e.details as JsonObject : {};
    return new this(typeof e.code === "string" ? e.code : "internal",
      typeof e.message === "string" ? e.message : "The hub refused it without saying why.",
      typeof e.hint === "string" ? e.hint : "", details, envelopeType);
  }

  /** Nothing was stored and sending the same envelope again may succeed: the SDK does so by itself. */
  get retryable(): boolean {
    const limit = this.details.limit;
    return RETRYABLE.includes(this.code) && (limit === undefined || limit === null || limit === "rate");
  }
}

/** The credential or pairing code was refused or revoked; retrying will not help. Pair again with a fresh code. */
export class AuthError extends HubError {}

/** Another copy of this agent connected with the same credential and took over (close code 4409), or the agent
 * was paired again elsewhere: this client stops instead of reconnecting, so the two never both take its tasks. */
export class ReplacedError extends SdkError {}

/** Too many envelopes are waiting for the hub's ack (it is unreachable or slow); slow down or wait. */
export class OutboxFull extends SdkError {}

/** The hub's TLS certificate is not the pinned one; never retried, and nothing secret was sent. */
export class PinMismatch extends SdkError {}

/** The client stopped (close(), replaced, revoked) while this waited for the hub: the task stays open for the next
 * process to resume. */
export class ClientStopped extends SdkError {}

/** A tool call was answered with an error (`code`: unknown_tool, invalid_arguments, instance_closed, ...). */
export class ToolCallError extends SdkError {
  readonly code: string;
  readonly reason: string;

  constructor(code: string, message = "") {
    super(`${code}: ${message}`);
    this.code = code;
    this.reason = message;
  }
}
