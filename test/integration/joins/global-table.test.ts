import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

describe("global tables on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("joins a 3-partition stream with every row of a 1-partition global table, by a mapped key, and follows its updates", async () => {
    const orders = uniqueName("orders");
    const products = uniqueName("products");
    const output = uniqueName("priced");
    await kafka.createTopics([{ name: orders, partitions: 3 }, { name: products, partitions: 1 }, { name: output, partitions: 3 }]);
    await kafka.produce(products, Array.from({ length: 20 }, (_, i) => ({ key: `p${i}`, value: `price-${i}` })));
    const strings = Consumed.with(Serdes.string(), Serdes.string());
    const b = new StreamsBuilder();
    const table = b.globalTable(products, strings, Materialized.as("products"));
    b.stream(orders, strings)
      .join(table, (id, o) => o.split(":")[0] ?? null, (o, p) => `${o}|${p}`)
      .to(output, Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    expect(topology.copartitionGroups("x")).toEqual([]);
    const app = new StreamsApp(topology, {
      applicationId: uniqueName("global"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-joins-")),
      commitIntervalMs: 100,
      logger: silentLogger,
    });
    try {
      await app.start({ handleSignals: false });
      await kafka.produce(orders, Array.from({ length: 60 }, (_, i) => ({ key: `order-${i}`, value: `p${i % 20}:${i}` })));
      const records = await waitFor("60 priced orders", async () => {
        const r = await readTopic(output, { count: 60 });
        return r.length >= 60 ? r : null;
      }, 60_000);
      const values = records.map((r) => r.value!.toString()).sort();
      const expected = Array.from({ length: 60 }, (_, i) => `p${i % 20}:${i}|price-${i % 20}`).sort();
      expect(values).toEqual(expected);
      // Updates of the global topic while the app runs reach the store: later orders see them.
      await kafka.produce(products, [{ key: "p0", value: "new-price-0" }, { key: "p1", value: null }]);
      await waitFor("the update in the global store", () => {
        try {
          return app.store<string, string>("products").get("p0") === "new-price-0";
        } catch {
          return false;
        }
      }, 60_000);
      await kafka.produce(orders, [{ key: "late-0", value: "p0:late" }, { key: "late-1", value: "p1:late" }, { key: "late-2", value: "p2:late" }]);
      const later = await waitFor("62 priced orders", async () => {
        const r = await readTopic(output, { count: 62 });
        return r.length >= 62 ? r.map((x) => x.value!.toString()).filter((v) => v.includes(":late")).sort() : null;
      }, 60_000);
      expect(later).toEqual(["p0:late|new-price-0", "p2:late|price-2"]);
    } finally {
      await app.close();
    }
  });
});
