/**
 * End-to-end latency of each system's pass-through: records are produced at a fixed rate
 * stamped with their send time (every system keeps the input timestamp on its output), and
 * a read_committed consumer takes (arrival - send time) of each output record. Verified:
 * every record sent arrives, and under exactly-once exactly once.
 */
import type { KafkaAdmin, KafkaClient } from "../../lib/kafka/index.ts";
import type { SystemName } from "./peer-workloads.ts";
import { RunnerProcess } from "./systems.ts";
import type { Verdict } from "./verify.ts";

export interface LatencyRun {
  p50: number;
  p99: number;
  verdict: Verdict;
}

export interface LatencyOptions {
  client: KafkaClient;
  admin: KafkaAdmin;
  bootstrap: string;
  system: SystemName;
  guarantee: "at_least_once" | "exactly_once";
  commitMs: number;
  partitions: number;
  ratePerSecond: number;
  seconds: number;
  stateRoot: string;
}

export async function measurePeerLatency(o: LatencyOptions): Promise<LatencyRun> {
  const applicationId = `bench-latency-${o.system}-${o.guarantee}-${Date.now()}`;
  const input = `${applicationId}-in`;
  const output = `${applicationId}-out`;
  await o.admin.createTopics([{ name: input, partitions: o.partitions }, { name: output, partitions: o.partitions }]);
  const runner = new RunnerProcess(o.system, { BOOTSTRAP: o.bootstrap, WORKLOAD: "passthrough", INPUT: input, GUARANTEE: o.guarantee, COMMIT_INTERVAL_MS: String(o.commitMs), STATE_DIR: o.stateRoot });
  const latencies: number[] = [];
  const seen = new Map<string, number>();
  const consumer = o.client.consumer({ groupId: `${applicationId}-reader`, readCommitted: true });
  try {
    await runner.run(applicationId, output);
    let assigned!: () => void;
    const ready = new Promise<void>((r) => (assigned = r));
    await consumer.connect();
    await consumer.subscribe([output], true);
    await consumer.run({
      onAssigned: () => assigned(),
      onRecords(_topic, _partition, records) {
        const now = Date.now();
        for (const r of records) {
          latencies.push(now - r.timestamp);
          const id = r.value?.toString() ?? "";
          seen.set(id, (seen.get(id) ?? 0) + 1);
        }
      },
    });
    await ready;
    const total = Math.round(o.ratePerSecond * o.seconds);
    const producer = o.client.producer({ idempotent: true });
    await producer.connect();
    // Ticks of 10 ms, each sending its share of the rate: an open loop, not paced by replies.
    const perTick = Math.max(1, Math.round(o.ratePerSecond / 100));
    const sends: Promise<unknown>[] = [];
    for (let sent = 0; sent < total; ) {
      const tick = Date.now();
      const batch = Array.from({ length: Math.min(perTick, total - sent) }, (_, i) => ({ topic: input, key: Buffer.from(`k${(sent + i) % 1000}`), value: Buffer.from(String(sent + i)), timestamp: Date.now() }));
      sends.push(producer.send(batch));
      sent += batch.length;
      await new Promise((r) => setTimeout(r, Math.max(0, 10 - (Date.now() - tick))));
    }
    await Promise.all(sends);
    await producer.disconnect();
    const deadline = Date.now() + 30_000;
    while (seen.size < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await runner.stop();
    const missing = total - Array.from({ length: total }, (_, i) => String(i)).filter((id) => seen.has(id)).length;
    const duplicates = [...seen.values()].filter((c) => c > 1).length;
    const verdict: Verdict =
      missing > 0
        ? { ok: false, detail: `${missing} of ${total} records did not arrive within 30 s` }
        : o.guarantee === "exactly_once" && duplicates > 0
          ? { ok: false, detail: `${duplicates} records arrived more than once under exactly-once` }
          : { ok: true, detail: `${total} records arrived` };
    const sorted = [...latencies].sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    return { p50: at(0.5), p99: at(0.99), verdict };
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await runner.close();
  }
}
