import { createServer } from "node:net";

/** A TCP port nobody listens on right now (the kernel's pick), for an instance's HTTP server. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port assigned"))));
    });
  });
}
