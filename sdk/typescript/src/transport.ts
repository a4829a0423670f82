// The agent's WebSocket: the `ws` package on Node (Node 20 has no stable global WebSocket, and only `ws` lets the
// TLS pin be checked on the connection before the upgrade request, and so the hello with the credential, is sent);
// where `ws` cannot load (Deno, Bun, a browser) the runtime's own WebSocket, which cannot pin a certificate.

import { refuseCleartext } from "./cleartext.js";
import { PinMismatch, SdkError } from "./errors.js";
import { pinnedSocket } from "./tlspin.js";

/** A frame as it came: its text, or `BINARY` for a binary frame (the protocol has none: the client logs it). */
export type Frame = string | typeof BINARY;
export const BINARY = null;

/** One open connection, text frames only. */
export interface Socket {
  send(text: string): void;
  /** A clean close (1000 tells the hub the agent stopped on purpose). */
  close(code?: number, reason?: string): void;
  /** Drop the connection at once. */
  terminate(): void;
  /** The next frame (for the hello's answer), or an error after `timeoutMs` or when the socket closes. */
  next(timeoutMs: number): Promise<Frame>;
  /** From now on every frame goes to `onText` (frames that arrived before and were not taken by `next` first). */
  listen(onText: (text: Frame) => void): void;
  /** Resolves once the connection is closed, with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** The largest frame accepted from the hub: far above anything it sends (a replayed event holds at most a 256 KiB
 * message), and a bound on what a hostile server can make the agent hold. */
export const MAX_FRAME_BYTES = 64 * 1024 * 1024;
const OPEN_TIMEOUT_MS = 10_000;

type WsModule = typeof import("ws");

/** The runtime's own WebSocket (WHATWG), where there is one. */
interface NativeSocket {
  readonly readyState: number;
  onopen: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  send(text: string): void;
  close(code?: number, reason?: string): void;
}
type NativeConstructor = { new (url: string): NativeSocket; readonly OPEN: number };
let wsModule: Promise<WsModule | null> | undefined;

function loadWs(): Promise<WsModule | null> {
  wsModule ??= import("ws").then((m) => m, () => null);
  return wsModule;
}

class Frames {
  readonly #queue: Frame[] = [];
  #listener: ((text: Frame) => void) | null = null;
  #waiter: { resolve: (text: Frame) => void; reject: (error: Error) => void } | null = null;
  #ended: Error | null = null;

  push(text: Frame): void {
    if (this.#listener) this.#listener(text);
    else if (this.#waiter) {
      const waiter = this.#waiter;
      this.#waiter = null;
      waiter.resolve(text);
    } else this.#queue.push(text);
  }

  end(error: Error): void {
    this.#ended ??= error;
    const waiter = this.#waiter;
    this.#waiter = null;
    waiter?.reject(error);
  }

  next(timeoutMs: number): Promise<Frame> {
    if (this.#queue.length) return Promise.resolve(this.#queue.shift() as Frame);
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiter = null;
        reject(new SdkError(`The hub did not answer the hello within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.#waiter = {
        resolve: (text) => { clearTimeout(timer); resolve(text); },
        reject: (error) => { clearTimeout(timer); reject(error); },
      };
    });
  }

  listen(onText: (text: Frame) => void): void {
    this.#listener = onText;
    for (const text of this.#queue.splice(0)) onText(text);
  }
}

/** Open the agent socket at `url` (ws:// or wss://); with a fingerprint the TLS certificate is checked first. A plain
 * ws:// socket beyond this machine, where the hello would carry the credential in clear, only with `allowInsecure`
 * (./cleartext.ts). */
export async function openSocket(url: string, fingerprint: string | null, allowInsecure = false): Promise<Socket> {
  refuseCleartext(url, allowInsecure, "this agent's credential");
  const ws = await loadWs();
  if (ws) return await openWithWs(ws, url, fingerprint);
  const native = (globalThis as { WebSocket?: NativeConstructor }).WebSocket;
  if (!native) throw new SdkError("No WebSocket client: install the `ws` package.");
  if (fingerprint && url.startsWith("wss:")) {
    throw new SdkError("This runtime's own WebSocket cannot pin the hub's certificate: install the `ws` package.");
  }
  return await openNative(native, url);
}

async function openWithWs(ws: WsModule, url: string, fingerprint: string | null): Promise<Socket> {
  const target = new URL(url);
  const options: import("ws").ClientOptions = { perMessageDeflate: false, handshakeTimeout: OPEN_TIMEOUT_MS,
    maxPayload: MAX_FRAME_BYTES, followRedirects: false };
  if (target.protocol === "wss:" && fingerprint) {
    const host = target.hostname.replace(/^\[|\]$/g, "");
    const tlsSocket = await pinnedSocket(host, Number(target.port || 443), fingerprint, OPEN_TIMEOUT_MS, ["http/1.1"]);
    options.createConnection = () => tlsSocket; // checked before the upgrade request (and so the hello) is sent
  }
  const socket = new ws.WebSocket(url, options);
  const frames = new Frames();
  let closedResolve!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => { closedResolve = resolve; });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", (error) => reject(error instanceof PinMismatch ? error : new SdkError(
      `Cannot open the agent socket at ${target.origin}: ${error.message}`)));
    socket.once("close", (code) => reject(new SdkError(`The agent socket at ${target.origin} closed (${code}) before it opened.`)));
  });
  socket.removeAllListeners("error");
  socket.removeAllListeners("close");
  socket.on("error", () => {}); // followed by "close"
  socket.on("message", (data, isBinary) => {
    if (isBinary) {
      frames.push(BINARY); // the protocol is text frames only: the client logs it
      return;
    }
    frames.push(Array.isArray(data) ? Buffer.concat(data).toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8"));
  });
  socket.on("close", (code, reason) => {
    frames.end(new SdkError(`The hub closed the connection (${code}).`));
    closedResolve({ code, reason: reason.toString("utf8") });
  });
  return {
    send: (text) => { if (socket.readyState === socket.OPEN) socket.send(text); },
    close: (code = 1000, reason = "") => socket.close(code, reason),
    terminate: () => socket.terminate(),
    next: (timeoutMs) => frames.next(timeoutMs),
    listen: (onText) => frames.listen(onText),
    closed,
  };
}

async function openNative(Native: NativeConstructor, url: string): Promise<Socket> {
  const socket = new Native(url);
  const frames = new Frames();
  let closedResolve!: (value: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => { closedResolve = resolve; });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => { socket.close(); reject(new SdkError(`Cannot open the agent socket at ${url}: timed out.`)); },
      OPEN_TIMEOUT_MS);
    socket.onopen = () => { clearTimeout(timer); resolve(); };
    socket.onerror = () => { clearTimeout(timer); reject(new SdkError(`Cannot open the agent socket at ${url}.`)); };
  });
  socket.onerror = null;
  socket.onmessage = (event) => { frames.push(typeof event.data === "string" ? event.data : BINARY); };
  socket.onclose = (event) => {
    frames.end(new SdkError(`The hub closed the connection (${event.code}).`));
    closedResolve({ code: event.code, reason: event.reason });
  };
  return {
    send: (text) => { if (socket.readyState === Native.OPEN) socket.send(text); },
    close: (code = 1000, reason = "") => socket.close(code, reason),
    terminate: () => socket.close(),
    next: (timeoutMs) => frames.next(timeoutMs),
    listen: (onText) => frames.listen(onText),
    closed,
  };
}
