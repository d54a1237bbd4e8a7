/**
 * Windowed behaviour where Kafka Streams' answer is not what a brute-force model of "the
 * records in each window" gives: the operator's own observed stream time, null values, the
 * order and timestamps of updates, and when sessions and suppressions close. Expected
 * sequences marked "Kafka Streams 4.4" are what its TopologyTestDriver produces for the same
 * input (the parity suite, test/parity, checks the same against it on every run).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BufferConfig, Consumed, Materialized, StreamsBuilder, Suppressed, type KGroupedStream } from "../../../lib/dsl/index.ts";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { EmitStrategy, SessionWindows, SlidingWindows, TimeWindows, WindowedSerdes, setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { Windowed } from "../../../lib/state/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

type Grouped = KGroupedStream<string, string>;
const counts = () => Materialized.as<string, bigint>("counts").withCachingDisabled();

/** Builds `in -> [filter] -> groupByKey -> windowed count -> out`, pipes (key, value, t) and returns "key@start..end=count ts" lines. */
function run(windowed: (g: Grouped) => { toStream(): { to(topic: string): void } }, session: boolean, input: Array<[string, string | null, number]>, filterOut?: string): string[] {
  const b = new StreamsBuilder();
  let stream = b.stream("in", Consumed.with(Serdes.string(), Serdes.string()));
  if (filterOut !== undefined) stream = stream.filter((_k, v) => v !== filterOut);
  windowed(stream.groupByKey()).toStream().to("out");
  driver = new TopologyTestDriver(b.build());
  const topic = driver.createInputTopic("in", Serdes.string(), Serdes.string());
  const keySerde = (session ? WindowedSerdes.sessionWindowed(Serdes.string()) : WindowedSerdes.timeWindowed(Serdes.string(), 10)) as never;
  const out = driver.createOutputTopic<Windowed<string>, bigint>("out", keySerde, Serdes.int64());
  const lines: string[] = [];
  for (const [key, value, t] of input) {
    topic.pipeInput(key, value, t);
    for (const r of out.readRecordsToList()) lines.push(`${t}: ${r.key!.key}@${r.key!.window.startMs}..${r.key!.window.endMs}=${r.value === null ? "null" : r.value} ts ${r.timestamp}`);
  }
  return lines;
}

describe("a windowed operator keeps its own observed stream time", () => {
  const input: Array<[string, string, number]> = [
    ["k", "a", 0],
    ["k", "drop", 100_000], // filtered out upstream: must not move the window's clock
    ["k", "a", 5],
  ];

  it("time windows: a record dropped by an upstream filter does not close windows", () => {
    const lines = run((g) => g.windowedBy(TimeWindows.ofSizeWithNoGrace(10)).count(counts()), false, input, "drop");
    expect(lines).toEqual(["0: k@0..10=1 ts 0", "5: k@0..10=2 ts 5"]);
  });

  it("session windows: the same", () => {
    const lines = run((g) => g.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(50)).count(counts()), true, input, "drop");
    expect(lines).toEqual(["0: k@0..0=1 ts 0", "5: k@0..0=null ts 0", "5: k@0..5=2 ts 5"]);
  });

  it("sliding windows: the same", () => {
    const lines = run((g) => g.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(10)).count(counts()), false, input, "drop");
    // Kafka Streams 4.4: the window after the first record, then the shared early window [0, 10].
    expect(lines).toEqual(["0: k@0..10=1 ts 0", "5: k@1..11=1 ts 5", "5: k@0..10=2 ts 5"]);
  });
});

describe("null values", () => {
  const input: Array<[string, string | null, number]> = [
    ["k", "a", 1],
    ["k", null, 2],
  ];

  it("time and session windows aggregate them (count counts a null value)", () => {
    expect(run((g) => g.windowedBy(TimeWindows.ofSizeWithNoGrace(10)).count(counts()), false, input)).toEqual(["1: k@0..10=1 ts 1", "2: k@0..10=2 ts 2"]);
    expect(run((g) => g.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(10)).count(counts()), true, input)).toEqual([
      "1: k@1..1=1 ts 1",
      "2: k@1..1=null ts 1",
      "2: k@1..2=2 ts 2",
    ]);
  });

  it("sliding windows skip them and count them as dropped", () => {
    expect(run((g) => g.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(10)).count(counts()), false, input)).toEqual(["1: k@0..10=1 ts 1"]);
    expect(driver!.droppedRecords).toBe(1);
  });
});

