// A TCP relay on loopback between an agent and the hub (tests/integration/test_sdk.py's Relay): counts connection
// attempts, cuts every connection on demand (an RST, no close frame), refuses new ones while `refuse` is set, and with
// `blackhole` set throws bytes away both ways without closing anything (a silent partition).

import { createConnection, createServer, type Server, type Socket } from "node:net";

export class Relay {
  readonly targetPort: number;
  port = 0;
  connections = 0;
  refuse = false;
  blackhole = false;
  readonly #server: Server;
  readonly #links = new Set<[Socket, Socket]>();

  constructor(targetPort: number) {
    this.targetPort = targetPort;
    this.#server = createServer((client) => this.#accept(client));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.port = (this.#server.address() as { port: number }).port;
    return this;
  }

  #accept(client: Socket): void {
    this.connections += 1;
    if (this.refuse) {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection(this.targetPort, "127.0.0.1");
    const link: [Socket, Socket] = [client, upstream];
    this.#links.add(link);
    const end = (): void => {
      this.#links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (data) => { if (!this.blackhole) upstream.write(data); });
    upstream.on("data", (data) => { if (!this.blackhole) client.write(data); });
    for (const side of link) {
      side.on("error", end);
      side.on("close", () => { if (!this.blackhole) end(); });
    }
  }

  /** Abort every open connection, both ways (an RST). */
  cut(): void {
    for (const [client, upstream] of this.#links) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    this.#links.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
