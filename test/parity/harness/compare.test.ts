import { describe, expect, it } from "vitest";
import { firstDifference } from "./compare.ts";
import type { OutputRecord, ScenarioInput } from "./exchange.ts";

const input: ScenarioInput = {
  name: "example",
  config: {},
  outputs: [
    { topic: "out", key: "time-windowed", value: "long", windowSizeMs: 1000, headers: true },
    { topic: "other", key: "string", value: "string" },
  ],
  steps: [
    { topic: "in", key: "a", value: "1", timestamp: 10 },
    { topic: "in", key: "a", value: "2", timestamp: 20 },
  ],
};

const record: OutputRecord = { topic: "out", step: 0, key: "a", window: { start: 0, end: 1000 }, value: "1", timestamp: 10, headers: { h: "x" } };
const other: OutputRecord = { topic: "other", step: 1, key: "a", value: "v", timestamp: 20 };

describe("firstDifference", () => {
  it("is null when every topic has the same records in the same order, whatever the interleaving of topics", () => {
    const second = { ...record, step: 1, value: "2", timestamp: 20 };
    expect(firstDifference(input, [record, other, second], [record, second, other])).toBeNull();
  });

  it.each([
    ["value", { value: "2" }],
    ["timestamp", { timestamp: 11 }],
    ["step", { step: 1 }],
    ["key", { key: "b" }],
    ["window", { window: { start: 0, end: 999 } }],
    ["headers", { headers: { h: "y" } }],
  ])("reports a record whose %s differs, with both sides and the input step", (_field, change) => {
    const report = firstDifference(input, [record], [{ ...record, ...change }]);
    expect(report).toContain('topic "out": first difference at record #0');
    expect(report).toContain("Kafka Streams: step 0");
    expect(report).toContain('input step 0: pipe to "in" key "a" value "1" ts 10');
  });

  it("reports a missing and an extra record, with the records both sides agree on before it", () => {
    const second = { ...record, step: 1, value: "2", timestamp: 20 };
    expect(firstDifference(input, [record, second], [record])).toMatch(/record #1 \(Kafka Streams wrote 2, Sluice 1\)[\s\S]*Sluice: {8}\(no record\)[\s\S]*#0 step 0/);
    expect(firstDifference(input, [], [other])).toMatch(/topic "other": first difference at record #0[\s\S]*Kafka Streams: \(no record\)/);
  });

  it("ignores headers on a topic whose spec does not compare them", () => {
    expect(firstDifference(input, [other], [{ ...other, headers: { any: "thing" } }])).toBeNull();
  });
});
