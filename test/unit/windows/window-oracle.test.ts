import { afterEach, describe, expect, it } from "vitest";
import { BufferConfig, Consumed, KGroupedStream, KTable, Materialized, StreamsBuilder, Suppressed } from "../../../lib/dsl/index.ts";
import { EmitStrategy, SessionWindows, SlidingWindows, TimeWindows, WindowedMetrics, WindowedSerdes } from "../../../lib/processor/index.ts";
import { Serdes, type Serde } from "../../../lib/serdes/index.ts";
import type { Windowed } from "../../../lib/state/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { expectSessions, expectSlidingWindows, expectTimeWindows, generate, windowId, type Expected, type Input } from "./oracle.ts";

const SEEDS = [1, 7, 42, 1234, 98765];
const append = Materialized.with(Serdes.string(), Serdes.string());
type Mode = "on-update" | "on-close" | "suppress";
type Build = (grouped: KGroupedStream<string, string>, emit: EmitStrategy) => KTable<Windowed<string>, string>;

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

interface Run {
  /** Each window's last value downstream (on update; a tombstone removes the window). */
  last: Map<string, string[]>;
  /** Every result in order, for the exactly-once check. */
  emitted: Array<[string, string[]]>;
  late: number;
}

/** Pipes the input in arrival order, committing every `commitEvery` records (caches flush then), and reads the output. */
function run(input: Input[], build: Build, mode: Mode, windowedSerde: Serde<Windowed<string>>, appId: string, commitEvery: number, cacheMaxBytes?: number): Run {
  const b = new StreamsBuilder();
  const grouped = b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).groupByKey();
  let table = build(grouped as KGroupedStream<string, string>, mode === "on-close" ? EmitStrategy.onWindowClose() : EmitStrategy.onWindowUpdate());
  if (mode === "suppress") table = table.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()));
  table.toStream().to("out");
  driver = new TopologyTestDriver(b.build(), { applicationId: appId, commit: "manual", ...(cacheMaxBytes === undefined ? {} : { cacheMaxBytes }) });
  const topic = driver.createInputTopic("in", Serdes.string(), Serdes.string());
  input.forEach((r, i) => {
    topic.pipeInput(r.key, r.value, r.t);
    if ((i + 1) % commitEvery === 0) driver!.commit();
  });
  driver.commit();
  const out = driver.createOutputTopic("out", windowedSerde, Serdes.string());
  const last = new Map<string, string[]>();
  const emitted: Array<[string, string[]]> = [];
  for (const { key, value } of out.readRecordsToList()) {
    const id = windowId(key!.key, key!.window.startMs, key!.window.endMs);
    const values = value === null ? [] : value.split(",").filter((v) => v !== "");
    emitted.push([id, values]);
    if (value === null) last.delete(id);
    else last.set(id, values);
  }
  return { last, emitted, late: WindowedMetrics.forTask(appId, "0_0").lateRecords };
}

function check(actual: Run, expected: Expected, mode: Mode, sortValues: boolean): void {
  const norm = (m: Map<string, string[]>) => new Map([...m].map(([k, v]) => [k, sortValues ? [...v].sort() : v]));
  expect(actual.late).toBe(expected.late);
  if (mode === "on-update") {
    expect(norm(actual.last)).toEqual(norm(expected.finalValues));
    return;
  }
  if (mode === "suppress") {
    const sorted = (list: Array<[string, string[]]>) => list.map(([id, v]) => `${id}=${(sortValues ? [...v].sort() : v).join(",")}`).sort();
    expect(sorted(actual.emitted)).toEqual(sorted(expected.suppressed));
    return;
  }
  const ids = actual.emitted.map(([id]) => id);
  expect(new Set(ids).size).toBe(ids.length); // exactly one result per window
  expect(norm(new Map(actual.emitted))).toEqual(norm(expected.closed));
}

const MODES: Mode[] = ["on-update", "on-close", "suppress"];