describe("results and their timestamps", () => {
  it("a hopping window's result carries the largest timestamp of its records", () => {
    const lines = run((g) => g.windowedBy(TimeWindows.ofSizeAndGrace(10, 20).advanceBy(5)).count(counts()), false, [
      ["k", "a", 8],
      ["k", "b", 3],
    ]);
    expect(lines).toEqual(["8: k@0..10=1 ts 8", "8: k@5..15=1 ts 8", "3: k@0..10=2 ts 8"]);
  });

  it("sliding windows update and create windows in Kafka Streams' order (Kafka Streams 4.4)", () => {
    const lines = run((g) => g.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 20)).count(counts()), false, [
      ["k", "v", 15],
      ["k", "v", 5],
      ["k", "v", 12],
      ["k", "v", 30],
      ["k", "v", 21],
    ]);
    expect(lines).toEqual([
      "15: k@5..15=1 ts 15",
      "5: k@5..15=2 ts 15",
      "5: k@6..16=1 ts 15",
      "5: k@0..10=1 ts 5",
      "12: k@6..16=2 ts 15",
      "12: k@5..15=3 ts 15",
      "12: k@2..12=2 ts 12",
      "12: k@13..23=1 ts 15",
      "30: k@20..30=1 ts 30",
      "21: k@20..30=2 ts 30",
      "21: k@13..23=2 ts 21",
      "21: k@16..26=1 ts 21",
      "21: k@11..21=3 ts 21",
      "21: k@22..32=1 ts 30",
    ]);
  });

  it("sessions close at end + gap + grace; a record inside a session re-emits it; stragglers past that are dropped (Kafka Streams 4.4)", () => {
    const lines = run((g) => g.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(10)).count(counts()), true, [
      ["k", "v", 0],
      ["k", "v", 5],
      ["k", "v", 30],
      ["k", "v", 12], // would merge into [0, 12]: closed, since 12 + 10 < 30
      ["k", "v", 18],
      ["k", "v", 41],
      ["k", "v", 20], // would merge into [20, 30]: closed, since 30 + 10 < 41
    ]);
    expect(lines).toEqual(["0: k@0..0=1 ts 0", "5: k@0..0=null ts 0", "5: k@0..5=2 ts 5", "30: k@30..30=1 ts 30", "41: k@41..41=1 ts 41"]);
    expect(driver!.droppedRecords).toBe(3);
  });

  it("a merge sends each removed session's tombstone with that session's own end", () => {
    const lines = run((g) => g.windowedBy(SessionWindows.ofInactivityGapAndGrace(10, 100)).count(counts()), true, [
      ["k", "v", 100],
      ["k", "v", 120],
      ["k", "v", 110],
    ]);
    expect(lines).toEqual(["100: k@100..100=1 ts 100", "120: k@120..120=1 ts 120", "110: k@100..100=null ts 100", "110: k@120..120=null ts 120", "110: k@100..120=3 ts 120"]);
  });

  it("a hopping record late for two windows counts as dropped once per window missed", () => {
    run((g) => g.windowedBy(TimeWindows.ofSizeWithNoGrace(10).advanceBy(5)).count(counts()), false, [
      ["k", "v", 100],
      ["k", "v", 7], // in [0, 10) and [5, 15): both closed
    ]);
    expect(driver!.droppedRecords).toBe(2);
  });
});

describe("suppress(untilWindowCloses) closes as Kafka Streams' suppression does", () => {
  function suppressed(windows: SessionWindows | SlidingWindows, session: boolean, input: Array<[string, string, number]>): string[] {
    const untilClosed = Suppressed.untilWindowCloses(BufferConfig.unbounded());
    return run((g) => (windows instanceof SessionWindows ? g.windowedBy(windows) : g.windowedBy(windows)).count(counts()).suppress(untilClosed), session, input);
  }

  it("a session at end + gap + grace", () => {
    const lines = suppressed(SessionWindows.ofInactivityGapAndGrace(10, 5), true, [
      ["k", "v", 0],
      ["j", "v", 14],
      ["j", "v", 15], // 0 + 10 + 5
    ]);
    expect(lines).toEqual(["15: k@0..0=1 ts 0"]);
  });

  it("a sliding window at end + grace (one ms before the window stops accepting records)", () => {
    const lines = suppressed(SlidingWindows.ofTimeDifferenceAndGrace(10, 5), false, [
      ["k", "v", 10],
      ["j", "v", 14],
      ["j", "v", 15], // [0, 10] ends at 10: 10 + 5
    ]);
    expect(lines).toEqual(["15: k@0..10=1 ts 10"]);
  });
});

describe("headers of windowed results (as in Kafka Streams)", () => {
  /** Pipes k@1 (seq 1), k@2 (seq 2), j@100 (seq 3) and returns each result's window start, value and `seq` header. */
  function seqHeaders(build: (g: Grouped) => { toStream(): { to(topic: string): void } }): string[] {
    const b = new StreamsBuilder();
    build(b.stream("in", Consumed.with(Serdes.string(), Serdes.string())).groupByKey()).toStream().to("out");
    driver = new TopologyTestDriver(b.build());
    const topic = driver.createInputTopic("in", Serdes.string(), Serdes.string());
    const out = driver.createOutputTopic<Windowed<string>, bigint>("out", WindowedSerdes.timeWindowed(Serdes.string(), 10) as never, Serdes.int64());
    topic.pipeInput("k", "v", 1, { seq: "1" });
    topic.pipeInput("k", "v", 2, { seq: "2" });
    topic.pipeInput("j", "v", 100, { seq: "3" });
    return out.readRecordsToList().map((r) => `${r.key!.key}@${r.key!.window.startMs}=${r.value} seq ${String(r.headers.seq)}`);
  }
  const tumbling = TimeWindows.ofSizeWithNoGrace(10);

  it("on update, with and without a cache: the headers of the record that made the change", () => {
    const expected = ["k@0=1 seq 1", "k@0=2 seq 2", "j@100=1 seq 3"];
    expect(seqHeaders((g) => g.windowedBy(tumbling).count())).toEqual(expected);
    driver!.close();
    expect(seqHeaders((g) => g.windowedBy(tumbling).count(counts()))).toEqual(expected);
  });

  it("on close: the headers of the record that closed the window", () => {
    expect(seqHeaders((g) => g.windowedBy(tumbling).emitStrategy(EmitStrategy.onWindowClose()).count())).toEqual(["k@0=2 seq 3"]);
  });

  it("suppressed: the headers of the last change the suppression held", () => {
    expect(seqHeaders((g) => g.windowedBy(tumbling).count().suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded())))).toEqual(["k@0=2 seq 2"]);
  });
});
