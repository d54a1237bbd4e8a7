import { BufferConfig, Materialized, Produced, Suppressed, type KStream, type KTable, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { EmitStrategy, SessionWindows, SlidingWindows, TimeWindows, WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes, type Serde } from "../../../lib/serdes/index.ts";
import type { Windowed } from "../../../lib/state/index.ts";
import { events, interleave, pipe } from "../harness/inputs.ts";
import type { Scenario } from "../harness/scenario.ts";
import type { Step } from "../harness/exchange.ts";
import { groupedStrings, outSessions, outTimeWindowed, stringStore, strings, sum, withHeaders } from "./common.ts";

/** How results leave the windowed aggregation: every update, emitStrategy(onWindowClose), or suppress(untilWindowCloses). */
export type Emit = "update" | "close" | "suppress";
/** count(), reduce(sum) or aggregate(concatenate). */
export type Op = "count" | "sum" | "concat";

const SIZE = 1000;
const KEYS = ["a", "b"];

interface InputOptions extends Partial<Parameters<typeof events>[0]> {
  /** How far after the last record the closing record comes. Default 10 s. */
  readonly closeAfterMs?: number;
}

/**
 * Out-of-order records over a few windows, with stragglers both within and beyond grace, and
 * at the end one record far ahead (key "z") that closes every window still open.
 */
export function windowInput(seed: number, { closeAfterMs = 10_000, ...extra }: InputOptions = {}): Step[] {
  const steps = events({ seed, topic: "in", count: 45, keys: KEYS, stepMs: 70, jitterMs: 250, lateShare: 0.15, lateByMs: 1500, ...extra });
  return [...steps, pipe("in", "z", "1", Math.max(...steps.map((s) => s.timestamp)) + closeAfterMs)];
}

interface TopologyOptions {
  /** false: the window store gets Materialized.withCachingDisabled(). */
  readonly caching?: boolean;
  /** Records with this value are filtered out in front of the window. */
  readonly filterOut?: string;
}

function source(b: StreamsBuilder, filterOut: string | undefined): KStream<string | null, string | null> {
  const stream = b.stream("in", strings);
  return filterOut === undefined ? stream : stream.filter((_k, v) => v !== filterOut);
}

const countStore = (caching: boolean) => (caching ? undefined : Materialized.as<string, bigint>("counts").withCachingDisabled());
const concat = (_k: string, v: string, agg: string): string => agg + v;

/** Suppressed or not, the windowed table goes to "out". */
function emitTo<V>(table: KTable<Windowed<string>, V>, emit: Emit, keySerde: Serde<Windowed<string>>, valueSerde: Serde<NonNullable<V>>): void {
  const result = emit === "suppress" ? table.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())) : table;
  result.toStream().to("out", Produced.with(keySerde, valueSerde));
}

/** The time or sliding windowed aggregation every such scenario runs (Windows.java: timeWindowed). */
export function timeWindowed(b: StreamsBuilder, windows: TimeWindows | SlidingWindows, size: number, emit: Emit, op: Op, { caching = true, filterOut }: TopologyOptions = {}): void {
  let windowed = source(b, filterOut).groupByKey(groupedStrings).windowedBy(windows);
  if (emit === "close") windowed = windowed.emitStrategy(EmitStrategy.onWindowClose());
  const keySerde = WindowedSerdes.timeWindowed(Serdes.string(), size);
  if (op === "count") return emitTo(windowed.count(countStore(caching)), emit, keySerde, Serdes.int64());
  emitTo(op === "sum" ? windowed.reduce(sum, stringStore()) : windowed.aggregate(() => "", concat, stringStore()), emit, keySerde, Serdes.string());
}

/** Each input record counted three times into its windows, so one record updates each window three times (Windows.java: fanOutCount). */
export function fanOutCount(b: StreamsBuilder, windows: TimeWindows, size: number): void {
  b.stream("in", strings)
    .flatMapValues((v) => [v, v, v])
    .groupByKey()
    .windowedBy(windows)
    .count()
    .toStream()
    .to("out", Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), size), Serdes.int64()));
}

