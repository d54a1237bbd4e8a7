import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { defaultFraudConfig, type FraudConfig } from "../../../services/fraud/config.ts";
import type { Alert, Card, Customer, Payment, RiskState, SpendProfile } from "../../../services/fraud/model.ts";
import { SPEND_PROFILE_STORE } from "../../../services/fraud/spend-spike.ts";
import { fraudTopology, RISK_STORE } from "../../../services/fraud/topology.ts";
import { expectedFraud, fraudInput, withFlush, type ExpectedFraud, type FraudEvent } from "./fraud-oracle.ts";
import { rng } from "../joins/oracle-helpers.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

const BASE = Date.UTC(2026, 0, 5, 9);
const MIN = 60_000;

/** Pipes the events in order through the fraud topology and returns the alerts it wrote. */
function run(config: FraudConfig, events: readonly FraudEvent[]): Alert[] {
  driver = new TopologyTestDriver(fraudTopology(config));
  const inputs = {
    payments: driver.createInputTopic(config.topics.payments, Serdes.string(), Serdes.json<Payment>()),
    cards: driver.createInputTopic(config.topics.cards, Serdes.string(), Serdes.json<Card>()),
    customers: driver.createInputTopic(config.topics.customers, Serdes.string(), Serdes.json<Customer>()),
  };
  for (const e of events) (inputs[e.topic] as { pipeInput(k: string, v: unknown, t: number): void }).pipeInput(e.key, e.value, e.timestamp);
  const alerts = driver.createOutputTopic(config.topics.alerts, Serdes.string(), Serdes.json<Alert>()).readKeyValuesToList();
  for (const [key, alert] of alerts) expect(key).toBe(alert!.cardId);
  return alerts.map(([, a]) => a!);
}

/** Compares the alerts with the brute-force expectation, rule by rule. */
function expectAlerts(alerts: Alert[], expected: ExpectedFraud): void {
  const velocity = new Map(
    alerts.filter((a) => a.rule === "velocity").map((a) => [`${a.cardId}@${a.details["windowStartMs"]}`, { payments: a.details["payments"], totalCents: a.details["totalCents"] }] as const),
  );
  expect(alerts.filter((a) => a.rule === "velocity")).toHaveLength(velocity.size); // one alert per window
  expect(velocity).toEqual(expected.velocity);

  const spikes = new Map<string, string[]>();
  for (const a of alerts.filter((x) => x.rule === "spend-spike")) spikes.set(a.cardId, [...(spikes.get(a.cardId) ?? []), a.paymentId!]);
  expect(spikes).toEqual(expected.spikes);

  const foreign = alerts.filter((a) => a.rule === "foreign-after-charge");
  expect(new Set(foreign.map((a) => a.paymentId)).size).toBe(foreign.length); // each foreign charge once
  expect(new Set(foreign.map((a) => a.paymentId))).toEqual(new Set(expected.foreign.keys()));
  for (const a of foreign) {
    // whichever partner arrived first is named, and it must be one that qualifies
    const earlier = a.details["earlier"] as { paymentId: string };
    expect(expected.foreign.get(a.paymentId!)!.partners.has(earlier.paymentId), `${a.paymentId} after ${earlier.paymentId}`).toBe(true);
  }
}

// Several full driver runs per test: a time limit for a loaded machine, not a timed assertion.
describe("the fraud service's topology", { timeout: 120_000 }, () => {
  const config = defaultFraudConfig();

  it.each([1, 2])("raises exactly the alerts computed by brute force, with card and customer updates and deletes (seed %i)", (seed) => {
    const events = withFlush(fraudInput(seed, { payments: 600, maxLatenessMs: 15 * MIN, tableChanges: true, baseMs: BASE }));
    const expected = expectedFraud(events, config);
    // the input is rich enough to exercise every rule and the skipped payments of deleted cards
    expect(expected.velocity.size).toBeGreaterThan(0);
    expect(expected.spikes.size).toBeGreaterThan(0);
    expect(expected.foreign.size).toBeGreaterThan(0);
    expect(expected.joined).toBeLessThan(events.filter((e) => e.topic === "payments").length);

    const alerts = run(config, events);
    expectAlerts(alerts, expected);

    // the queryable risk state is the alerts folded per card
    const risk = new Map(driver!.getKeyValueStore<string, RiskState>(RISK_STORE).all().map((e) => [e.key, e.value] as const));
    const counts = new Map([...risk].map(([card, r]) => [card, Object.fromEntries(Object.entries(r.byRule).filter(([, n]) => n > 0))] as const));
    expect(counts).toEqual(expected.counts);
    for (const r of risk.values()) expect(r.alerts).toBe(Object.values(r.byRule).reduce((s, n) => s + n, 0));
    expect(driver!.getKeyValueStore<string, SpendProfile>(SPEND_PROFILE_STORE).get("card-flush")).toEqual({ payments: 1, totalCents: 100 });
  });

  it("finds a charge followed by a foreign charge whatever order they arrive in, as long as both are within grace", () => {
    const { graceMs } = config.foreign;
    const ordered = withFlush(fraudInput(11, { payments: 300, maxLatenessMs: 0, tableChanges: false, baseMs: BASE }));
    const expected = expectedFraud(ordered, config);
    expect(expected.foreign.size).toBeGreaterThan(3);
    const foreignIds = (alerts: Alert[]) => new Set(alerts.filter((a) => a.rule === "foreign-after-charge").map((a) => a.paymentId));
    const inOrder = foreignIds(run(config, ordered));
    expect(inOrder).toEqual(new Set(expected.foreign.keys()));
    driver!.close();
    for (const seed of [1, 2, 3]) {
      // Shuffle the payments so that each arrives at most (grace - 1 min) behind the newest before it.
      const random = rng(seed);
      const payments = ordered.filter((e) => e.topic === "payments");
      const shuffled = payments.map((e) => ({ e, sortKey: e.timestamp + random() * (graceMs - MIN) })).sort((a, b) => a.sortKey - b.sortKey).map((x) => x.e);
      let newest = -1;
      for (const e of shuffled) {
        expect(e.timestamp).toBeGreaterThan(newest - graceMs);
        newest = Math.max(newest, e.timestamp);
      }
      const events = [...ordered.filter((e) => e.topic !== "payments"), ...shuffled];
      expect(shuffled.map((e) => e.key)).not.toEqual(payments.map((e) => e.key));
      expect(foreignIds(run(config, events)), `order ${seed}`).toEqual(inOrder);
      driver!.close();
    }
  });

  it("ignores a straggler more than grace behind its card's newest charge for the pattern", () => {
    const { graceMs, withinMs } = config.foreign;
    const pay = (id: string, at: number, country: string): FraudEvent => ({
      topic: "payments",
      key: "card-1",
      value: { paymentId: id, cardId: "card-1", amountCents: 1000, country, merchant: "m", at },
      timestamp: at,
    });
    const events: FraudEvent[] = [
      { topic: "cards", key: "card-1", value: { customerId: "cust-0", homeCountry: "NL" }, timestamp: BASE },
      pay("us", BASE + withinMs, "US"), // foreign
      pay("far-ahead", BASE + withinMs + graceMs + 1, "NL"),
      pay("nl-late", BASE + 1, "NL"), // would pair with "us", but arrives beyond grace
      pay("nl-on-time", BASE + withinMs + graceMs, "NL"),
    ];
    const expected = expectedFraud(events, config);
    expect(expected.foreign.size).toBe(0);
    expect(run(config, events).filter((a) => a.rule === "foreign-after-charge")).toEqual([]);
  });
});
