// The person's side in the tests: a raw app socket (`/ws/app`, the app token in the hello) that collects every frame
// and sends requests (create a conversation and a task, answer a question, cancel), as the web app does.

import { randomUUID } from "node:crypto";
import { WebSocket } from "ws";

import { eventually, type Hub } from "./hub.js";

export interface Frame {
  id: string;
  type: string;
  sequence?: number | null;
  taskId?: string | null;
  conversationId?: string | null;
  correlationId?: string | null;
  payload: Record<string, any>;
}

export class App {
  readonly frames: Frame[] = [];
  readonly socket: WebSocket;
  workspaceId = "";

  private constructor(socket: WebSocket) {
    this.socket = socket;
  }

  static async connect(hub: Hub): Promise<App> {
    const socket = new WebSocket(`ws://127.0.0.1:${hub.port}/ws/app`, { perMessageDeflate: false });
    const app = new App(socket);
    socket.on("message", (data) => app.frames.push(JSON.parse(String(data)) as Frame));
    await new Promise<void>((resolve, reject) => { socket.once("open", () => resolve()); socket.once("error", reject); });
    socket.send(JSON.stringify({ id: randomUUID(), type: "app.hello", version: "0.1", occurredAt: new Date().toISOString(),
      payload: { token: hub.token() } }));
    const welcome = await eventually(() => app.frames.find((f) => f.type === "system.welcome"), "the app's welcome");
    app.workspaceId = welcome.payload.workspaceId as string;
    await eventually(() => app.frames.find((f) => f.type === "system.caught_up"), "the app caught up");
    return app;
  }

  close(): void {
    this.socket.close();
  }

  /** Send and wait for the answer: the ack's payload, or throw the refusal. */
  async request(type: string, payload: Record<string, unknown>, fields: Record<string, unknown> = {}): Promise<Record<string, any>> {
    const id = randomUUID();
    this.socket.send(JSON.stringify({ id, type, version: "0.1", occurredAt: new Date().toISOString(),
      workspaceId: this.workspaceId, payload, ...fields }));
    const answer = await eventually(() => this.frames.find((f) => (f.type === "system.ack" || f.type === "system.error")
      && f.payload.id === id), `the answer to ${type}`);
    if (answer.type === "system.error") throw new Error(`${type} refused: ${answer.payload.code}: ${answer.payload.message}`);
    return answer.payload;
  }

  /** A conversation with `agentId` and a task for it there; resolves with the task's id. */
  async task(agentId: string, title: string, description = "", conversationId?: string): Promise<{ taskId: string;
    conversationId: string }> {
    const conversation = conversationId ?? `c-${randomUUID()}`;
    if (!conversationId) await this.request("conversation.create", { title: `About ${title}`, agentIds: [agentId] }, { conversationId: conversation });
    const taskId = `t-${randomUUID()}`;
    await this.request("task.create", { title, description, targetAgentId: agentId }, { conversationId: conversation, taskId });
    return { taskId, conversationId: conversation };
  }

  stored(type: string, match: Record<string, unknown> = {}): Frame[] {
    return this.frames.filter((f) => f.type === type && f.sequence !== null && f.sequence !== undefined
      && Object.entries(match).every(([k, v]) => ((k in f ? (f as any)[k] : f.payload[k]) === v)));
  }

  async event(type: string, match: Record<string, unknown> = {}, timeoutMs = 15_000): Promise<Frame> {
    return await eventually(() => this.stored(type, match)[0], `a stored ${type} ${JSON.stringify(match)}`, timeoutMs);
  }

  /** The task's final status, once it has one. */
  async finished(taskId: string, timeoutMs = 20_000): Promise<Frame> {
    return await eventually(() => this.stored("task.status_changed", { taskId }).find((f) =>
      ["succeeded", "failed", "cancelled"].includes(f.payload.status)), `task ${taskId} finished`, timeoutMs);
  }

  async answer(interactionId: string, response: Record<string, unknown>): Promise<void> {
    await this.request("interaction.respond", { interactionId, response });
  }

  async cancel(taskId: string, reason = "Stop please"): Promise<void> {
    await this.request("task.cancel_requested", { reason }, { taskId });
  }
}