describe.each(SEEDS)("windows against a brute-force oracle, seed %i", (seed) => {
  it.each(MODES)("hopping time windows (size 100, advance 40, grace 50), %s", (mode) => {
    const input = generate(seed, 400, { keys: 3, step: 10, jitter: 60, lateProbability: 0.1, lateBy: 300 });
    const windows = TimeWindows.ofSizeAndGrace(100, 50).advanceBy(40);
    const build: Build = (g, emit) => g.windowedBy(windows).emitStrategy(emit).aggregate(() => "", (k, v, a) => `${a}${v},`, append);
    const actual = run(input, build, mode, WindowedSerdes.timeWindowed(Serdes.string(), 100), `hop-${seed}-${mode}`, 1 + (seed % 13));
    const expected = expectTimeWindows(input, 100, 40, 50);
    expect(expected.late).toBeGreaterThan(0);
    expect(expected.closed.size).toBeGreaterThan(10);
    check(actual, expected, mode, false);
  });

  it.each(MODES)("hopping windows whose advance does not divide the size (size 100, advance 30, grace 25), %s", (mode) => {
    const input = generate(seed + 2, 300, { keys: 2, step: 9, jitter: 50, lateProbability: 0.1, lateBy: 200 });
    const windows = TimeWindows.ofSizeAndGrace(100, 25).advanceBy(30);
    const build: Build = (g, emit) => g.windowedBy(windows).emitStrategy(emit).reduce((a, v) => `${a},${v}`, Materialized.as<string, string>(`odd-${mode}`).withValueSerde(Serdes.string()));
    const actual = run(input, build, mode, WindowedSerdes.timeWindowed(Serdes.string(), 100), `odd-${seed}-${mode}`, 1 + (seed % 11));
    check(actual, expectTimeWindows(input, 100, 30, 25), mode, false);
  });

  it.each(MODES)("hopping windows with a cache so small that it evicts between commits, %s", (mode) => {
    const input = generate(seed + 3, 300, { keys: 4, step: 10, jitter: 60, lateProbability: 0.1, lateBy: 300 });
    const windows = TimeWindows.ofSizeAndGrace(100, 50).advanceBy(50);
    const build: Build = (g, emit) => g.windowedBy(windows).emitStrategy(emit).aggregate(() => "", (k, v, a) => `${a}${v},`, append);
    const actual = run(input, build, mode, WindowedSerdes.timeWindowed(Serdes.string(), 100), `evict-${seed}-${mode}`, 25, 600);
    check(actual, expectTimeWindows(input, 100, 50, 50), mode, false);
  });

  it.each(MODES)("tumbling time windows with no grace, %s", (mode) => {
    const input = generate(seed + 1, 300, { keys: 2, step: 10, jitter: 40, lateProbability: 0.15, lateBy: 120 });
    const build: Build = (g, emit) => g.windowedBy(TimeWindows.ofSizeWithNoGrace(50)).emitStrategy(emit).aggregate(() => "", (k, v, a) => `${a}${v},`, append);
    const actual = run(input, build, mode, WindowedSerdes.timeWindowed(Serdes.string(), 50), `tumble-${seed}-${mode}`, 1);
    check(actual, expectTimeWindows(input, 50, 50, 0), mode, false);
  });

  it.each(MODES)("sliding windows (difference 50, grace 30), %s", (mode) => {
    const input = generate(seed, 300, { keys: 3, step: 7, jitter: 40, lateProbability: 0.1, lateBy: 200 });
    const build: Build = (g, emit) =>
      g.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(50, 30)).emitStrategy(emit).aggregate(() => "", (k, v, a) => `${a}${v},`, append);
    // Suppression emits a sliding window at end + grace, while the window accepts records until
    // end + grace + 1 (as in Kafka Streams): such a window is emitted again. Which updates a
    // suppression sees depends on when caches flush, so it commits after every record.
    const actual = run(input, build, mode, WindowedSerdes.timeWindowed(Serdes.string(), 50), `slide-${seed}-${mode}`, mode === "suppress" ? 1 : 1 + (seed % 7));
    const expected = expectSlidingWindows(input, 50, 30);
    expect(expected.late).toBeGreaterThan(0);
    check(actual, expected, mode, false);
  });

  it.each(MODES)("session windows (gap 30, grace 20) with merges, %s", (mode) => {
    const input = generate(seed, 300, { keys: 3, step: 12, jitter: 50, lateProbability: 0.1, lateBy: 200 });
    const build: Build = (g, emit) =>
      g
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(30, 20))
        .emitStrategy(emit)
        .aggregate(() => "", (k, v, a) => `${a}${v},`, (k, a, b) => `${a}${b}`, append);
    // A closed session can still be merged into an open one by a bridging record (as in Kafka
    // Streams), and suppression's stream time is the largest session end reaching it. It
    // sees the same changes as the oracle only when the cache flushes after each record.
    const commitEvery = mode === "suppress" ? 1 : 1 + (seed % 5);
    const actual = run(input, build, mode, WindowedSerdes.sessionWindowed(Serdes.string()), `session-${seed}-${mode}`, commitEvery);
    const expected = expectSessions(input, 30, 20);
    expect(expected.late).toBeGreaterThan(0);
    check(actual, expected, mode, true);
  });

  // The cache finds a key's sessions through its index of written entries: eviction and
  // flushes between and at commits must leave it naming exactly the dirty ones.
  it.each(["on-update", "on-close"] as Mode[])("session windows with a cache so small that it evicts between commits, %s", (mode) => {
    const input = generate(seed + 4, 300, { keys: 4, step: 12, jitter: 50, lateProbability: 0.1, lateBy: 200 });
    const build: Build = (g, emit) =>
      g
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(30, 20))
        .emitStrategy(emit)
        .aggregate(() => "", (k, v, a) => `${a}${v},`, (k, a, b) => `${a}${b}`, append);
    const actual = run(input, build, mode, WindowedSerdes.sessionWindowed(Serdes.string()), `session-evict-${seed}-${mode}`, 25, 600);
    check(actual, expectSessions(input, 30, 20), mode, true);
  });
});
