// orders.integration.test.ts: a topology tested end to end against a real broker.
import { afterAll, beforeAll, expect, test } from "vitest";
import { Consumed, Produced, Serdes, StreamsApp, StreamsBuilder } from "sluice";
import { startKafka, TestKafka, type StartedKafka } from "sluice/testing";

type Order = { id: string; total: number };

let kafka: StartedKafka;
beforeAll(async () => {
  // A container when Docker (or Podman) answers, else a broker on the local JVM.
  kafka = await startKafka();
}, 180_000);
afterAll(async () => {
  await kafka?.stop();
});

test("orders of 100 or more are routed to large-orders", async () => {
  const builder = new StreamsBuilder();
  builder
    .stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>()))
    .filter((_, order) => order !== null && order.total >= 100)
    .to("large-orders", Produced.with(Serdes.string(), Serdes.json<Order>()));
  const app = new StreamsApp(builder.build(), {
    applicationId: "orders-test",
    bootstrapServers: kafka.bootstrapServers,
    processingGuarantee: "exactly_once",
  });
  const client = new TestKafka(kafka.bootstrapServers);
  await client.createTopics([{ name: "orders", partitions: 2 }, { name: "large-orders", partitions: 2 }]);
  await app.start({ handleSignals: false });
  try {
    const orders: Order[] = [{ id: "o-1", total: 250 }, { id: "o-2", total: 20 }, { id: "o-3", total: 100 }];
    await client.produce("orders", orders.map((order) => ({ key: order.id, value: JSON.stringify(order) })));

    const expected = orders.filter((order) => order.total >= 100);
    const routed = await client.read("large-orders", { count: expected.length });
    const ids = routed.map((record) => (JSON.parse(String(record.value)) as Order).id);
    expect(ids.sort()).toEqual(expected.map((order) => order.id).sort());
  } finally {
    await app.close();
    await client.close();
  }
});
