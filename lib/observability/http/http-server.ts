import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Router } from "./router.ts";

/**
 * One HTTP server per instance, serving its router. Port 0 at listen() picks a free port
 * (tests); `port` tells which one.
 */
export class HttpServer {
  readonly router = new Router();
  #server: Server | null = null;

  async listen(port: number, host?: string): Promise<void> {
    const server = (this.#server = createServer((request, response) => void this.router.handle(request, response)));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => {
        server.off("error", reject);
        resolve();
      });
    });
  }

  /** The port listened on, or null before listen(). */
  get port(): number | null {
    const address = this.#server?.address();
    return address && typeof address === "object" ? (address as AddressInfo).port : null;
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
