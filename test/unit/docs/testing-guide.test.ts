import { afterEach, describe, expect, it } from "vitest";
import {
  Consumed,
  DEAD_LETTER_HEADERS,
  Grouped,
  Materialized,
  PoisonRecordError,
  Produced,
  Serdes,
  StreamRecord,
  StreamsBuilder,
  type Processor,
  type ProcessorContext,
  type Topology,
} from "../../../lib/index.ts";
import { TopologyTestDriver, type TopologyTestDriverOptions } from "../../../lib/testing/index.ts";

// The examples of docs/testing.md ("Testing your topology"), section by section. When one
// of these changes, change the guide with it.

type Order = { id: string; total: number };

/** Counts words per word; the topology the guide tests. */
function wordCount(): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream("lines", Consumed.with(Serdes.string(), Serdes.string()))
    .flatMapValues((line) => (line ?? "").toLowerCase().split(/\W+/).filter((word) => word !== ""))
    .groupBy((_, word) => word, Grouped.with(Serdes.string(), Serdes.string()))
    .count(Materialized.as("word-counts"))
    .toStream()
    .to("word-count-updates", Produced.with(Serdes.string(), Serdes.int64()));
  return builder.build();
}

/** Sums order totals per customer and reports every sum once a minute of wall-clock time. */
class MinuteReport implements Processor<string | null, Order | null, string, number> {
  private context!: ProcessorContext<string, number>;
  private readonly sums = new Map<string, number>();

  init(context: ProcessorContext<string, number>): void {
    this.context = context;
    context.schedule(60_000, "wall_clock_time", (now) => {
      for (const [customer, sum] of this.sums) this.context.forward(new StreamRecord(customer, sum, now));
      this.sums.clear();
    });
  }

  readonly process = (record: StreamRecord<string | null, Order | null>): void => {
    if (record.key === null || record.value === null) return; // no customer, or a tombstone
    this.sums.set(record.key, (this.sums.get(record.key) ?? 0) + record.value.total);
  };
}

function minuteReports(): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>()))
    .process(() => new MinuteReport())
    .to("order-reports", Produced.with(Serdes.string(), Serdes.double()));
  return builder.build();
}

/** Keeps orders over 100; its input is JSON, so a line that is not JSON cannot be read. */
function largeOrders(): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>()))
    .filter((_, order) => order !== null && order.total > 100)
    .to("large-orders", Produced.with(Serdes.string(), Serdes.json<Order>()));
  return builder.build();
}

/** Handler log lines are not what these tests check. */
const quiet = { warn() {}, error() {} };

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

function drive(topology: Topology, options?: TopologyTestDriverOptions): TopologyTestDriver {
  driver = new TopologyTestDriver(topology, options);
  return driver;
}

