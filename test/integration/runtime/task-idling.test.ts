import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import type { PipeStep, ResultFile, ScenarioFile } from "../../parity/harness/exchange.ts";
import { events } from "../../parity/harness/inputs.ts";
import { runJavaOracle } from "../../parity/harness/java-oracle.ts";
import { AREAS } from "../../parity/scenarios/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

// Both sides of a join are on the broker before the app starts. With task idling (default
// maxTaskIdleMs 0) the task waits until each input has records buffered or is known to be
// caught up, so it processes in timestamp order across the inputs, whatever the client
// fetched first: every run gives the same output, and it is Kafka Streams' output for that
// order (its TopologyTestDriver, through the parity suite's Java side, is the oracle).
// The parity scenarios' topologies are reused, so the topic names are theirs.

const RUNS = 5;
const BASE = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;

/** Makes timestamps distinct across topics (even and odd), so timestamp order has no ties. */
function distinct(steps: PipeStep[], parity: 0 | 1): PipeStep[] {
  return steps.map((s) => ({ ...s, timestamp: BASE + s.timestamp * 2 + parity }));
}

function streamsOf(seed: number, left: string, right: string, keys: string[], valuePrefix: [string, string]): PipeStep[][] {
  const common = { count: 40, keys, stepMs: 60, jitterMs: 150, lateShare: 0.1, lateByMs: 500, nullValueShare: 0.1 };
  return [
    distinct(events({ ...common, seed, topic: left, value: (i) => `${valuePrefix[0]}${i}` }), 0),
    distinct(events({ ...common, seed: seed + 1, topic: right, value: (i) => `${valuePrefix[1]}${i}` }), 1),
  ];
}

/** The order a task that waits for every input processes them in: always the head with the smallest timestamp. */
function timestampOrder(inputs: PipeStep[][]): PipeStep[] {
  const heads = inputs.map(() => 0);
  const order: PipeStep[] = [];
  for (;;) {
    let best = -1;
    inputs.forEach((records, i) => {
      const head = records[heads[i]!];
      if (head && (best < 0 || head.timestamp < inputs[best]![heads[best]!]!.timestamp)) best = i;
    });
    if (best < 0) return order;
    order.push(inputs[best]![heads[best]!++]!);
  }
}

const scenario = (name: string) => AREAS.flatMap((a) => a.scenarios).find((s) => s.name === name)!;
// The stream-stream and table-table scenarios both read "left" and "right": one input for both.
const leftAndRight = streamsOf(310, "left", "right", ["a", "b", "c", "d"], ["L", "R"]);
const cases = [
  { kind: "stream-table", scenario: "stream-table-inner", inputs: streamsOf(300, "orders", "users", ["u1", "u2", "u3", "u4"], ["o", "n"]) },
  { kind: "stream-stream", scenario: "stream-stream-inner-grace", inputs: leftAndRight },
  { kind: "table-table", scenario: "table-table-outer", inputs: leftAndRight },
];

type Out = { key: string | null; value: string | null; timestamp: number };

function kafkaStreamsOutputs(): Map<string, Out[]> {
  const dir = mkdtempSync(join(tmpdir(), "sluice-idling-oracle-"));
  const file: ScenarioFile = {
    scenarios: cases.map((c) => ({ name: c.scenario, config: { cacheMaxBytes: 0 }, outputs: scenario(c.scenario).outputs, steps: timestampOrder(c.inputs) })),
  };
  writeFileSync(join(dir, "scenarios.json"), JSON.stringify(file));
  runJavaOracle(join(dir, "scenarios.json"), join(dir, "results.json"));
  const results = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as ResultFile;
  return new Map(
    cases.map((c) => {
      const result = results[c.scenario]!;
      if (result.error) throw new Error(`Kafka Streams failed on ${c.scenario}: ${result.error}`);
      return [c.scenario, result.records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp }))];
    }),
  );
}

function firstDifference(actual: Out[], expected: Out[]): string {
  const show = (r: Out | undefined) => (r ? `${r.key}=${r.value}@${r.timestamp - BASE}` : "(none)");
  for (let i = 0; i < Math.max(actual.length, expected.length); i++) {
    if (JSON.stringify(actual[i]) !== JSON.stringify(expected[i])) {
      return `record #${i}: Sluice ${show(actual[i])}, Kafka Streams ${show(expected[i])} (after ${show(expected[i - 1])}; ${actual.length} vs ${expected.length} records)`;
    }
  }
  return "none";
}

