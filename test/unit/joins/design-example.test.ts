import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, Serdes, StreamsBuilder, TimeWindows, WindowedSerdes } from "../../../lib/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

interface Payment {
  card: string;
  amount: number;
}
interface Card {
  country: string;
}

let driver: TopologyTestDriver | undefined;
afterEach(() => driver?.close());

describe("the DESIGN.md example: payments enriched from a card table, counted per card in hopping windows", () => {
  it("joins each payment with its card's current row and counts per 5-minute window", () => {
    const minutes = (n: number) => n * 60_000;
    const b = new StreamsBuilder();
    const payments = b.stream("payments", Consumed.with(Serdes.string(), Serdes.json<Payment>()));
    const cards = b.table("cards", Consumed.with(Serdes.string(), Serdes.json<Card>()));
    payments
      .join(cards, (p, c) => ({ ...p, country: c.country }))
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(minutes(5), 30_000).advanceBy(minutes(1)))
      .count(Materialized.as("card-velocity"))
      .toStream()
      .filter((w, n) => n !== null && n > 2n)
      .to("alerts", Produced.with(WindowedSerdes.timeWindowed(Serdes.string(), minutes(5)), Serdes.int64()));
    driver = new TopologyTestDriver(b.build());
    const cardsIn = driver.createInputTopic("cards", Serdes.string(), Serdes.json<Card>());
    const paymentsIn = driver.createInputTopic("payments", Serdes.string(), Serdes.json<Payment>());
    cardsIn.pipeInput("card-1", { country: "NL" }, 0);
    for (let i = 0; i < 3; i++) paymentsIn.pipeInput("card-1", { card: "card-1", amount: 10 }, minutes(10) + i * 1_000);
    paymentsIn.pipeInput("card-2", { card: "card-2", amount: 10 }, minutes(10) + 5_000); // no card row: no join, no count
    const alerts = driver.createOutputTopic("alerts", WindowedSerdes.timeWindowed(Serdes.string(), minutes(5)), Serdes.int64()).readKeyValuesToList();
    // The third payment makes 3 in each of the five hopping windows that contain minute 10.
    expect(alerts.map(([w, n]) => [w!.key, w!.window.startMs / 60_000, n])).toEqual([6, 7, 8, 9, 10].map((m) => ["card-1", m, 3n]));
  });
});