/** The session windowed aggregation (Windows.java: session). */
export function sessionWindowed(b: StreamsBuilder, windows: SessionWindows, emit: Emit, op: Op, { caching = true, filterOut }: TopologyOptions = {}): void {
  let windowed = source(b, filterOut).groupByKey(groupedStrings).windowedBy(windows);
  if (emit === "close") windowed = windowed.emitStrategy(EmitStrategy.onWindowClose());
  const keySerde = WindowedSerdes.sessionWindowed(Serdes.string());
  if (op === "count") return emitTo(windowed.count(countStore(caching)), emit, keySerde, Serdes.int64());
  const merged = (_k: string, left: string, right: string): string => left + "|" + right;
  const store = caching ? stringStore() : stringStore().withCachingDisabled();
  emitTo(op === "sum" ? windowed.reduce(sum, store) : windowed.aggregate(() => "", concat, merged, store), emit, keySerde, Serdes.string());
}

const valueKind = (op: Op) => (op === "count" ? "long" : "string");

interface ScenarioOptions {
  /** The input records carry headers, and the results' headers are compared. */
  readonly headers?: boolean;
  /** false: the store gets withCachingDisabled() on both sides. */
  readonly caching?: boolean;
  /** See windowInput. */
  readonly closeAfterMs?: number;
  /** Input overrides (more keys, more records). */
  readonly input?: InputOptions;
}

function time(name: string, about: string, windows: () => TimeWindows | SlidingWindows, size: number, emit: Emit, op: Op, seed: number, { headers = false, closeAfterMs }: ScenarioOptions = {}): Scenario {
  const output = outTimeWindowed(size, valueKind(op));
  return {
    name,
    about,
    outputs: [headers ? withHeaders(output) : output],
    steps: windowInput(seed, { headers, closeAfterMs }),
    topology: (b) => timeWindowed(b, windows(), size, emit, op),
  };
}

function session(name: string, about: string, windows: () => SessionWindows, emit: Emit, op: Op, seed: number, { headers = false, caching = true, input = {} }: ScenarioOptions = {}): Scenario {
  const output = outSessions(valueKind(op));
  return {
    name,
    about,
    outputs: [headers ? withHeaders(output) : output],
    // Wider gaps between records than for time windows, so sessions both merge and close.
    steps: windowInput(seed, { stepMs: 120, jitterMs: 400, headers, ...input }),
    topology: (b) => sessionWindowed(b, windows(), emit, op, { caching }),
  };
}

/** Records that a filter drops, far ahead in time: they must not move the window's stream time. */
function withDroppedFutureRecords(seed: number): Step[] {
  const drops = [600, 1400, 2200].map((t) => pipe("in", "a", "drop", t + 5000));
  return interleave(seed, windowInput(seed + 1, { lateShare: 0 }), drops);
}

