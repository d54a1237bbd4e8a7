/**
 * The oracle of the crash suite, in the order of Kafka Streams' EosTestDriver.verify:
 * 1. no transaction left open: a read_committed read of the output reaches every
 *    partition's high watermark (last stable offset == high watermark);
 * 2. the application's group has no members left and its committed offsets equal the
 *    input's end offsets (everything consumed was committed);
 * 3. pass-through: the committed output equals the input partition by partition, record
 *    for record and in order; duplicates and losses are counted per value;
 * 4. running aggregates and local stores against the oracle (aggregate-check.ts), when the
 *    aggregate workload ran;
 * plus the figures: aborted records and transactions (read_uncommitted minus read_committed).
 */
import { createKafkaClient, type FetchedRecord } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { checkAggregates, type AggregateVerdict } from "./aggregate-check.ts";
import { readWholeTopic } from "./read-topic.ts";
import type { StoreDump } from "./workers.ts";

export interface VerifyOptions {
  bootstrap: string;
  applicationId: string;
  input: string;
  output: string;
  /** Under at-least-once, replays may repeat output; order is then checked on first occurrences. */
  guarantee: "exactly_once" | "at_least_once";
  timeoutMs?: number;
  /** The aggregate workload's output topic and the stores the workers printed, if it ran. */
  aggregateOutput?: string;
  storeDumps?: (StoreDump | null)[];
}

export interface Verdict {
  recordsIn: number;
  recordsOut: number;
  duplicates: number;
  /** Duplicates by the output partition they landed in (input partition = output partition). */
  duplicatesByPartition: Record<number, number>;
  losses: number;
  /** Output values that no input record carried. */
  phantoms: number;
  /** Partitions whose output is not the input in order. */
  misordered: number[];
  /** Output partitions whose read_committed read stopped short of the high watermark. */
  openTransactions: number[];
  abortedRecords: number;
  /** Runs of aborted records, counted per output partition. */
  abortedTransactions: number;
  groupMembers: number;
  /** Input partitions whose committed offset is not the end offset: "p: committed/end". */
  offsetMismatches: string[];
  aggregate: AggregateVerdict | null;
}

const text = (b: Buffer | null) => (b === null ? "<null>" : b.toString());

export async function verify(options: VerifyOptions): Promise<Verdict> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const admin = createKafkaClient({ clientId: "chaos-verifier", brokers: [options.bootstrap] }, silentLogger).admin();
  await admin.connect();
  let groupMembers: number;
  const offsetMismatches: string[] = [];
  try {
    groupMembers = (await admin.describeGroup(options.applicationId)).members.length;
    const ends = await admin.offsets(options.input);
    const committed = new Map((await admin.committedOffsets(options.applicationId, [options.input])).map((o) => [o.partition, o.offset]));
    for (const e of ends) {
      const c = committed.get(e.partition) ?? e.earliest;
      if (c !== e.latest) offsetMismatches.push(`${e.partition}: ${c}/${e.latest}`);
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }

  const input = await readWholeTopic(options.bootstrap, options.input, true, timeoutMs);
  // Uncommitted first: it learns each partition's high watermark, which the committed read
  // must reach (past any transaction still open, once the broker ends it).
  const uncommittedOut = await readWholeTopic(options.bootstrap, options.output, false, timeoutMs);
  const committedOut = await readWholeTopic(options.bootstrap, options.output, true, timeoutMs, uncommittedOut.ends);

  const expected = new Map<string, number>();
  let recordsIn = 0;
  for (const records of input.partitions.values()) {
    for (const r of records) expected.set(text(r.value), (expected.get(text(r.value)) ?? 0) + 1);
    recordsIn += records.length;
  }
  const seen = new Map<string, number>();
  let recordsOut = 0;
  for (const records of committedOut.partitions.values()) {
    for (const r of records) seen.set(text(r.value), (seen.get(text(r.value)) ?? 0) + 1);
    recordsOut += records.length;
  }
  let duplicates = 0;
  let losses = 0;
  let phantoms = 0;
  for (const [value, want] of expected) {
    const got = seen.get(value) ?? 0;
    if (got > want) duplicates += got - want;
    if (got < want) losses += want - got;
  }
  for (const [value, got] of seen) if (!expected.has(value)) phantoms += got;
  // Every copy of a value beyond what the input holds is a duplicate where it landed.
  const duplicatesByPartition: Record<number, number> = {};
  const copies = new Map<string, number>();
  for (const [partition, records] of committedOut.partitions) {
    for (const r of records) {
      const value = text(r.value);
      const n = (copies.get(value) ?? 0) + 1;
      copies.set(value, n);
      if (expected.has(value) && n > expected.get(value)!) duplicatesByPartition[partition] = (duplicatesByPartition[partition] ?? 0) + 1;
    }
  }

  const misordered: number[] = [];
  for (const [partition, records] of input.partitions) {
    const want = records.map((r) => text(r.value));
    let got = (committedOut.partitions.get(partition) ?? []).map((r) => text(r.value));
    if (options.guarantee === "at_least_once") got = firstOccurrences(got);
    if (got.length !== want.length || got.some((v, i) => v !== want[i])) misordered.push(partition);
  }

  let abortedRecords = 0;
  let abortedTransactions = 0;
  for (const [partition, records] of uncommittedOut.partitions) {
    const visible = new Set((committedOut.partitions.get(partition) ?? []).map((r) => r.offset));
    let previous: FetchedRecord | null = null;
    let previousAborted = false;
    for (const r of records) {
      const aborted = !visible.has(r.offset);
      if (aborted) {
        abortedRecords++;
        // A gap means a marker (or another producer's records) ended the previous transaction.
        if (!previousAborted || previous === null || r.offset - previous.offset > 1) abortedTransactions++;
      }
      previous = r;
      previousAborted = aborted;
    }
  }

  let aggregate: AggregateVerdict | null = null;
  if (options.aggregateOutput) {
    const aggregateEnds = (await readWholeTopic(options.bootstrap, options.aggregateOutput, false, timeoutMs)).ends;
    const aggregates = await readWholeTopic(options.bootstrap, options.aggregateOutput, true, timeoutMs, aggregateEnds);
    aggregate = checkAggregates(input, aggregates, options.storeDumps ?? []);
  }

  return {
    recordsIn, recordsOut, duplicates, duplicatesByPartition, losses, phantoms, misordered,
    openTransactions: committedOut.unfinished, abortedRecords, abortedTransactions,
    groupMembers, offsetMismatches, aggregate,
  };
}

function firstOccurrences(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => !seen.has(v) && seen.add(v));
}
