/**
 * The service image (Dockerfile, docker/build-image.sh) runs a real service as the chart
 * runs it: the orders service, started with the chart's default command, as uid 1000, with a
 * read-only root file system, /tmp and the state directory as volumes, on the host's network
 * (the daemon here has no bridge) against this run's broker.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestKafka } from "../../../lib/testing/index.ts";
import { orderGenerator } from "../../../services/orders/generator.ts";
import { LARGE_ORDER_TOTAL, type Order, type PricedOrder } from "../../../services/orders/topology.ts";
import { freePorts } from "../../../lib/testing/broker/process.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";
import { buildServiceImage, Container, docker, SERVICE_IMAGE } from "./container.ts";

// The chart's default command for service "orders" (templates/statefulset.yaml).
const CHART_COMMAND = ["node", "services/orders/main.ts"];
// The chart's default terminationGracePeriodSeconds (values.yaml).
const GRACE_SECONDS = 90;
// What the chart's security context and volumes give the container.
const podLike = (volume: string) => ["--network", "host", "--read-only", "--tmpfs", "/tmp", "-v", `${volume}:/var/lib/sluice`];

/** Ready: the service's /health/ready answers 200 (the chart's readiness probe). */
const untilReady = (port: number) =>
  waitFor("the container's /health/ready to answer 200", () => fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok, () => false), 90_000);

/** What the orders service must write for `orders`, computed from the input (topology.ts's rules). */
function expectedOutput(orders: Order[]): { large: PricedOrder[]; regular: PricedOrder[] } {
  const priced = orders.filter((o) => o.items.length > 0).map((o): PricedOrder => {
    const cents = o.items.reduce((sum, i) => sum + i.quantity * i.unitPrice, 0) * 100;
    return { orderId: o.orderId, customerId: o.customerId, region: o.region, total: Math.round(cents) / 100, itemCount: o.items.reduce((n, i) => n + i.quantity, 0) };
  });
  return { large: priced.filter((p) => p.total >= LARGE_ORDER_TOTAL), regular: priced.filter((p) => p.total < LARGE_ORDER_TOTAL) };
}

const byOrderId = (a: PricedOrder, b: PricedOrder) => a.orderId.localeCompare(b.orderId);

describe("the service image", () => {
  let kafka: TestKafka;
  const cleanup: (() => Promise<unknown>)[] = [];
  beforeAll(() => {
    // Seconds when the image is current; a cold build when this file runs alone takes minutes.
    buildServiceImage();
    kafka = new TestKafka(bootstrap());
  }, 900_000);
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
    await kafka?.close();
  });

  it("runs the orders service as uid 1000 against the broker, and stops cleanly on docker stop", async () => {
    const topics = { orders: uniqueName("orders"), large: uniqueName("orders-large"), regular: uniqueName("orders-regular") };
    await kafka.createTopics([{ name: topics.orders, partitions: 2 }, { name: topics.large, partitions: 1 }, { name: topics.regular, partitions: 1 }]);
    const volume = await docker("volume", "create", uniqueName("sluice-state"));
    cleanup.push(() => docker("volume", "rm", "-f", volume));
    const [httpPort] = (await freePorts(1)) as [number];
    const env = {
      HTTP_PORT: String(httpPort),
      KAFKA_BOOTSTRAP_SERVERS: bootstrap(),
      APPLICATION_ID: uniqueName("orders-image"),
      PROCESSING_GUARANTEE: "exactly_once",
      ORDERS_TOPIC: topics.orders,
      LARGE_TOPIC: topics.large,
      REGULAR_TOPIC: topics.regular,
      DEAD_LETTER_TOPIC: uniqueName("orders-dead-letters"),
    };
    const [entrypoint, ...args] = CHART_COMMAND;
    const container = await Container.start(uniqueName("orders-image"), [
      ...podLike(volume),
      ...Object.entries(env).flatMap(([name, value]) => ["-e", `${name}=${value}`]),
      "--entrypoint", entrypoint!, SERVICE_IMAGE, ...args,
    ]);
    cleanup.push(() => container.remove());

    await untilReady(httpPort);
    const main = await container.mainProcess();
    expect(main.command).toEqual(CHART_COMMAND);
    expect(main.uids).toEqual([1000, 1000, 1000, 1000]);
    expect(main.gids).toEqual([1000, 1000, 1000, 1000]);

    const next = orderGenerator(7);
    const orders = Array.from({ length: 40 }, next);
    const expected = expectedOutput(orders);
    expect(expected.large.length).toBeGreaterThan(0);
    expect(expected.regular.length).toBeGreaterThan(0);
    expect(orders.length).toBeGreaterThan(expected.large.length + expected.regular.length); // some carts are empty
    await kafka.produce(topics.orders, orders.map((o) => ({ key: o.customerId, value: JSON.stringify(o) })));
    const read = async (topic: string, count: number) => {
      const records = await kafka.read(topic, { count, timeoutMs: 90_000 });
      for (const r of records) expect(r.key?.toString()).toBe((JSON.parse(r.value!.toString()) as PricedOrder).customerId);
      return records.map((r) => JSON.parse(r.value!.toString()) as PricedOrder).sort(byOrderId);
    };
    expect(await read(topics.large, expected.large.length)).toEqual(expected.large.sort(byOrderId));
    expect(await read(topics.regular, expected.regular.length)).toEqual(expected.regular.sort(byOrderId));

    // Within the grace period the service commits and closes; past it docker kills it (137).
    await container.stop(GRACE_SECONDS);
    const stopped = await container.state();
    expect(stopped).toMatchObject({ status: "exited", exitCode: 0, oomKilled: false });
    expect(container.lines.some((l) => /orders service: \w+ -> NOT_RUNNING/.test(l))).toBe(true);
  });

  it("opens a SQLite database in its state directory as uid 1000, with the better-sqlite3 binary it ships", async () => {
    const volume = await docker("volume", "create", uniqueName("sluice-state"));
    cleanup.push(() => docker("volume", "rm", "-f", volume));
    const value = uniqueName("row");
    const probe = [
      "const Database = require('better-sqlite3');",
      "const db = new Database(process.env.STATE_DIR + '/probe.db');",
      "db.exec('create table t (v text)');",
      `db.prepare('insert into t values (?)').run(${JSON.stringify(value)});`,
      "console.log(JSON.stringify({ uid: process.getuid(), node: process.version, row: db.prepare('select v from t').get().v }));",
    ].join(" ");
    const output = await docker("run", "--rm", ...podLike(volume), SERVICE_IMAGE, "-e", probe);
    expect(JSON.parse(output)).toEqual({ uid: 1000, node: process.version, row: value });
  });
});
