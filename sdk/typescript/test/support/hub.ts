// A real hub from this repository for the tests: `python -m hub serve --port 0` as a child process, its port read
// from the serving record it writes once it listens (hub/serving.py, as tests/support/hubproc.py does), an app token
// from `lineup token`, pairing codes and the event log over its HTTP API.

import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const REPOSITORY = resolve(PACKAGE, "..", "..");

/** Where the hub's code is run from (`python -m hub` in this folder): the repository, or $LINEUP_HUB_DIR (a checkout
 * of another revision). */
export const HUB_DIR = process.env.LINEUP_HUB_DIR ? resolve(process.env.LINEUP_HUB_DIR) : REPOSITORY;

export function hubPython(): string {
  if (process.env.LINEUP_PYTHON) return process.env.LINEUP_PYTHON;
  const venv = join(REPOSITORY, ".venv", "bin", "python");
  return existsSync(venv) ? venv : "python3";
}

/** Wait for `check` to return something truthy (polled every 20 ms), or fail saying what was awaited. */
export async function eventually<T>(check: () => T | Promise<T>, what: string, timeoutMs = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `lineup-ts-${prefix}-`));
}

export interface StoredEvent {
  id: string;
  type: string;
  sequence: number;
  taskId?: string | null;
  conversationId?: string | null;
  payload: Record<string, any>;
  [key: string]: unknown;
}

export interface HubOptions {
  env?: Record<string, string>;
  args?: string[];
}

export class Hub {
  readonly dataDir: string;
  readonly folder: string;
  readonly options: HubOptions;
  proc: ChildProcess | null = null;
  port = 0;
  scheme = "http";
  #token: string | null = null;

  constructor(options: HubOptions = {}) {
    this.folder = tempDir("hub");
    this.dataDir = join(this.folder, "data");
    this.options = options;
  }

  static async start(options: HubOptions = {}): Promise<Hub> {
    const hub = new Hub(options);
    await hub.start();
    return hub;
  }

  get base(): string {
    return `${this.scheme}://127.0.0.1:${this.port}`;
  }

  get log(): string {
    try {
      return readFileSync(join(this.folder, "hub.log"), "utf8");
    } catch {
      return "";
    }
  }

  async start(timeoutMs = 30_000): Promise<void> {
    const out = openSync(join(this.folder, "hub.log"), "a");
    this.proc = spawn(hubPython(), ["-m", "hub", "serve", "--host", "127.0.0.1", "--port", String(this.port),
      "--data-dir", this.dataDir, "--no-mdns", ...(this.options.args ?? [])], {
      cwd: HUB_DIR, stdio: ["ignore", out, out],
      env: { ...process.env, LINEUP_LOG_LEVEL: "warning", PYTHONUNBUFFERED: "1", ...this.options.env }, // the banner at once
    });
    const pid = this.proc.pid;
    await eventually(async () => {
      if (this.proc?.exitCode !== null) throw new Error(`the hub exited (${this.proc?.exitCode}):\n${this.log}`);
      if (!this.port) {
        try {
          const record = JSON.parse(readFileSync(join(this.dataDir, "serving.json"), "utf8")) as { url: string; pid: number };
          if (record.pid === pid) {
            const url = new URL(record.url);
            this.port = Number(url.port);
            this.scheme = url.protocol.replace(":", "");
          }
        } catch { /* not listening yet */ }
      }
      if (!this.port) return false;
      if (this.scheme === "https") return true; // the TLS tests check the certificate themselves
      try {
        return (await fetch(`${this.base}/-/health`)).ok;
      } catch {
        return false;
      }
    }, "the hub answering /-/health", timeoutMs);
  }

  /** SIGTERM and wait: the graceful path. */
  async stop(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGTERM");
    const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.folder, { recursive: true, force: true });
  }

  /** `lineup token --data-dir`: the owner's app token. */
  token(): string {
    if (this.#token === null) {
      const out = execFileSync(hubPython(), ["-m", "hub", "token", "--data-dir", this.dataDir], { cwd: HUB_DIR,
        encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
      this.#token = out.split("\n").find((line) => line.trim())!.trim();
    }
    return this.#token;
  }

  /** `lineup pair --data-dir`: a pairing code, as a person on the hub's machine makes one. */
  pairCode(): string {
    const out = execFileSync(hubPython(), ["-m", "hub", "pair", "--data-dir", this.dataDir], { cwd: HUB_DIR,
      encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return out.split("\n").find((line) => line.trim())!.trim();
  }

  /** The app's HTTP API with the owner's token. A connection of its own each time (the hub closes idle keep-alive
   * connections after 5 s, and a pooled one reused just then fails). */
  async api(method: "GET" | "POST", path: string, body?: unknown): Promise<any> {
    const data = body !== undefined ? JSON.stringify(body) : method === "POST" ? "{}" : undefined;
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: this.port, path, method, agent: false,
        headers: { Authorization: `Bearer ${this.token()}`, "Content-Type": "application/json" } }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => { text += chunk; });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(data);
    });
    if (status >= 300) throw new Error(`${method} ${path}: ${status} ${text}`);
    return JSON.parse(text);
  }

  /** A pairing code from the app's API (`POST /api/pairing-codes`). */
  async code(name?: string, replacesAgentId?: string): Promise<string> {
    const answer = await this.api("POST", "/api/pairing-codes", { ...(name ? { name } : {}),
      ...(replacesAgentId ? { replacesAgentId } : {}) });
    return answer.code as string;
  }

  /** Every stored event of the workspace, in order (`GET /api/events`). */
  async events(): Promise<StoredEvent[]> {
    const found: StoredEvent[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page: { events: StoredEvent[]; nextAfter: number | null } = await this.api("GET", `/api/events?after=${after}&limit=1000`);
      found.push(...page.events);
      after = page.nextAfter;
    }
    return found;
  }
}

export function count(events: StoredEvent[], type: string, match: Record<string, unknown> = {}): number {
  return select(events, type, match).length;
}

export function select(events: StoredEvent[], type: string, match: Record<string, unknown> = {}): StoredEvent[] {
  return events.filter((e) => e.type === type && Object.entries(match).every(([k, v]) =>
    (k in e ? e[k] : e.payload[k]) === v));
}
