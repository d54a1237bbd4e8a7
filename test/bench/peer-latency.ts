/**
 * End-to-end latency of each system's pass-through: records are produced at a fixed rate
 * stamped with their send time (every system keeps the input timestamp on its output), and
 * a read_committed consumer takes (arrival - send time) of each output record. Verified:
 * every record sent arrives, and under exactly-once exactly once. Percentiles are given for
 * the whole run and for the records sent after its warm-up (the first quarter, at most 5 s):
 * a fresh process's first records also wait for its first produce requests and
 * transactions, and for code not yet optimised, which steady running does not.
 */
import type { KafkaAdmin, KafkaClient } from "../../lib/kafka/index.ts";
import type { SystemName } from "./peer-workloads.ts";
import { RunnerProcess } from "./systems.ts";
import type { Verdict } from "./verify.ts";

export interface LatencyRun {
  p50: number;
  p99: number;
  /** Over the records sent after the warm-up. */
  steadyP50: number;
  steadyP99: number;
  verdict: Verdict;
}

/** How long after the first send a record counts as steady running: a quarter of the run, at most 5 s. */
export function warmUpMs(seconds: number): number {
  return Math.min(5_000, (seconds * 1_000) / 4);
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
  const total = Math.round(o.ratePerSecond * o.seconds);
  // Indexed by the record's number (its value), so that keeping what arrived costs the
  // harness no allocation per record: a Map of millions of ids paused the reader while it
  // grew, which showed as latency of whichever system was measured.
  const latency = new Float64Array(total).fill(NaN);
  const arrivals = new Uint8Array(total);
  let unexpected = 0;
  let firstSteady = total;
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
          const id = Number(r.value?.toString());
          if (!Number.isInteger(id) || id < 0 || id >= total) {
            unexpected++;
            continue;
          }
          if (arrivals[id] === 0) latency[id] = now - r.timestamp;
          if (arrivals[id]! < 255) arrivals[id]!++;
        }
      },
    });
    await ready;
    const producer = o.client.producer({ idempotent: true });
    await producer.connect();
    // Ticks of 10 ms, each sending its share of the rate: an open loop, not paced by replies.
    const perTick = Math.max(1, Math.round(o.ratePerSecond / 100));
    const steadyFrom = Date.now() + warmUpMs(o.seconds);
    const sends: Promise<unknown>[] = [];
    for (let sent = 0; sent < total; ) {
      const tick = Date.now();
      if (tick >= steadyFrom && firstSteady === total) firstSteady = sent;
      const batch = Array.from({ length: Math.min(perTick, total - sent) }, (_, i) => ({ topic: input, key: Buffer.from(`k${(sent + i) % 1000}`), value: Buffer.from(String(sent + i)), timestamp: Date.now() }));
      sends.push(producer.send(batch));
      sent += batch.length;
      await new Promise((r) => setTimeout(r, Math.max(0, 10 - (Date.now() - tick))));
    }
    await Promise.all(sends);
    await producer.disconnect();
    const arrived = () => arrivals.reduce((n, count) => n + (count > 0 ? 1 : 0), 0);
    const deadline = Date.now() + 30_000;
    while (arrived() < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await runner.stop();
    const missing = total - arrived();
    const duplicates = arrivals.reduce((n, count) => n + (count > 1 ? 1 : 0), 0);
    const verdict: Verdict =
      missing > 0
        ? { ok: false, detail: `${missing} of ${total} records did not arrive within 30 s` }
        : unexpected > 0
          ? { ok: false, detail: `${unexpected} records arrived that were never sent` }
          : o.guarantee === "exactly_once" && duplicates > 0
            ? { ok: false, detail: `${duplicates} records arrived more than once under exactly-once` }
            : { ok: true, detail: `${total} records arrived` };
    // The first arrival of each record; records sent after the warm-up for the steady figures.
    const [p50, p99] = percentiles(latency, [0.5, 0.99]);
    const [steadyP50, steadyP99] = percentiles(latency.subarray(firstSteady), [0.5, 0.99]);
    return { p50: p50!, p99: p99!, steadyP50: steadyP50!, steadyP99: steadyP99!, verdict };
  } finally {
    await consumer.disconnect().catch(() => undefined);
    await runner.close();
  }
}

function percentiles(values: Float64Array, quantiles: number[]): number[] {
  const sorted = values.filter((v) => !Number.isNaN(v)).sort();
  return quantiles.map((q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN);
}
