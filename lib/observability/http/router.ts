import type { IncomingMessage, ServerResponse } from "node:http";

/** Handles one request; may answer with `json()` or write to the response itself. */
export type RouteHandler = (request: IncomingMessage, response: ServerResponse, url: URL) => void | Promise<void>;

/**
 * The routes of an instance's HTTP server, by method and exact path. Health, status and
 * metrics register here; interactive queries add theirs the same way.
 *
 * @example
 *   router.get("/health/live", (_req, res) => json(res, 200, { status: "UP" }));
 */
export class Router {
  readonly #routes = new Map<string, RouteHandler>();

  get(path: string, handler: RouteHandler): this {
    return this.add("GET", path, handler);
  }

  add(method: string, path: string, handler: RouteHandler): this {
    if (!path.startsWith("/")) throw new Error(`route path "${path}" must start with "/"`);
    const key = `${method.toUpperCase()} ${path}`;
    if (this.#routes.has(key)) throw new Error(`route ${key} is already registered`);
    this.#routes.set(key, handler);
    return this;
  }

  /** Paths known under any method (to tell 404 from 405). */
  #knows(path: string): boolean {
    for (const key of this.#routes.keys()) if (key.endsWith(` ${path}`)) return true;
    return false;
  }

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://localhost");
    const handler = this.#routes.get(`${request.method ?? "GET"} ${url.pathname}`);
    if (!handler) {
      if (this.#knows(url.pathname)) json(response, 405, { error: `method ${request.method} is not allowed on ${url.pathname}` });
      else json(response, 404, { error: `no route ${url.pathname}`, routes: [...this.#routes.keys()].sort() });
      return;
    }
    try {
      await handler(request, response, url);
    } catch (error) {
      if (!response.headersSent) json(response, 500, { error: (error as Error).message });
      else response.end();
    }
  }
}

/** Writes a JSON answer. */
export function json(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  response.end(text);
}
