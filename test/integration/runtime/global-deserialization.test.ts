import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { DEAD_LETTER_HEADERS, PoisonRecordError, type ExceptionHandlerConfig } from "../../../lib/errors/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

// A global table's records go through the configured deserialization handler, while it
// catches up before the start and while it follows its topic afterwards, as a task's do.

type Price = { price: number };
const silent = { warn() {}, error() {} };

describe("global-table records that cannot be deserialized", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  // By default offset 2 of the table's only partition is not JSON.
  const withPoison = [
    { key: "p0", value: JSON.stringify({ price: 10 }) },
    { key: "p1", value: JSON.stringify({ price: 11 }) },
    { key: "p2", value: "not json {" },
    { key: "p3", value: JSON.stringify({ price: 13 }) },
  ];

  async function setUp(handlers: ExceptionHandlerConfig, initial = withPoison) {
    const products = uniqueName("products");
    const orders = uniqueName("orders");
    const output = uniqueName("priced");
    await kafka.createTopics([{ name: products, partitions: 1 }, { name: orders, partitions: 1 }, { name: output, partitions: 1 }]);
    await kafka.produce(products, initial);
    const b = new StreamsBuilder();
    const table = b.globalTable(products, Consumed.with(Serdes.string(), Serdes.json<Price>()), Materialized.as("prices"));
    b.stream(orders, Consumed.with(Serdes.string(), Serdes.string()))
      .join(table, (_k, product) => product, (product, p) => `${product}=${p.price}`)
      .to(output, Produced.with(Serdes.string(), Serdes.string()));
    const app = new StreamsApp(b.build(), {
      applicationId: uniqueName("global-poison"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-global-poison-")),
      commitIntervalMs: 100,
      exceptionHandlers: { ...handlers, logger: silent },
      logger: silentLogger,
      // The test inspects the ERROR state; the default policy would end the test process.
      uncaughtExceptionHandler: () => "SHUTDOWN_CLIENT",
    });
    return { app, products, orders, output };
  }

  it('"fail" (the default) stops the start, naming topic, partition and offset', async () => {
    const { app, products } = await setUp({});
    const error = await app.start({ handleSignals: false }).then(() => null, (e: unknown) => e);
    try {
      expect(error).toBeInstanceOf(PoisonRecordError);
      expect((error as Error).message).toContain(`topic "${products}" partition 0 offset 2`);
      await waitFor("the app in ERROR", () => app.state === "ERROR");
    } finally {
      await app.close();
    }
  });

  it('"fail" on a record arriving after the start moves the app to ERROR, naming it', async () => {
    const { app, products } = await setUp({}, [{ key: "p0", value: JSON.stringify({ price: 10 }) }]);
    try {
      await app.start({ handleSignals: false });
      await waitFor("the global store caught up", () => app.store<string, Price>("prices").get("p0")?.price === 10);
      await kafka.produce(products, [{ key: "p1", value: "{ broken" }]);
      await waitFor("the app in ERROR", () => app.state === "ERROR");
      expect(app.error).toBeInstanceOf(PoisonRecordError);
      expect(app.error!.message).toContain(`topic "${products}" partition 0 offset 1`);
    } finally {
      await app.close();
    }
  });

  it('"continue" skips the record: the table holds the others and the join uses them', async () => {
    const { app, orders, output } = await setUp({ deserialization: "continue" });
    try {
      await app.start({ handleSignals: false });
      const prices = app.store<string, Price>("prices");
      expect(["p0", "p1", "p2", "p3"].map((k) => prices.get(k)?.price ?? null)).toEqual([10, 11, null, 13]);
      await kafka.produce(orders, ["p0", "p2", "p3"].map((p, i) => ({ key: `o${i}`, value: p })));
      const joined = await readTopic(output, { count: 2 });
      expect(joined.map((r) => r.value!.toString())).toEqual(["p0=10", "p3=13"]);
    } finally {
      await app.close();
    }
  });

  it("a dead-letter topic receives the raw record with headers naming it, before and after the start", async () => {
    const deadLetters = uniqueName("dead-letters");
    await kafka.createTopics([{ name: deadLetters, partitions: 1 }]);
    const { app, products } = await setUp({ deserialization: { deadLetterTopic: deadLetters } });
    try {
      await app.start({ handleSignals: false });
      expect(app.store<string, Price>("prices").get("p3")?.price).toBe(13);
      await kafka.produce(products, [{ key: "p4", value: "]" }, { key: "p5", value: JSON.stringify({ price: 15 }) }]);
      await waitFor("the record after the poison applied", () => app.store<string, Price>("prices").get("p5")?.price === 15);
      const letters = await readTopic(deadLetters, { count: 2 });
      expect(letters.map((r) => [r.key!.toString(), r.value!.toString()])).toEqual([["p2", "not json {"], ["p4", "]"]]);
      expect(letters.map((r) => [r.headers[DEAD_LETTER_HEADERS.topic]!.toString(), r.headers[DEAD_LETTER_HEADERS.partition]!.toString(), r.headers[DEAD_LETTER_HEADERS.offset]!.toString()])).toEqual([
        [products, "0", "2"],
        [products, "0", "4"],
      ]);
    } finally {
      await app.close();
    }
  });
});
