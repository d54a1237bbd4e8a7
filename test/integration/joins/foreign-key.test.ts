import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder, TableJoined } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

/** Orders are "<customer>:<n>"; the result table as the output topic says it is now. */
function latest(records: { key: Buffer | null; value: Buffer | null }[]): Map<string, string> {
  const table = new Map<string, string>();
  for (const r of records) {
    if (r.value === null) table.delete(r.key!.toString());
    else table.set(r.key!.toString(), r.value.toString());
  }
  return table;
}

describe("foreign-key join on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("joins tables with different partition counts; FK changes and deletes leave no stale result", async () => {
    const orders = uniqueName("orders");
    const customers = uniqueName("customers");
    const output = uniqueName("order-customer");
    await kafka.createTopics([{ name: orders, partitions: 4 }, { name: customers, partitions: 2 }, { name: output, partitions: 4 }]);
    const strings = Consumed.with(Serdes.string(), Serdes.string());
    const b = new StreamsBuilder();
    b.table(orders, strings)
      .join(b.table(customers, strings), (o) => o.split(":")[0] ?? null, (o, c) => `${o}|${c}`, TableJoined.as("oc"))
      .toStream()
      .to(output, Produced.with(Serdes.string(), Serdes.string()));
    const applicationId = uniqueName("fk");
    const app = new StreamsApp(b.build(), {
      applicationId,
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-joins-")),
      commitIntervalMs: 100,
      logger: silentLogger,
    });
    const customerIds = Array.from({ length: 8 }, (_, i) => `c${i}`);
    const orderIds = Array.from({ length: 40 }, (_, i) => `o${i}`);
    const expected = new Map<string, string>();
    const customerRows = new Map<string, string>();
    const orderRows = new Map<string, string>();
    const recompute = () => {
      expected.clear();
      for (const [id, o] of orderRows) {
        const c = customerRows.get(o.split(":")[0]!);
        if (c !== undefined) expected.set(id, `${o}|${c}`);
      }
    };
    try {
      await app.start({ handleSignals: false });
      await kafka.produce(customers, customerIds.map((c) => ({ key: c, value: `name-${c}` })));
      for (const c of customerIds) customerRows.set(c, `name-${c}`);
      await kafka.produce(orders, orderIds.map((o, i) => ({ key: o, value: `c${i % 8}:1` })));
      for (const [i, o] of orderIds.entries()) orderRows.set(o, `c${i % 8}:1`);
      recompute();
      await waitFor("every order joined", async () => latest(await readTopic(output)).size === expected.size || null, 60_000);
      // Move half of the orders to other customers, delete some orders and one customer, rename another.
      await kafka.produce(orders, orderIds.slice(0, 20).map((o, i) => ({ key: o, value: `c${(i + 3) % 8}:2` })));
      for (const [i, o] of orderIds.slice(0, 20).entries()) orderRows.set(o, `c${(i + 3) % 8}:2`);
      await kafka.produce(orders, orderIds.slice(35).map((o) => ({ key: o, value: null })));
      for (const o of orderIds.slice(35)) orderRows.delete(o);
      await kafka.produce(customers, [{ key: "c5", value: null }, { key: "c6", value: "renamed-c6" }]);
      customerRows.delete("c5");
      customerRows.set("c6", "renamed-c6");
      recompute();
      const final = await waitFor("the join of the final tables", async () => {
        const table = latest(await readTopic(output));
        return JSON.stringify([...table].sort()) === JSON.stringify([...expected].sort()) ? table : null;
      }, 60_000);
      expect(final).toEqual(expected);
      const admin = kafka as unknown as { size(topic: string): Promise<number> };
      expect(await admin.size(`${applicationId}-oc-subscription-registration-topic`)).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});
