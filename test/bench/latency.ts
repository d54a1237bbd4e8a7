import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { KafkaClient } from "../../lib/kafka/index.ts";

export interface LatencyResult {
  sent: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * End-to-end latency of a pass-through app: records are produced at `ratePerSecond`
 * stamped with their send time, the app (its own process) copies them, and a
 * read_committed consumer takes (arrival time - send time) of each output record.
 */
export async function measureLatency(
  client: KafkaClient,
  bootstrap: string,
  options: { guarantee: string; commitIntervalMs: number; ratePerSecond: number; seconds: number; partitions: number },
): Promise<LatencyResult> {
  const admin = client.admin();
  await admin.connect();
  const run = Date.now();
  const input = `latency-in-${run}`;
  const output = `latency-out-${run}`;
  await admin.createTopics([{ name: input, partitions: options.partitions }, { name: output, partitions: options.partitions }]);
  const total = options.ratePerSecond * options.seconds;
  const app = spawn(process.execPath, [resolve(import.meta.dirname, "app-runner.ts")], {
    env: { ...process.env, KAFKA_BOOTSTRAP_SERVERS: bootstrap, WORKLOAD: "passthrough", INPUT: input, OUTPUT: output, RECORDS: String(total), GUARANTEE: options.guarantee, COMMIT_INTERVAL_MS: String(options.commitIntervalMs) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  // Listened for from the start: the app may exit (all input committed) while the reader
  // is still disconnecting, and an "exit" listened for after that never comes.
  const appExited = new Promise<true>((r) => app.once("exit", () => r(true)));
  const latencies: number[] = [];
  const consumer = client.consumer({ groupId: `latency-reader-${run}`, readCommitted: true });
  await consumer.connect();
  await consumer.subscribe([output], true);
  await consumer.run({
    onAssigned() {},
    onRecords(_topic, _partition, records) {
      const now = Date.now();
      for (const r of records) latencies.push(now - r.timestamp);
    },
  });
  // Let the app join before the clock starts, so start-up is not counted as latency.
  await new Promise((r) => setTimeout(r, 3000));
  const producer = client.producer({ idempotent: true });
  await producer.connect();
  const perTick = Math.max(1, Math.round(options.ratePerSecond / 100));
  let sent = 0;
  while (sent < total) {
    const tick = Date.now();
    const batch = Array.from({ length: Math.min(perTick, total - sent) }, (_, i) => ({
      topic: input,
      key: Buffer.from(`k${(sent + i) % 1000}`),
      value: Buffer.from("x".repeat(100)),
      timestamp: Date.now(),
    }));
    await producer.send(batch);
    sent += batch.length;
    await new Promise((r) => setTimeout(r, Math.max(0, 10 - (Date.now() - tick))));
  }
  const deadline = Date.now() + 30_000;
  while (latencies.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  await producer.disconnect();
  await consumer.disconnect();
  // The app stops once its group committed all input; it is not waited for forever.
  let timer: NodeJS.Timeout | undefined;
  const exited = await Promise.race([appExited, new Promise<false>((r) => (timer = setTimeout(() => r(false), 30_000)))]);
  clearTimeout(timer);
  if (!exited) {
    console.error(`latency run (${options.guarantee}, ${options.commitIntervalMs} ms): the app had not committed all input 30 s after the last record; stopping it`);
    app.kill("SIGKILL");
  }
  await admin.disconnect();
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { sent, received: latencies.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? NaN };
}
