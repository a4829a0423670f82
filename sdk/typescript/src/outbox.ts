// Envelopes sent but not yet acknowledged: kept in order, re-sent with the same id after a reconnect
// (hub/sdk/outbox.py). At-least-once delivery; with the hub's dedupe by id, effectively once.

import { OutboxFull } from "./errors.js";
import type { Ack, Envelope } from "./protocol.js";

interface Pending {
  envelope: Envelope;
  promise: Promise<Ack>;
  resolve: (ack: Ack) => void;
  reject: (error: Error) => void;
}

export class Outbox {
  readonly maxItems: number;
  readonly #pending = new Map<string, Pending>();

  constructor(maxItems = 10_000) {
    this.maxItems = maxItems;
  }

  get size(): number {
    return this.#pending.size;
  }

  has(id: string): boolean {
    return this.#pending.has(id);
  }

  get(id: string): Envelope | undefined {
    return this.#pending.get(id)?.envelope;
  }

  /** Keep `envelope` until its ack; an id already waiting (the same object sent twice: a deterministic id) shares
   * the first one's answer. Throws OutboxFull past `maxItems`. */
  add(envelope: Envelope): Promise<Ack> {
    const waiting = this.#pending.get(envelope.id);
    if (waiting) return waiting.promise;
    if (this.#pending.size >= this.maxItems) {
      throw new OutboxFull(`${this.#pending.size} envelopes are waiting for the hub's ack (limit ${this.maxItems}); ` +
        "the hub is unreachable or slow. Wait for acks before sending more.");
    }
    let resolve!: (ack: Ack) => void;
    let reject!: (error: Error) => void;
    const promise = new Promise<Ack>((ok, fail) => { resolve = ok; reject = fail; });
    promise.catch(() => {}); // a caller that never awaits its ack must not crash the process when it is refused
    this.#pending.set(envelope.id, { envelope, promise, resolve, reject });
    return promise;
  }

  /** In the order they were queued. */
  pending(): Envelope[] {
    return [...this.#pending.values()].map((p) => p.envelope);
  }

  settle(id: string, outcome: { ack: Ack } | { error: Error }): void {
    const entry = this.#pending.get(id);
    if (!entry) return;
    this.#pending.delete(id);
    if ("ack" in outcome) entry.resolve(outcome.ack);
    else entry.reject(outcome.error);
  }

  failAll(error: Error): void {
    for (const id of [...this.#pending.keys()]) this.settle(id, { error });
  }
}
