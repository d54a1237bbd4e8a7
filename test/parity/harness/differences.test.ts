import { describe, expect, it } from "vitest";
import { differences } from "../scenarios/differences.ts";
import type { OutputRecord } from "./exchange.ts";
import { pipe } from "./inputs.ts";
import type { Scenario } from "./scenario.ts";

/** The documented differences' checks refuse a difference other than the documented one. */

const scenario = (name: string): Scenario => differences.find((s) => s.name === name)!;
const win = (step: number, key: string, start: number, end: number, value: string | null): OutputRecord => ({ topic: "out", step, key, window: { start, end }, value, timestamp: end });
const noOther = () => {
  throw new Error("no other scenario in this test");
};

describe("the sliding time-jump difference", () => {
  const { check } = scenario("difference-sliding-close-after-time-jump").difference!;
  const steps = [pipe("in", "a", "1", 0), pipe("in", "a", "1", 600), pipe("in", "z", "1", 10_000)];
  const early = win(1, "a", 0, 500, "1");
  const lost = win(2, "a", 100, 600, "1");
  const context = { steps, kafkaStreamsOf: noOther };

  it("accepts Kafka Streams missing windows the jump closed beyond the retention", () => {
    expect(check([early], [early, lost], context)).toBeUndefined();
  });

  it("refuses a window missing before the jump, an extra record, or nothing lost", () => {
    expect(check([lost], [early, lost], context)).toMatch(/not at the jump/);
    expect(check([early, lost, win(2, "b", 0, 1, "1")], [early, lost], context)).toMatch(/Kafka Streams wrote a record Sluice did not/);
    expect(check([early, lost], [early, lost], context)).toMatch(/lost no window/);
  });
});

describe("the cached-session difference", () => {
  const { check } = scenario("difference-session-count-nograce-update-cached").difference!;
  const steps = [pipe("in", "a", "1", 0), pipe("in", "a", "1", 1000), pipe("in", "a", "1", 250)];
  const sluice = [win(0, "a", 0, 0, "1"), win(1, "a", 1000, 1000, "1"), win(2, "a", 250, 250, "1")];
  const uncached = { steps, kafkaStreamsOf: () => sluice };

  it("accepts Kafka Streams merging a straggler into an expired session", () => {
    const kafkaStreams = [...sluice.slice(0, 2), win(2, "a", 0, 250, "2")];
    expect(check(kafkaStreams, sluice, uncached)).toBeUndefined();
  });

  it("refuses a Sluice answer other than the uncached one, or another kind of departure", () => {
    const other = [...sluice.slice(0, 2), win(2, "a", 250, 250, "7")];
    expect(check(sluice, other, uncached)).toMatch(/not Kafka Streams' uncached one/);
    expect(check([...sluice.slice(0, 2), win(2, "a", 250, 250, "9")], sluice, uncached)).toMatch(/contains no earlier session/);
  });
});
