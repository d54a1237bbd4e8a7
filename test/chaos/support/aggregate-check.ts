/**
 * The running-aggregate part of the oracle (Kafka Streams' verifySum/verifyCnt): replaying the
 * input in partition order gives, per key, the exact aggregate after each record, so the
 * committed aggregate output must be that sequence record for record; a state restored
 * twice, skipped or rolled back wrongly shows as a mismatch. The local stores the workers
 * printed when stopped must hold each key's final aggregate.
 */
import type { FetchedRecord } from "../../../lib/kafka/index.ts";
import type { TopicRead } from "./read-topic.ts";
import type { StoreDump } from "./workers.ts";

export interface AggregateVerdict {
  records: number;
  /** Output positions that differ from the oracle, plus records missing or extra at the end. */
  mismatches: number;
  /** Partitions with any mismatch, and the first one found, for the failure message. */
  misordered: number[];
  firstMismatch: string | null;
  /** Keys whose stored aggregate is wrong, missing, extra, or claimed differently by two workers. */
  storeMismatches: number;
  storeProblems: string[];
  openTransactions: number[];
}

const text = (b: Buffer | null) => (b === null ? "<null>" : b.toString());

/** The aggregate the worker computes: "count:sum:last" over the sequence numbers of a key. */
export function step(previous: string | undefined, seq: number): string {
  const [count, sum] = (previous ?? "0:0:-1").split(":").map(Number) as [number, number];
  return `${count + 1}:${sum + seq}:${seq}`;
}

export function checkAggregates(input: TopicRead, output: TopicRead, dumps: (StoreDump | null)[]): AggregateVerdict {
  const finals = new Map<string, string>();
  const misordered: number[] = [];
  let mismatches = 0;
  let records = 0;
  let firstMismatch: string | null = null;
  for (const [partition, inRecords] of input.partitions) {
    const expected = inRecords.map((r: FetchedRecord) => {
      const key = text(r.key);
      const value = text(r.value);
      const next = step(finals.get(key), Number(value.slice(value.lastIndexOf(":") + 1)));
      finals.set(key, next);
      return `${key}=${next}`;
    });
    const got = (output.partitions.get(partition) ?? []).map((r) => `${text(r.key)}=${text(r.value)}`);
    records += got.length;
    let bad = Math.abs(got.length - expected.length);
    for (let i = 0; i < Math.min(got.length, expected.length); i++) {
      if (got[i] === expected[i]) continue;
      bad++;
      firstMismatch ??= `partition ${partition} position ${i}: got ${got[i]}, want ${expected[i]}`;
    }
    if (bad > 0) {
      misordered.push(partition);
      firstMismatch ??= `partition ${partition}: ${got.length} records, want ${expected.length}`;
    }
    mismatches += bad;
  }

  const stored = new Map<string, string>();
  const storeProblems: string[] = [];
  for (const dump of dumps) {
    if (dump === null) storeProblems.push("a worker printed no store");
    else if (dump.storeError) storeProblems.push(`a worker could not read its store: ${dump.storeError}`);
    for (const [key, value] of dump?.store ?? []) {
      const other = stored.get(key);
      if (other !== undefined && other !== value) storeProblems.push(`${key} held as ${other} and ${value}`);
      stored.set(key, value);
    }
  }
  for (const [key, want] of finals) {
    const got = stored.get(key);
    if (got !== want) storeProblems.push(`${key}: store ${got ?? "missing"}, want ${want}`);
  }
  for (const key of stored.keys()) if (!finals.has(key)) storeProblems.push(`${key}: in the store, not in the input`);

  return {
    records, mismatches, misordered, firstMismatch,
    storeMismatches: storeProblems.length, storeProblems: storeProblems.slice(0, 10),
    openTransactions: output.unfinished,
  };
}
