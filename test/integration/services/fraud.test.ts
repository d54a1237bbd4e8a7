import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestKafka } from "../../../lib/testing/index.ts";
import { defaultFraudConfig } from "../../../services/fraud/config.ts";
import type { Alert } from "../../../services/fraud/model.ts";
import type { CardRiskAnswer } from "../../../services/fraud/queries.ts";
import { expectedFraud, fraudInput, type FraudEvent } from "../../unit/services/fraud-oracle.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";
import { startService } from "./service-process.ts";

const HOUR = 3_600_000;

describe("the fraud service on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("runs main.ts under exactly-once: alerts equal to the brute-force ones, each once, and GET /cards/<id> serves the risk state", async () => {
    const topics = { payments: uniqueName("payments"), cards: uniqueName("cards"), customers: uniqueName("customers"), alerts: uniqueName("fraud-alerts") };
    await kafka.createTopics([
      { name: topics.payments, partitions: 3 },
      { name: topics.cards, partitions: 3 },
      { name: topics.customers, partitions: 2 },
      { name: topics.alerts, partitions: 2 },
    ]);
    const config = defaultFraudConfig(topics);
    // Stragglers stay within the velocity grace, so no window depends on which partition's stream time closed it.
    const base = Math.floor(Date.now() / HOUR) * HOUR - 3 * 24 * HOUR; // on the hour: the same windows every run
    const input = fraudInput(5, { payments: 400, maxLatenessMs: config.velocity.graceMs / 2, tableChanges: false, baseMs: base });
    const newest = Math.max(...input.map((e) => e.timestamp));
    // Flush cards on every partition, each with one payment an hour after the rest, move each
    // task's stream time past every window. Their rows carry the first time: table rows move
    // stream time too, and they are read before the payments.
    const flushCards = Array.from({ length: 12 }, (_, i) => `card-flush-${i}`);
    const flush: FraudEvent[] = [
      ...flushCards.map((card): FraudEvent => ({ topic: "cards", key: card, value: { customerId: "cust-0", homeCountry: "NL" }, timestamp: base })),
      ...flushCards.map((card, i): FraudEvent => ({
        topic: "payments",
        key: card,
        value: { paymentId: `flush-${i}`, cardId: card, amountCents: 100, country: "NL", merchant: "m0", at: newest + HOUR },
        timestamp: newest + HOUR,
      })),
    ];
    const tables = [...input, ...flush].filter((e) => e.topic !== "payments");
    const payments = [...input, ...flush].filter((e) => e.topic === "payments");
    const expected = expectedFraud([...tables, ...payments], config);
    const expectedCount = expected.velocity.size + [...expected.spikes.values()].flat().length + expected.foreign.size;
    expect(expected.velocity.size * expected.spikes.size * expected.foreign.size).toBeGreaterThan(0);

    const service = startService("fraud", {
      KAFKA_BOOTSTRAP_SERVERS: bootstrap(),
      APPLICATION_ID: uniqueName("fraud"),
      STATE_DIR: mkdtempSync(join(tmpdir(), "sluice-fraud-")),
      PAYMENTS_TOPIC: topics.payments,
      CARDS_TOPIC: topics.cards,
      CUSTOMERS_TOPIC: topics.customers,
      ALERTS_TOPIC: topics.alerts,
      HTTP_PORT: "0",
      COMMIT_INTERVAL_MS: "200",
    });
    try {
      const port = await service.port();
      const get = async (card: string) => {
        const response = await fetch(`http://localhost:${port}/cards/${card}`);
        return { status: response.status, body: response.status === 200 ? ((await response.json()) as CardRiskAnswer) : null };
      };
      const toRecord = (e: FraudEvent) => ({ key: e.key, value: e.value === null ? null : JSON.stringify(e.value), timestamp: e.timestamp });
      await kafka.produce(topics.customers, tables.filter((e) => e.topic === "customers").map(toRecord));
      await kafka.produce(topics.cards, tables.filter((e) => e.topic === "cards").map(toRecord));
      // Payments only once every card has its customer, so no payment races its card's row.
      const cardIds = [...new Set(tables.filter((e) => e.topic === "cards").map((e) => e.key))];
      await waitFor("every card joined with its customer", async () => {
        for (const card of cardIds) if ((await get(card)).body?.card?.customer == null) return false;
        return true;
      }, 60_000);
      await kafka.produce(topics.payments, payments.map(toRecord));
      const flushed = await kafka.read(topics.payments);
      const flushPartitions = new Set(flushed.filter((r) => r.key?.toString().startsWith("card-flush-")).map((r) => r.partition));
      expect(flushPartitions.size, "the flush cards must cover every partition").toBe(3);

      const risky = [...expected.counts.keys()];
      await waitFor("the risk state of every card with alerts", async () => {
        for (const card of risky) {
          const { body } = await get(card);
          if (body === null || body.risk.alerts !== Object.values(expected.counts.get(card)!).reduce((s, n) => s + n, 0)) return false;
        }
        return true;
      }, 90_000).catch(() => false); // on a time-out, the comparisons below show what differs
      const alerts = (await kafka.read(topics.alerts, { readCommitted: true })).map((r) => JSON.parse(r.value!.toString()) as Alert);

      const velocity = new Map(alerts.filter((a) => a.rule === "velocity").map((a) => [`${a.cardId}@${a.details["windowStartMs"]}`, { payments: a.details["payments"], totalCents: a.details["totalCents"] }] as const));
      expect(velocity).toEqual(expected.velocity);
      const spikes = new Map<string, string[]>();
      for (const a of alerts.filter((x) => x.rule === "spend-spike")) spikes.set(a.cardId, [...(spikes.get(a.cardId) ?? []), a.paymentId!]);
      expect(spikes).toEqual(expected.spikes);
      expect(new Set(alerts.filter((a) => a.rule === "foreign-after-charge").map((a) => a.paymentId))).toEqual(new Set(expected.foreign.keys()));
      expect(alerts).toHaveLength(expectedCount); // nothing twice under exactly-once

      for (const card of risky) {
        const { body } = await get(card);
        expect(Object.fromEntries(Object.entries(body!.risk.byRule).filter(([, n]) => n > 0)), card).toEqual(expected.counts.get(card));
      }
      expect((await get("card-flush-0")).body).toMatchObject({ cardId: "card-flush-0", risk: { alerts: 0, level: "low" }, profile: { payments: 1, totalCents: 100 } });
      expect((await get("no-such-card")).status).toBe(404);
    } finally {
      expect(await service.stop(), service.lines.join("\n")).toBe(0);
    }
  });
});
