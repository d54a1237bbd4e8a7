/**
 * The demo's one HTTP server: the page (services/demo/page), the chart and diagram
 * libraries from node_modules (no CDN), the page's JSON (`GET /api/state`, polled every
 * second) and the fraud service's own card lookup (`GET /cards/<id>`, an interactive query).
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { extname, join, resolve } from "node:path";
import { RetriableError } from "../../lib/index.ts";

const root = resolve(import.meta.dirname, "../..");
const page = join(import.meta.dirname, "page");

/** URL path -> file; nothing else is served from disk. */
const files: Record<string, string> = {
  "/": join(page, "index.html"),
  "/app.js": join(page, "app.js"),
  "/style.css": join(page, "style.css"),
  "/vendor/uPlot.iife.min.js": join(root, "node_modules/uplot/dist/uPlot.iife.min.js"),
  "/vendor/uPlot.min.css": join(root, "node_modules/uplot/dist/uPlot.min.css"),
  "/vendor/mermaid.min.js": join(root, "node_modules/mermaid/dist/mermaid.min.js"),
};

const types: Record<string, string> = { ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8" };

export interface DemoRoutes {
  state(): unknown;
  /** The card's state, null for a card the service knows nothing of; throws RetriableError while not queryable. */
  card(cardId: string): unknown;
}

export function demoServer(routes: DemoRoutes): Server {
  return createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    const json = (status: number, body: unknown) => response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
    if (request.method !== "GET") return void response.writeHead(405).end();
    try {
      if (url.pathname === "/api/state") return json(200, routes.state());
      const card = /^\/cards\/([^/]+)$/.exec(url.pathname);
      if (card) {
        const answer = routes.card(decodeURIComponent(card[1]!));
        return answer === null ? json(404, { error: `no card ${card[1]} on this instance` }) : json(200, answer);
      }
      const file = files[url.pathname];
      if (!file) return void response.writeHead(404).end();
      response.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
    } catch (error) {
      json(error instanceof RetriableError ? 503 : 500, { error: (error as Error).message });
    }
  });
}
