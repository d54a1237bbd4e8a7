import { Branched, Grouped, JoinWindows, Joined, Materialized, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { SessionWindows, SlidingWindows, TimeWindows } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { advance, pipe } from "../harness/inputs.ts";
import type { Scenario } from "../harness/scenario.ts";
import { longStore, out, outLongs, outSessions, outTimeWindowed, stringStore, strings, sum, toLongs, toStrings } from "./common.ts";
import { join } from "./stream-joins.ts";
import { sessionWindowed, timeWindowed } from "./windows.ts";

/**
 * Hand-written inputs for cases the developers of lib/ asked to check against Kafka Streams:
 * each pins one rule with as few records as show it. Java twins: Requests.java.
 */
const joinedStrings = Joined.with(Serdes.string(), Serdes.string(), Serdes.string());
const grouped = Grouped.with(Serdes.string(), Serdes.string());
const minus = (a: string, b: string): string => String(Number(a) - Number(b));
/** A mapper that throws on one value, for the processing-error scenarios. */
const refuse =
  (bad: string) =>
  (v: string | null): string | null => {
    if (v === bad) throw new Error(`${bad} is refused`);
    return `L${v}`;
  };
const uncachedSource = (b: StreamsBuilder, topic: string) => b.table(topic, strings, stringStore(`${topic}-store`).withCachingDisabled());

function tableTable(b: StreamsBuilder, kind: "inner" | "left"): void {
  const left = uncachedSource(b, "left");
  const right = uncachedSource(b, "right");
  const joiner = (l: string, r: string | null): string => `${l}+${r}`;
  (kind === "inner" ? left.join(right, joiner) : left.leftJoin(right, joiner)).toStream().to("out", toStrings);
}

const TABLE_DELETES = [
  pipe("right", "a", "R1", 1),
  pipe("left", "x", null, 2), // delete of a key the left table never had
  pipe("left", "a", "L1", 3),
  pipe("left", "a", null, 4),
  pipe("right", "z", null, 5), // absent on both sides
  pipe("left", "z", null, 6),
  pipe("left", "a", "L2", 7),
  pipe("right", "a", null, 8),
];

export const requests: Scenario[] = [
  {
    name: "stream-table-inner-idling-1000",
    about: "stream-table inner join with max.task.idle.ms = 1000: c1 waits the full idle time, c2 joins at once, c3 after the last advance",
    config: { maxTaskIdleMs: 1000 },
    outputs: [out()],
    steps: [
      pipe("clicks", "u1", "c1", 10),
      pipe("users", "u1", "alice", 5),
      advance(999),
      advance(1),
      pipe("clicks", "u1", "c2", 20),
      pipe("users", "u1", "bob", 30),
      pipe("clicks", "u1", "c3", 40),
      advance(1000),
    ],
    topology(b) {
      const users = b.table("users", strings);
      b.stream("clicks", strings)
        .join(users, (c, u) => `${c}|${u}`, joinedStrings)
        .to("out", toStrings);
    },
  },
  { name: "table-table-inner-uncached-sources", about: "table-table inner join on uncached sources: deletes of absent keys", outputs: [out()], steps: TABLE_DELETES, topology: (b) => tableTable(b, "inner") },
  { name: "table-table-left-uncached-sources", about: "table-table left join on uncached sources: deletes of absent keys", outputs: [out()], steps: TABLE_DELETES, topology: (b) => tableTable(b, "left") },
  {
    name: "foreign-key-inner-newer-foreign-row",
    about: "foreign-key join whose foreign row is newer than the order: the result's timestamp",
    outputs: [out()],
    steps: [pipe("users", "u1", "alice", 500), pipe("orders", "o1", "u1|1", 100), pipe("orders", "o1", null, 200), pipe("users", "u1", "al", 600), pipe("orders", "o2", "u1|2", 50)],
    topology(b) {
      b.table("orders", strings)
        .join(b.table("users", strings), (o) => o.split("|")[0]!, (o, u) => `${o}+${u}`)
        .toStream()
        .to("out", toStrings);
    },
  },
  {
    name: "table-group-by-null-value-reduce-uncached",
    about: "KTable.groupBy whose selector gives a null value for some rows, reduce with adder and subtractor, no cache",
    outputs: [out()],
    steps: [
      pipe("in", "a1", "3", 1),
      pipe("in", "a2", "-", 2),
      pipe("in", "a1", "-", 3),
      pipe("in", "a2", "4", 4),
      pipe("in", "b1", "2", 5),
      pipe("in", "a1", "5", 6),
      pipe("in", "a2", null, 7),
      pipe("in", "b1", "-", 8),
    ],
    topology(b) {
      b.table("in", strings)
        // The DSL's types say values are never null; this selector makes some null on purpose.
        .groupBy((k, v) => [k.slice(0, 1), (v === "-" ? null : v) as string] as const, grouped)
        .reduce(sum, minus, stringStore("sums").withCachingDisabled())
        .toStream()
        .to("out", toStrings);
    },
  },
  {
    name: "count-out-of-order-uncached",
    about: "a stream count over out-of-order timestamps, no cache: the result carries the largest timestamp so far",
    outputs: [outLongs()],
    steps: [pipe("in", "k", "1", 50), pipe("in", "k", "1", 10), pipe("in", "k", "1", 30), pipe("in", "j", "1", 5), pipe("in", "k", "1", 60), pipe("in", "k", "1", 40)],
    topology(b) {
      b.stream("in", strings).groupByKey().count(longStore("counts").withCachingDisabled()).toStream().to("out", toLongs);
    },
  },
  {
    name: "table-group-by-count-out-of-order-cache-off",
    about: "a KTable.groupBy count over out-of-order timestamps with every cache off",
    config: { cacheMaxBytes: 0 },
    outputs: [outLongs()],
    steps: [pipe("in", "k1", "x", 50), pipe("in", "k2", "x", 10), pipe("in", "k1", "y", 30), pipe("in", "k3", "x", 5), pipe("in", "k2", null, 20)],
    topology(b) {
      b.table("in", strings)
        .groupBy((k, v) => [v, k] as const, grouped)
        .count()
        .toStream()
        .to("out", toLongs);
    },
  },
  {
    name: "global-table-written-by-topology",
    about: "a global table fed by the topology's own sink: the write reaches the global store after the record that made it",
    outputs: [out()],
    steps: [pipe("moves", "ann", "paris", 1), pipe("moves", "ann", "rome", 2), pipe("moves", "ann", null, 3), pipe("moves", "bob", "oslo", 4)],
    topology(b) {
      const moves = b.stream("moves", strings);
      moves.to("directory", toStrings);
      const directory = b.globalTable("directory", strings, Materialized.as<string, string>("dir").withKeySerde(Serdes.string()).withValueSerde(Serdes.string()));
      moves.join(directory, (k) => k, (now, before) => `${before}->${now}`).to("out", toStrings);
    },
  },
  {
    name: "filter-drops-far-record-before-tumbling",
    about: "tumbling windows (100, no grace) behind a filter that drops a record at t=100000: t=10 still counts",
    outputs: [outTimeWindowed(100)],
    steps: [pipe("in", "a", "1", 0), pipe("in", "a", "drop", 100_000), pipe("in", "a", "1", 10), pipe("in", "a", "1", 150)],
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeWithNoGrace(100), 100, "update", "count", { filterOut: "drop" }),
  },
  {
    name: "session-count-null-values",
    about: "session count over records with null values and non-null keys",
    outputs: [outSessions()],
    steps: [pipe("in", "a", "1", 0), pipe("in", "a", null, 5), pipe("in", "a", "1", 8), pipe("in", "b", null, 9), pipe("in", "a", null, 40)],
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapWithNoGrace(10), "update", "count"),
  },
  {
    name: "session-gap-10-small",
    about: "sessions gap 10, no grace: t=0, t=5 inside, t=30 a new one, t=12 merging or late",
    outputs: [outSessions()],
    steps: [pipe("in", "k", "1", 0), pipe("in", "k", "1", 5), pipe("in", "k", "1", 30), pipe("in", "k", "1", 12)],
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapWithNoGrace(10), "update", "count", { caching: false }),
  },
  {
    name: "hopping-result-timestamp",
    about: "hopping windows (10/5) aggregate: a result carries the largest record timestamp in its window",
    outputs: [outTimeWindowed(10, "string")],
    steps: [pipe("in", "k", "1", 8), pipe("in", "k", "2", 3), pipe("in", "k", "3", 12)],
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(10, 20).advanceBy(5), 10, "update", "concat"),
  },
  {
    name: "sliding-small-update",
    about: "sliding windows d=10 grace 20 over t=15, 5, 12, 30, 21: the updates a record makes and their timestamps",
    outputs: [outTimeWindowed(10)],
    steps: [15, 5, 12, 30, 21].map((t) => pipe("in", "k", "1", t)),
    topology: (b) => timeWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(10, 20), 10, "update", "count"),
  },
  {
    name: "sliding-small-close",
    about: "the same sliding windows emitted on close, then closed by records a few ms apart",
    outputs: [outTimeWindowed(10)],
    // Small steps: a jump past the store's retention (2 x 10 + 20 ms) would lose windows in Kafka Streams (a kept difference).
    steps: [15, 5, 12, 30, 21, 34, 38, 42, 46, 50, 54].map((t) => pipe("in", t > 30 ? "z" : "k", "1", t)),
    topology: (b) => timeWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(10, 20), 10, "close", "count"),
  },
  ...(["left", "outer", "inner"] as const).map(
    (kind): Scenario => ({
      name: `stream-stream-${kind}-small`,
      about: `stream-stream ${kind} join (10 ms, grace 5): null results of equal timestamps, an out-of-order record past its window, a record older than window + grace`,
      outputs: [out()],
      steps: [pipe("left", "k", "L0", 0), pipe("right", "k2", "R0", 0), pipe("left", "k3", "L1", 20), pipe("left", "k4", "L2", 8), pipe("right", "k3", "R1", 18), pipe("left", "k3", "L3", 2), pipe("right", "k3", "R2", 30)],
      topology: (b) => join(b, kind, JoinWindows.ofTimeDifferenceAndGrace(10, 5)),
    }),
  ),
  {
    name: "processing-error-continue-after-cache",
    about: "processing errors set to continue: a mapValues behind a cached count throws on one count; only that record is dropped",
    config: { processingErrors: "continue" },
    outputs: [out()],
    steps: ["a", "b", "a", "a", "b", "a"].map((k, i) => pipe("in", k, "1", i * 10)),
    topology(b) {
      b.stream("in", strings)
        .groupByKey()
        .count()
        .toStream()
        .mapValues((n) => {
          if (n === 2n) throw new Error("two is refused");
          return `count ${n}`;
        })
        .to("out", toStrings);
    },
  },
  {
    name: "processing-error-continue-in-branch",
    about: "processing errors set to continue: a split branch that throws on one record; later records and the other branch flow",
    config: { processingErrors: "continue" },
    outputs: [out("left"), out("right")],
    steps: ["1", "2", "3", "4", "5", "6"].map((v, i) => pipe("in", "k", v, i)),
    topology(b) {
      b.stream("in", strings)
        .split()
        .branch((_k, v) => Number(v) % 2 === 1, Branched.withConsumer((s) => s.mapValues(refuse("3")).to("left", toStrings)))
        .defaultBranch(Branched.withConsumer((s) => s.to("right", toStrings)));
    },
  },
  {
    name: "processing-error-continue-sibling",
    about: "processing errors set to continue: of two children of one stream, the first throws on a record; the second still gets it",
    config: { processingErrors: "continue" },
    outputs: [out("left"), out("right")],
    steps: ["1", "2", "3"].map((v, i) => pipe("in", "k", v, i)),
    topology(b) {
      const stream = b.stream("in", strings);
      stream.mapValues(refuse("2")).to("left", toStrings);
      stream.mapValues((v): string | null => `R${v}`).to("right", toStrings);
    },
  },
];