export const windows: Scenario[] = [
  time("tumbling-count-nograce-update", "tumbling windows, no grace, every update", () => TimeWindows.ofSizeWithNoGrace(SIZE), SIZE, "update", "count", 10),
  time("tumbling-count-grace-update", "tumbling windows, 400 ms grace, every update", () => TimeWindows.ofSizeAndGrace(SIZE, 400), SIZE, "update", "count", 11),
  time("tumbling-count-grace-suppress", "tumbling windows, 400 ms grace, suppress(untilWindowCloses)", () => TimeWindows.ofSizeAndGrace(SIZE, 400), SIZE, "suppress", "count", 12),
  time("tumbling-count-nograce-suppress", "tumbling windows, no grace, suppress(untilWindowCloses)", () => TimeWindows.ofSizeWithNoGrace(SIZE), SIZE, "suppress", "count", 13),
  time("tumbling-count-nograce-close", "tumbling windows, no grace, emitStrategy(onWindowClose)", () => TimeWindows.ofSizeWithNoGrace(SIZE), SIZE, "close", "count", 14),
  time("tumbling-count-grace-close", "tumbling windows, 400 ms grace, emitStrategy(onWindowClose)", () => TimeWindows.ofSizeAndGrace(SIZE, 400), SIZE, "close", "count", 15),
  time("hopping-count-nograce-update", "hopping windows (1000/300), no grace, every update", () => TimeWindows.ofSizeWithNoGrace(SIZE).advanceBy(300), SIZE, "update", "count", 16),
  time("hopping-sum-grace-update", "hopping windows (1000/300), 200 ms grace, reduce", () => TimeWindows.ofSizeAndGrace(SIZE, 200).advanceBy(300), SIZE, "update", "sum", 17),
  time("hopping-count-grace-suppress", "hopping windows (1000/250), 200 ms grace, suppress", () => TimeWindows.ofSizeAndGrace(SIZE, 200).advanceBy(250), SIZE, "suppress", "count", 18),
  time("hopping-concat-grace-close", "hopping windows (1000/300), 200 ms grace, aggregate, emit on close", () => TimeWindows.ofSizeAndGrace(SIZE, 200).advanceBy(300), SIZE, "close", "concat", 19),
  time("sliding-count-nograce-update", "sliding windows (500), no grace, every update", () => SlidingWindows.ofTimeDifferenceWithNoGrace(500), 500, "update", "count", 20),
  time("sliding-count-grace-update", "sliding windows (500), 300 ms grace, every update", () => SlidingWindows.ofTimeDifferenceAndGrace(500, 300), 500, "update", "count", 21),
  time("sliding-concat-grace-suppress", "sliding windows (500), 300 ms grace, aggregate, suppress", () => SlidingWindows.ofTimeDifferenceAndGrace(500, 300), 500, "suppress", "concat", 22),
  // The closing record comes within the store's retention (2 x 500 + 300 ms) of the last
  // windows: beyond it Kafka Streams loses them (a kept difference, docs/parity.md).
  time("sliding-count-grace-close", "sliding windows (500), 300 ms grace, emit on close", () => SlidingWindows.ofTimeDifferenceAndGrace(500, 300), 500, "close", "count", 23, { closeAfterMs: 1000 }),
  session("session-count-nograce-update-uncached", "sessions (gap 300), no grace, every update (merges send tombstones) (caching disabled: stragglers here merge into expired sessions, a kept difference with a cache)", () => SessionWindows.ofInactivityGapWithNoGrace(300), "update", "count", 30, { caching: false }),
  session("session-count-grace-update", "sessions (gap 300), 200 ms grace, every update", () => SessionWindows.ofInactivityGapAndGrace(300, 200), "update", "count", 31),
  session("session-sum-grace-suppress-uncached", "sessions (gap 300), 200 ms grace, reduce, suppress (caching disabled: stragglers here merge into expired sessions, a kept difference with a cache)", () => SessionWindows.ofInactivityGapAndGrace(300, 200), "suppress", "sum", 32, { caching: false }),
  // The cached session store finds a key's unflushed sessions through its grouping by key:
  // six keys interleaved, so every lookup has other keys' sessions beside its own. Out of
  // order but never beyond grace: a straggler past it may merge into an expired session
  // that Kafka Streams' cache still holds (a kept difference, docs/differences.md).
  session("session-concat-grace-update-six-keys", "sessions (gap 300), 200 ms grace, aggregate with merger, every update, six keys over 150 records, out of order within grace", () => SessionWindows.ofInactivityGapAndGrace(300, 200), "update", "concat", 34, { input: { keys: ["a", "b", "c", "d", "e", "f"], count: 150, stepMs: 40, jitterMs: 150, lateShare: 0 } }),
  session("session-concat-grace-close", "sessions (gap 300), 200 ms grace, aggregate with merger, emit on close", () => SessionWindows.ofInactivityGapAndGrace(300, 200), "close", "concat", 33),
  {
    name: "tumbling-count-caching-disabled",
    about: "tumbling windowed count into a store without a cache",
    outputs: [outTimeWindowed(SIZE)],
    steps: windowInput(40),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(SIZE, 300), SIZE, "update", "count", { caching: false }),
  },
  {
    name: "session-count-caching-disabled",
    about: "session count into a store without a cache: merges forward their tombstones directly",
    outputs: [outSessions()],
    steps: windowInput(41, { stepMs: 120, jitterMs: 400 }),
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(300, 100), "update", "count", { caching: false }),
  },
  {
    name: "windowed-count-null-keys-and-values",
    about: "tumbling windowed count fed null keys and null values",
    outputs: [outTimeWindowed(SIZE)],
    steps: windowInput(42, { nullKeyShare: 0.15, nullValueShare: 0.2 }),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(SIZE, 200), SIZE, "update", "count"),
  },
  {
    name: "filter-before-tumbling-update",
    about: "records a filter drops (far in the future) must not advance the window's stream time",
    outputs: [outTimeWindowed(SIZE)],
    steps: withDroppedFutureRecords(43),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(SIZE, 200), SIZE, "update", "count", { filterOut: "drop" }),
  },
  {
    name: "filter-before-tumbling-close",
    about: "emit on close behind a filter: dropped future records must not close windows",
    outputs: [outTimeWindowed(SIZE)],
    steps: withDroppedFutureRecords(44),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(SIZE, 200), SIZE, "close", "count", { filterOut: "drop" }),
  },
  {
    name: "filter-before-tumbling-suppress",
    about: "suppress behind a filter: dropped future records must not close windows",
    outputs: [outTimeWindowed(SIZE)],
    steps: withDroppedFutureRecords(45),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(SIZE, 200), SIZE, "suppress", "count", { filterOut: "drop" }),
  },
  {
    name: "filter-before-session-close",
    about: "sessions emitted on close behind a filter: dropped future records must not close sessions",
    outputs: [outSessions()],
    steps: withDroppedFutureRecords(46),
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(300, 100), "close", "count", { filterOut: "drop" }),
  },
  time("tumbling-count-update-headers", "headers of on-update windowed results", () => TimeWindows.ofSizeAndGrace(SIZE, 300), SIZE, "update", "count", 50, { headers: true }),
  time("tumbling-count-close-headers", "headers of results emitted on window close", () => TimeWindows.ofSizeAndGrace(SIZE, 300), SIZE, "close", "count", 51, { headers: true }),
  time("tumbling-sum-suppress-headers", "headers of suppressed final results", () => TimeWindows.ofSizeAndGrace(SIZE, 300), SIZE, "suppress", "sum", 52, { headers: true }),
  time("sliding-count-update-headers", "headers of sliding-window results, also of windows a record creates", () => SlidingWindows.ofTimeDifferenceAndGrace(500, 300), 500, "update", "count", 53, { headers: true }),
  time("hopping-count-update-headers", "headers of hopping-window results: a record updates two windows, each cached with its own record context", () => TimeWindows.ofSizeAndGrace(SIZE, 300).advanceBy(300), SIZE, "update", "count", 70, { headers: true }),
  session("session-count-update-headers", "headers of session results and of merge tombstones", () => SessionWindows.ofInactivityGapAndGrace(300, 200), "update", "count", 54, { headers: true }),
  {
    name: "fan-out-tumbling-count-cached",
    about: "one input record updates the same window three times: a caching window store collapses them",
    outputs: [outTimeWindowed(SIZE)],
    steps: windowInput(55),
    topology: (b) => fanOutCount(b, TimeWindows.ofSizeAndGrace(SIZE, 300), SIZE),
  },
  {
    name: "group-by-then-tumbling-suppress",
    about: "a windowed count behind a key-changing groupBy (repartition topic), suppressed",
    outputs: [outTimeWindowed(SIZE)],
    steps: windowInput(56, { keys: ["a1", "a2", "b1", "b2"] }),
    topology(b) {
      b.stream("in", strings)
        .groupBy((k) => k!.slice(0, 1), groupedStrings)
        .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, 300))
        .count()
        .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
        .toStream()
        .to("out", Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), SIZE), Serdes.int64()));
    },
  },
  {
    name: "merge-then-tumbling-close",
    about: "two topics merged into one windowed count emitted on close: stream time over both",
    outputs: [outTimeWindowed(SIZE)],
    steps: interleave(57, windowInput(58), events({ seed: 59, topic: "in2", count: 30, keys: KEYS, stepMs: 90, jitterMs: 300 })),
    topology(b) {
      b.stream("in", strings)
        .merge(b.stream("in2", strings))
        .groupByKey(groupedStrings)
        .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, 200))
        .emitStrategy(EmitStrategy.onWindowClose())
        .count()
        .toStream()
        .to("out", Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), SIZE), Serdes.int64()));
    },
  },
  {
    name: "session-concat-update-long-uncached",
    about: "session aggregate with merger, on update, over 150 records and four keys (caching disabled: stragglers here merge into expired sessions, a kept difference with a cache)",
    outputs: [outSessions("string")],
    steps: windowInput(60, { count: 150, keys: ["a", "b", "c", "d"], stepMs: 60, jitterMs: 500, lateByMs: 2000 }),
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(200, 300), "update", "concat", { caching: false }),
  },
  {
    name: "sliding-concat-update-long",
    about: "sliding aggregate on update over 150 records",
    outputs: [outTimeWindowed(400, "string")],
    steps: windowInput(61, { count: 150, keys: ["a", "b", "c"], stepMs: 40, jitterMs: 300, lateByMs: 1200 }),
    topology: (b) => timeWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(400, 250), 400, "update", "concat"),
  },
  {
    name: "hopping-count-suppress-long",
    about: "hopping windows (1000/400) suppressed, over 150 records",
    outputs: [outTimeWindowed(SIZE)],
    steps: windowInput(62, { count: 150, keys: ["a", "b", "c"], stepMs: 40, jitterMs: 400, lateByMs: 1500 }),
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(SIZE, 300).advanceBy(400), SIZE, "suppress", "count"),
  },
];