describe("docs/testing.md", () => {
  it("pipes input and reads output", () => {
    const driver = drive(wordCount());
    const lines = driver.createInputTopic("lines", Serdes.string(), Serdes.string());
    const updates = driver.createOutputTopic("word-count-updates", Serdes.string(), Serdes.int64());

    lines.pipeInput("line-1", "the cat");
    lines.pipeInput("line-2", "the hat");
    expect(updates.readKeyValuesToList()).toEqual([
      ["the", 1n],
      ["cat", 1n],
      ["the", 2n],
      ["hat", 1n],
    ]);
    expect(updates.isEmpty()).toBe(true); // reading removed them
    expect(driver.producedTopicNames()).toContain("test-app-word-counts-repartition");
  });

  it("collapses updates within one input record in the cache, unless caching is off", () => {
    const cached = drive(wordCount());
    cached.createInputTopic("lines", Serdes.string(), Serdes.string()).pipeInput("line-1", "the cat and the hat");
    const cachedUpdates = cached.createOutputTopic("word-count-updates", Serdes.string(), Serdes.int64()).readKeyValuesToList();
    cached.close();
    expect(cachedUpdates).toHaveLength(4); // "the" comes out once, as 2
    expect(cachedUpdates).toContainEqual(["the", 2n]);

    const uncached = drive(wordCount(), { cacheMaxBytes: 0 });
    uncached.createInputTopic("lines", Serdes.string(), Serdes.string()).pipeInput("line-1", "the cat and the hat");
    expect(uncached.createOutputTopic("word-count-updates", Serdes.string(), Serdes.int64()).readKeyValuesToList()).toEqual([
      ["the", 1n],
      ["cat", 1n],
      ["and", 1n],
      ["the", 2n],
      ["hat", 1n],
    ]);
  });

  it("gives records timestamps and headers, and reads them back", () => {
    const driver = drive(wordCount(), { initialWallClockMs: 1_000 });
    const lines = driver.createInputTopic("lines", Serdes.string(), Serdes.string());
    const updates = driver.createOutputTopic("word-count-updates", Serdes.string(), Serdes.int64());

    lines.pipeInput("line-1", "hello"); // stamped with the driver's wall clock: 1000
    lines.pipeRecords([{ key: "line-2", value: "hello", timestamp: 5_000, headers: { source: "test" } }]);
    const [first, second] = updates.readRecordsToList();
    expect(first).toMatchObject({ key: "hello", value: 1n, timestamp: 1_000 });
    expect(second).toMatchObject({ key: "hello", value: 2n, timestamp: 5_000 });
  });

  it("reads state stores", () => {
    const driver = drive(wordCount());
    const lines = driver.createInputTopic("lines", Serdes.string(), Serdes.string());
    lines.pipeInput("line-1", "to be or not to be");

    const counts = driver.getKeyValueStore<string, bigint>("word-counts");
    expect(counts.get("to")).toBe(2n);
    expect(counts.get("not")).toBe(1n);
    expect(counts.get("question")).toBeNull();
  });

  it("advances wall-clock time to fire punctuators", () => {
    const driver = drive(minuteReports());
    const orders = driver.createInputTopic("orders", Serdes.string(), Serdes.json<Order>());
    const reports = driver.createOutputTopic("order-reports", Serdes.string(), Serdes.double());

    orders.pipeInput("alice", { id: "o1", total: 30 });
    orders.pipeInput("alice", { id: "o2", total: 12.5 });
    expect(reports.isEmpty()).toBe(true); // nothing until a minute has passed

    driver.advanceWallClockTime(60_000);
    expect(reports.readRecord()).toMatchObject({ key: "alice", value: 42.5, timestamp: 60_000 });

    driver.advanceWallClockTime(60_000); // nothing new came in: nothing to report
    expect(reports.isEmpty()).toBe(true);
  });

  it("stops on a record it cannot read, by default", () => {
    const driver = drive(largeOrders(), { exceptionHandlers: { logger: quiet } });
    // A string serde writes bytes the topology's JSON serde cannot read.
    const raw = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    expect(() => raw.pipeInput("o1", "not json")).toThrow(PoisonRecordError);
  });

  it("skips and counts a bad record with the continue handler", () => {
    const driver = drive(largeOrders(), { exceptionHandlers: { deserialization: "continue", logger: quiet } });
    const raw = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    const orders = driver.createInputTopic("orders", Serdes.string(), Serdes.json<Order>());
    const large = driver.createOutputTopic("large-orders", Serdes.string(), Serdes.json<Order>());

    raw.pipeInput("o1", "not json");
    orders.pipeInput("o2", { id: "o2", total: 250 });
    expect(driver.droppedRecords).toBe(1);
    expect(large.readKeyValuesToList()).toEqual([["o2", { id: "o2", total: 250 }]]);
  });

  it("sends a bad record to a dead-letter topic", () => {
    const driver = drive(largeOrders(), {
      exceptionHandlers: { deserialization: { deadLetterTopic: "orders-dlq" }, logger: quiet },
    });
    const raw = driver.createInputTopic("orders", Serdes.string(), Serdes.string());
    const deadLetters = driver.createOutputTopic("orders-dlq", Serdes.string(), Serdes.string());

    raw.pipeInput("o1", "not json");
    const letter = deadLetters.readRecord();
    expect(letter.key).toBe("o1");
    expect(letter.value).toBe("not json"); // the raw bytes, as they were read
    expect(String(letter.headers[DEAD_LETTER_HEADERS.topic])).toBe("orders");
    expect(String(letter.headers[DEAD_LETTER_HEADERS.offset])).toBe("0");
    expect(String(letter.headers[DEAD_LETTER_HEADERS.message])).not.toBe("");
  });
});
