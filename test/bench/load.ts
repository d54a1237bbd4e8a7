import type { KafkaClient } from "../../lib/kafka/index.ts";

/** Fills `topic` with `count` records of about `valueBytes` bytes ("<n>,<payload>"), keyed "key-<n % keys>". */
export async function loadRecords(client: KafkaClient, topic: string, count: number, valueBytes = 100, keys = 10_000): Promise<number> {
  const producer = client.producer({ idempotent: true });
  await producer.connect();
  const padding = "x".repeat(Math.max(0, valueBytes - 8));
  const batch = 10_000;
  const started = performance.now();
  const inFlight: Promise<unknown>[] = [];
  for (let from = 0; from < count; from += batch) {
    const records = [];
    for (let n = from; n < Math.min(count, from + batch); n++) {
      records.push({ topic, key: Buffer.from(`key-${n % keys}`), value: Buffer.from(`${n},${padding}`) });
    }
    inFlight.push(producer.send(records));
    if (inFlight.length >= 4) await inFlight.shift();
  }
  await Promise.all(inFlight);
  await producer.disconnect();
  return count / ((performance.now() - started) / 1000);
}