describe("task idling: joins over input loaded before the start", () => {
  let kafka: TestKafka;
  let admin: KafkaAdmin;
  let oracle: Map<string, Out[]>;
  const stateRoot = mkdtempSync(join(tmpdir(), "sluice-idling-"));

  beforeAll(async () => {
    kafka = new TestKafka(bootstrap());
    admin = testClient().admin();
    await admin.connect();
    oracle = kafkaStreamsOutputs();
    // One partition each, like the driver; "out" collects every run in turn.
    await kafka.createTopics(["orders", "users", "left", "right", "out"].map((name) => ({ name, partitions: 1 })));
    const loaded = new Set<string>();
    for (const c of cases) {
      for (const records of c.inputs) {
        const topic = records[0]!.topic;
        if (loaded.has(topic)) continue;
        loaded.add(topic);
        await kafka.produce(topic, records.map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp })));
      }
    }
  });
  afterAll(async () => {
    await admin.disconnect();
    await kafka.close();
  });

  async function runOnce(name: string): Promise<Out[]> {
    const before = await kafka.size("out");
    const builder = new StreamsBuilder();
    scenario(name).topology(builder);
    const applicationId = uniqueName(`idling-${name}`);
    const stateDir = join(stateRoot, applicationId);
    mkdirSync(stateDir);
    const app = new StreamsApp(builder.build(), { applicationId, bootstrapServers: bootstrap(), stateDir, commitIntervalMs: 200, cacheMaxBytes: 0, logger: silentLogger });
    const inputs = cases.find((c) => c.scenario === name)!.inputs.map((r) => r[0]!.topic);
    try {
      await app.start({ handleSignals: false });
      await waitFor(`${name}: every input record processed and committed`, async () => {
        const committed = await admin.committedOffsets(applicationId, inputs);
        for (const topic of inputs) {
          const end = (await admin.offsets(topic))[0]!.latest;
          if ((committed.find((o) => o.topic === topic)?.offset ?? -1) < end) return false;
        }
        return true;
      }, 60_000);
    } finally {
      await app.close();
    }
    expect(app.state).toBe("NOT_RUNNING");
    const all = await kafka.read("out");
    return all.slice(before).map((r) => ({ key: r.key?.toString() ?? null, value: r.value?.toString() ?? null, timestamp: r.timestamp }));
  }

  for (const c of cases) {
    it(`${c.kind} join (${c.scenario}): ${RUNS} runs give the same output, Kafka Streams' output`, async () => {
      const expected = oracle.get(c.scenario)!;
      expect(expected.length).toBeGreaterThan(10);
      for (let run = 0; run < RUNS; run++) {
        const actual = await runOnce(c.scenario);
        expect(firstDifference(actual, expected), `run ${run + 1}`).toBe("none");
      }
    }, 300_000);
  }
});

describe("task idling: a positive maxTaskIdleMs", () => {
  it("holds a record back while another input is empty, so records written later but timestamped earlier go first", async () => {
    const kafka = new TestKafka(bootstrap());
    const [left, right, output] = [uniqueName("left"), uniqueName("right"), uniqueName("merged")];
    await kafka.createTopics([left, right, output].map((name) => ({ name, partitions: 1 })));
    const b = new StreamsBuilder();
    b.stream([left, right], Consumed.with(Serdes.string(), Serdes.string())).to(output, Produced.with(Serdes.string(), Serdes.string()));
    const app = new StreamsApp(b.build(), {
      applicationId: uniqueName("idling-wait"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-idling-")),
      commitIntervalMs: 100,
      // Far longer than the test: the left record can only go once the right one is there.
      maxTaskIdleMs: 600_000,
      logger: silentLogger,
    });
    try {
      await app.start({ handleSignals: false });
      await waitFor("the app running", () => app.state === "RUNNING");
      await kafka.produce(left, [{ key: "k", value: "left@200", timestamp: BASE + 200 }]);
      // Give the left record time to be fetched and wait in the task's buffer (not a timed assertion:
      // whether it was fetched yet or not, it must not go before the right one).
      await new Promise((r) => setTimeout(r, 1_000));
      expect(app.processedRecords).toBe(0);
      await kafka.produce(right, [{ key: "k", value: "right@100", timestamp: BASE + 100 }]);
      await waitFor("right@100 processed", () => app.processedRecords === 1);
      // Right is empty again, so left@200 waits once more, until a later right record comes.
      await kafka.produce(right, [{ key: "k", value: "right@300", timestamp: BASE + 300 }]);
      await waitFor("left@200 processed", () => app.processedRecords === 2);
      await app.close();
      const merged = await readTopic(output, { count: 2 });
      expect(merged.map((r) => r.value!.toString())).toEqual(["right@100", "left@200"]);
      // right@300 is still held back, as left is empty: closing does not force it through.
      expect(app.processedRecords).toBe(2);
    } finally {
      await app.close();
      await kafka.close();
    }
  });
});

describe("task idling under exactly-once", () => {
  it("counts a partition as caught up at its last stable offset, not behind another producer's open transaction", async () => {
    const kafka = new TestKafka(bootstrap());
    const client = testClient();
    const [left, right, output] = [uniqueName("left"), uniqueName("right"), uniqueName("merged")];
    await kafka.createTopics([left, right, output].map((name) => ({ name, partitions: 1 })));
    await kafka.produce(right, [{ key: "k", value: "right@100", timestamp: BASE + 100 }]);
    // Another producer's transaction stays open on "right" for the whole test: its records
    // sit past the last stable offset, invisible to read_committed but below the high watermark.
    const open = client.transactionalProducer({ transactionalId: uniqueName("open-txn"), transactionTimeoutMs: 120_000 });
    await open.init();
    await open.begin();
    await open.send([{ topic: right, partition: 0, key: Buffer.from("k"), value: Buffer.from("right@150"), timestamp: BASE + 150 }]);
    await kafka.produce(left, [{ key: "k", value: "left@200", timestamp: BASE + 200 }, { key: "k", value: "left@300", timestamp: BASE + 300 }]);
    const b = new StreamsBuilder();
    b.stream([left, right], Consumed.with(Serdes.string(), Serdes.string())).to(output, Produced.with(Serdes.string(), Serdes.string()));
    const app = new StreamsApp(b.build(), {
      applicationId: uniqueName("idling-eos"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-idling-")),
      processingGuarantee: "exactly_once",
      logger: silentLogger,
    });
    try {
      await app.start({ handleSignals: false });
      // Had the high watermark counted as the end, "right" would look behind until the
      // transaction ended, and the left records would wait for it.
      const merged = await readTopic(output, { count: 3, readCommitted: true, timeoutMs: 60_000 });
      expect(merged.map((r) => r.value!.toString())).toEqual(["right@100", "left@200", "left@300"]);
    } finally {
      await app.close();
      await open.abort();
      await open.close();
      await kafka.close();
    }
  });
});
