/**
 * "Ready" for a test broker means what a test needs: an admin client connects and describes
 * the cluster, and the cluster lists a broker. It goes through the project's Kafka boundary,
 * the only module allowed to import the client library.
 */
import { createKafkaClient } from "../../kafka/index.ts";
import { silentLogger } from "../../observability/index.ts";
import { canConnect, sleep } from "./process.ts";

/** The number of brokers the cluster at `bootstrap` ("host:port[,host:port]") reports; throws when it cannot be described. */
export async function describeBrokers(bootstrap: string): Promise<number> {
  const brokers = bootstrap.split(",").map((b) => b.trim()).filter(Boolean);
  // Silent: refused connections while the broker starts are expected, not worth a warning each.
  const admin = createKafkaClient({ clientId: "sluice-broker-check", brokers }, silentLogger).admin();
  await admin.connect();
  try {
    const cluster = await admin.describeCluster();
    return cluster.brokers.length;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

export interface ReadyWait {
  bootstrap: string;
  timeoutMs: number;
  /** Why the broker can no longer become ready (its process exited), or undefined while it still can. */
  gone?: () => string | undefined;
}

export type ReadyResult = { ready: true } | { ready: false; reason: string; gone: boolean };

/**
 * Polls until the broker is ready, it is gone, or the time is up. The port is probed with a
 * plain TCP connect first: the client library backs off for seconds between attempts on a
 * refused connection, which would add that back-off to every measured start.
 */
export async function waitUntilReady({ bootstrap, timeoutMs, gone = () => undefined }: ReadyWait): Promise<ReadyResult> {
  const deadline = Date.now() + timeoutMs;
  const [host = "127.0.0.1", portText = ""] = bootstrap.split(":");
  const port = Number(portText);
  let lastError = "the broker port never accepted a connection";
  let listening = false;
  while (Date.now() < deadline) {
    const why = gone();
    if (why) return { ready: false, reason: why, gone: true };
    if (!listening) {
      listening = await canConnect(host, port, 500);
      if (!listening) {
        await sleep(100);
        continue;
      }
    }
    const attempt = await settleWithin(describeBrokers(bootstrap), Math.max(deadline - Date.now(), 1), gone);
    if (attempt.kind === "value" && attempt.value >= 1) return { ready: true };
    if (attempt.kind === "value") lastError = "the cluster was described but listed no broker yet";
    else if (attempt.kind === "error") lastError = `describing the cluster failed: ${String(attempt.error)}`;
    await sleep(250);
  }
  const why = gone();
  if (why) return { ready: false, reason: why, gone: true };
  return { ready: false, reason: lastError, gone: false };
}

type Settled<T> = { kind: "value"; value: T } | { kind: "error"; error: unknown } | { kind: "cut" };

/** Awaits `work` but gives up after `ms` or as soon as the broker is gone, so one hung call cannot hold the wait. */
async function settleWithin<T>(work: Promise<T>, ms: number, gone: () => string | undefined): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  const cut = new Promise<Settled<T>>((resolve) => {
    const started = Date.now();
    timer = setInterval(() => {
      if (gone() || Date.now() - started >= ms) resolve({ kind: "cut" });
    }, 100);
  });
  try {
    return await Promise.race([
      work.then((value): Settled<T> => ({ kind: "value", value }), (error: unknown): Settled<T> => ({ kind: "error", error })),
      cut,
    ]);
  } finally {
    clearInterval(timer);
  }
}
