import type { IncomingMessage, ServerResponse } from "node:http";
import { hostText, type HostInfo } from "./cluster-view.ts";

/** Set on a request one instance forwards to another, so that it is never forwarded again. */
export const FORWARDED_HEADER = "x-sluice-forwarded-from";
/** Names the instance (host:port) whose stores answered. */
export const SERVED_BY_HEADER = "x-sluice-served-by";

/** A query answer that is not 200: its status and a message saying what to do. */
export class QueryHttpError extends Error {
  override readonly name = "QueryHttpError";
  readonly status: number;
  readonly details: Record<string, unknown>;
  constructor(status: number, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

// Long enough for a busy owner; a dead one fails fast on connect anyway.
const FORWARD_TIMEOUT_MS = 10_000;

/** Asks `owner` the same GET and returns its status, body and served-by header; 502 when it cannot be reached. */
export async function askOwner(owner: HostInfo, pathAndQuery: string, self: HostInfo): Promise<{ status: number; body: string; servedBy: string }> {
  const url = `http://${owner.host}:${owner.port}${pathAndQuery}`;
  try {
    const answer = await fetch(url, { headers: { [FORWARDED_HEADER]: hostText(self) }, signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    return { status: answer.status, body: await answer.text(), servedBy: answer.headers.get(SERVED_BY_HEADER) ?? hostText(owner) };
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new QueryHttpError(502, `the owner ${hostText(owner)} could not be reached (${cause}); retry, or ask it directly`, { owner: hostText(owner) });
  }
}

/** Writes the owner's answer through unchanged. */
export function passThrough(response: ServerResponse, answer: { status: number; body: string; servedBy: string }): void {
  response.writeHead(answer.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(answer.body),
    [SERVED_BY_HEADER]: answer.servedBy,
  });
  response.end(answer.body);
}

export function wasForwarded(request: IncomingMessage): string | null {
  const from = request.headers[FORWARDED_HEADER];
  return typeof from === "string" ? from : null;
}
