// A real agent process (test/fixtures/agent.ts) the tests start, read and kill with SIGKILL.

import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";

import { eventually, PACKAGE } from "./hub.js";

export interface Said {
  event: string;
  [key: string]: unknown;
}

export class AgentProcess {
  readonly said: Said[] = [];
  stderr = "";
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: string | null }>;

  constructor(credentialPath: string, statePath: string, scenario: string) {
    this.proc = spawn(process.execPath, [join(PACKAGE, "build-test", "test", "fixtures", "agent.js"), credentialPath,
      statePath, scenario], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, LINEUP_SDK_LOG: "info" } });
    createInterface({ input: this.proc.stdout! }).on("line", (line) => {
      try {
        this.said.push(JSON.parse(line) as Said);
      } catch {
        this.said.push({ event: "garbage", line });
      }
    });
    this.proc.stderr!.on("data", (chunk: Buffer) => { this.stderr += chunk.toString(); });
    this.exited = new Promise((resolve) => this.proc.once("exit", (code, signal) => resolve({ code, signal })));
  }

  events(event: string): Said[] {
    return this.said.filter((s) => s.event === event);
  }

  async waitFor(event: string, match: (s: Said) => boolean = () => true, timeoutMs = 20_000): Promise<Said> {
    return await eventually(() => {
      if (this.proc.exitCode !== null) throw new Error(`the agent exited (${this.proc.exitCode}) waiting for ${event}:\n${this.stderr}`);
      return this.said.find((s) => s.event === event && match(s));
    }, `the agent saying ${event}`, timeoutMs);
  }

  /** kill -9: the process gets no chance to close its socket, save anything or say goodbye. */
  async kill9(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGKILL");
    const { signal } = await this.exited;
    if (signal !== "SIGKILL" && signal !== null) throw new Error(`the agent ended by ${signal}`);
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill("SIGTERM");
    await this.exited;
  }
}
