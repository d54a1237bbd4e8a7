import { afterEach, describe, expect, it } from "vitest";
import {
  Consumed,
  Grouped,
  Materialized,
  Produced,
  Serdes,
  StreamsApp,
  StreamsBuilder,
  TimeWindows,
  WindowedSerdes,
  type StreamsConfig,
  type Topology,
} from "../../../lib/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

// The worked example of docs/porting.md ("Porting from Kafka Streams"): the TypeScript side,
// run through the test driver. When this changes, change the guide with it.

// ---- the guide's code, from here ----
type Payment = { card: string; amount: number };
type Card = { country: string };
type CardPayment = Payment & { country: string };

const minutes = (n: number) => n * 60_000;
const windowSize = minutes(5);

export function cardVelocity(): Topology {
  const builder = new StreamsBuilder();
  const payments = builder.stream("payments", Consumed.with(Serdes.string(), Serdes.json<Payment>()));
  const cards = builder.table("cards", Consumed.with(Serdes.string(), Serdes.json<Card>()));

  payments
    .join(cards, (payment, card) => ({ ...payment, country: card.country }))
    .groupByKey(Grouped.with(Serdes.string(), Serdes.json<CardPayment>()))
    .windowedBy(TimeWindows.ofSizeAndGrace(windowSize, 30_000).advanceBy(minutes(1)))
    .count(Materialized.as("card-velocity"))
    .toStream()
    .filter((_, count) => count !== null && count > 2n)
    .to("alerts", Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), windowSize), Serdes.int64()));
  return builder.build();
}

export const config: StreamsConfig = {
  applicationId: "card-velocity",
  bootstrapServers: "localhost:9092",
  processingGuarantee: "exactly_once",
  commitIntervalMs: 1_000,
};
// ---- to here ----

/** What the guide's main does with them; constructing checks the config, no broker needed. */
function main(): StreamsApp {
  return new StreamsApp(cardVelocity(), config);
}

type Event = { topic: "cards"; key: string; at: number } | { topic: "payments"; key: string; at: number };

/**
 * The oracle: Kafka Streams' hopping-window count, written out. A payment joins when its
 * card has a row; it counts in every window [start, start + size) that contains it and is
 * not yet closed (start + size + grace > stream time); each count above 2 is an alert.
 */
function expectedAlerts(events: Event[]): [string, number, bigint][] {
  const cardsKnown = new Set<string>();
  const counts = new Map<string, bigint>();
  const alerts: [string, number, bigint][] = [];
  let streamTime = -1;
  for (const e of events) {
    if (e.topic === "cards") {
      cardsKnown.add(e.key);
      continue;
    }
    if (!cardsKnown.has(e.key)) continue;
    streamTime = Math.max(streamTime, e.at);
    const lastStart = Math.floor(e.at / minutes(1)) * minutes(1);
    for (let start = Math.max(0, lastStart - windowSize + minutes(1)); start <= lastStart; start += minutes(1)) {
      if (start + windowSize + 30_000 <= streamTime) continue; // closed: the record is late for it
      const id = `${e.key}@${start}`;
      const count = (counts.get(id) ?? 0n) + 1n;
      counts.set(id, count);
      if (count > 2n) alerts.push([e.key, start, count]);
    }
  }
  return alerts;
}

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

describe("docs/porting.md: the card-velocity example", () => {
  it("alerts on more than two payments of one card within five minutes", () => {
    const events: Event[] = [
      { topic: "cards", key: "card-1", at: 0 },
      { topic: "payments", key: "card-1", at: minutes(10) },
      { topic: "payments", key: "card-1", at: minutes(10) + 1_000 },
      { topic: "payments", key: "card-2", at: minutes(10) + 5_000 }, // no card row yet: no join
      { topic: "payments", key: "card-1", at: minutes(10) + 2_000 },
      { topic: "cards", key: "card-2", at: minutes(12) },
      { topic: "payments", key: "card-2", at: minutes(12) + 30_000 },
      { topic: "payments", key: "card-2", at: minutes(12) + 31_000 },
      { topic: "payments", key: "card-2", at: minutes(12) + 32_000 },
      { topic: "payments", key: "card-1", at: minutes(13) },
      // Late: every window that holds minute 4 closed before stream time 13:00, so these
      // three count nowhere (they would alert otherwise).
      { topic: "payments", key: "card-1", at: minutes(4) },
      { topic: "payments", key: "card-1", at: minutes(4) + 1_000 },
      { topic: "payments", key: "card-1", at: minutes(4) + 2_000 },
    ];
    driver = new TopologyTestDriver(cardVelocity());
    const cards = driver.createInputTopic("cards", Serdes.string(), Serdes.json<Card>());
    const payments = driver.createInputTopic("payments", Serdes.string(), Serdes.json<Payment>());
    for (const e of events) {
      if (e.topic === "cards") cards.pipeInput(e.key, { country: "NL" }, e.at);
      else payments.pipeInput(e.key, { card: e.key, amount: 10 }, e.at);
    }

    const alerts = driver.createOutputTopic("alerts", WindowedSerdes.timeWindowed(Serdes.string(), windowSize), Serdes.int64());
    const got = alerts.readKeyValuesToList().map(([w, n]) => [w!.key, w!.window.startMs, n]);
    const expected = expectedAlerts(events);
    expect(expected.length).toBeGreaterThan(5); // the scenario does alert, for both cards
    expect(new Set(expected.map(([card]) => card))).toEqual(new Set(["card-1", "card-2"]));
    expect(got).toEqual(expected);
  });

  it("its config is a valid StreamsApp config", () => {
    const app = main();
    expect(app.state).toBe("CREATED");
  });
});
