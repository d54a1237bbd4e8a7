import { Consumed, JoinWindows, Materialized, Produced, StreamsBuilder, TimestampExtractors } from "../../lib/dsl/index.ts";
import { EmitStrategy, TimeWindows, WindowedSerdes } from "../../lib/processor/index.ts";
import { Serdes } from "../../lib/serdes/index.ts";
import type { Topology } from "../../lib/topology/index.ts";

/** A benchmark workload: a topology from an input topic to an output topic, and how many outputs N inputs give. */
export interface Workload {
  name: string;
  describe: string;
  topology(input: string, output: string): Topology;
  expectedOutputs(inputs: number): number;
  /** Distinct keys in the input it reads ("key-<n % keys>"); default 10 000. */
  keys?: number;
}

// Values are "<n>,<payload>" so map/filter have real work without JSON cost dominating.
export const workloads: Workload[] = [
  {
    name: "passthrough",
    describe: "bytes in, bytes out, no deserialisation",
    topology(input, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.bytes(), Serdes.bytes())).to(output, Produced.with(Serdes.bytes(), Serdes.bytes()));
      return b.build();
    },
    expectedOutputs: (n) => n,
  },
  {
    name: "map-filter",
    describe: "string serdes, keep even n (half), upper-case the payload",
    topology(input, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.string(), Serdes.string()))
        .filter((_, v): v is string => v !== null && Number(v.slice(0, v.indexOf(","))) % 2 === 0)
        .mapValues((v) => v.toUpperCase())
        .to(output, Produced.with(Serdes.string(), Serdes.string()));
      return b.build();
    },
    expectedOutputs: (n) => Math.ceil(n / 2),
  },
  // Event time n ms (from the value), so 1M records span ~17 one-minute windows over the 10k keys.
  // The loader keeps 4 batches of 10k in flight, so batches may land ~40 s of event time out of
  // order: the 60 s grace keeps every record (a late one would make the output count fall short).
  windowedCount("windowed-count", "event time from the value; 60 s windows, 60 s grace; count per key and window on every update (no cache: one output per record)", false),
  windowedCount("windowed-count-final", "the same with emitStrategy(onWindowClose): one final count per key and closed window, from the durable buffer", true),
  ...joinWorkloads(),
  countPerKey("count-10k-keys", 10_000),
  countPerKey("count-1m-keys", 1_000_000),
];

/** groupByKey().count() into the cached, changelogged store "counts". */
function countPerKey(name: string, keys: number): Workload {
  return {
    name,
    describe: `count per key over ${keys.toLocaleString()} distinct keys, record cache on, changelogged store "counts"`,
    keys,
    topology(input, output) {
      const b = new StreamsBuilder();
      b.stream(input, Consumed.with(Serdes.string(), Serdes.bytes()))
        .groupByKey()
        .count(Materialized.as("counts"))
        .toStream()
        .to(output, Produced.with(Serdes.string(), Serdes.int64()));
      return b.build();
    },
    // The cache collapses updates of a key within a commit interval, so fewer come out.
    expectedOutputs: (n) => Math.min(n, keys),
  };
}

/**
 * Joins over the one bench input: a stream-table join where every record first upserts its
 * key's row (toTable) and then looks it up (a get, a put and a join per record), and a
 * stream-stream join of the input's two halves (n % 20 000 below / above 10 000: the same key
 * recurs 10 s of event time later on the other side, so each record has partners 10 s
 * before and after within the 15 s window).
 */
function joinWorkloads(): Workload[] {
  const strings = Consumed.with(Serdes.string(), Serdes.string());
  const out = Produced.with(Serdes.string(), Serdes.string());
  const n = (v: string) => Number(v.slice(0, v.indexOf(",")));
  return [
    {
      name: "stream-table-join",
      describe: "toTable (cached store) then join each record with its key's row: one output per record",
      topology(input, output) {
        const b = new StreamsBuilder();
        const s = b.stream(input, strings).filter((_, v): v is string => v !== null);
        const table = s.toTable(Materialized.as("bench-join-table"));
        s.join(table, (v, row) => `${n(v)}:${n(row)}`).to(output, out);
        return b.build();
      },
      expectedOutputs: (records) => records,
    },
    {
      name: "stream-stream-join",
      describe: "event time from the value; halves joined within 15 s, 60 s grace: one output per pair (~1 per record)",
      topology(input, output) {
        const b = new StreamsBuilder();
        const eventTime = TimestampExtractors.fromField((v: string) => n(v));
        const s = b.stream(input, strings.withTimestampExtractor(eventTime)).filter((_, v): v is string => v !== null);
        const left = s.filter((_, v) => n(v) % 20_000 < 10_000);
        const right = s.filter((_, v) => n(v) % 20_000 >= 10_000);
        left.join(right, (l, r) => `${n(l)}:${n(r)}`, JoinWindows.ofTimeDifferenceAndGrace(15_000, 60_000)).to(output, out);
        return b.build();
      },
      expectedOutputs: (records) => Math.max(0, records - 10_000),
    },
  ];
}

export function workload(name: string): Workload {
  const found = workloads.find((w) => w.name === name);
  if (!found) throw new Error(`unknown workload ${name}; known: ${workloads.map((w) => w.name).join(", ")}`);
  return found;
}

/** groupByKey().windowedBy(60 s, grace 60 s).count() over the bench keys ("key-<n % 10000>"). */
function windowedCount(name: string, describe: string, final: boolean): Workload {
  const size = 60_000;
  const grace = 60_000;
  return {
    name,
    describe,
    topology(input, output) {
      const b = new StreamsBuilder();
      const eventTime = TimestampExtractors.fromField((v: string) => Number(v.slice(0, v.indexOf(","))));
      const windowed = b
        .stream(input, Consumed.with(Serdes.string(), Serdes.string()).withTimestampExtractor(eventTime))
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(size, grace));
      const counts = final
        ? windowed.emitStrategy(EmitStrategy.onWindowClose()).count(Materialized.as("bench-window-counts"))
        : windowed.count(Materialized.as<string, bigint>("bench-window-counts").withCachingDisabled());
      counts.toStream().to(output, Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), size), Serdes.int64()));
      return b.build();
    },
    // On update: one per record. On close: 10k keys per window closed by the last event time n - 1
    // (each partition's stream time ends within a few records of it, far from a window's close).
    expectedOutputs: (n) => (final ? Math.max(0, Math.floor((n - 1 - grace) / size)) * 10_000 : n),
  };
}
