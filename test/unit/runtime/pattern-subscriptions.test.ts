import { describe, expect, it } from "vitest";
import { Consumed, Materialized, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { tasksFor } from "../../../lib/runtime/assignor.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { excludingInternalTopics, wholeTopicPattern } from "../../../lib/topology/index.ts";

describe("pattern subscriptions", () => {
  it("match whole topic names, as Java's Pattern.matches", () => {
    const pattern = wholeTopicPattern(/events-[a-z]+/);
    expect(["events-eu", "events-us"].filter((t) => pattern.test(t))).toEqual(["events-eu", "events-us"]);
    expect(["old-events-eu", "events-eu2", "events-"].some((t) => pattern.test(t))).toBe(false);
  });

  it("answer the same every time, whatever the g and y flags", () => {
    for (const flags of ["g", "y", "gy", "gi"]) {
      const pattern = wholeTopicPattern(new RegExp("events-.*", flags));
      expect([1, 2, 3].map(() => pattern.test("events-eu"))).toEqual([true, true, true]);
    }
    expect(wholeTopicPattern(/Events-.*/gi).test("events-eu")).toBe(true);
  });

  it("never match the application's own internal topics, but do match other applications' and its own plain topics", () => {
    const pattern = excludingInternalTopics(/.*events.*/, "app.v2");
    const own = [
      "app.v2-events-count-changelog",
      "app.v2-events-by-region-repartition",
      "app.v2-events-fk-subscription-registration-topic",
      "app.v2-events-fk-subscription-response-topic",
      "app.v2-events-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000004-topic",
      "app.v2-events-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000009-topic",
    ];
    expect(own.filter((t) => pattern.test(t))).toEqual([]);
    const others = ["events", "app.v2-events", "appXv2-events-count-changelog", "other-events-count-changelog", "events-changelog"];
    expect(others.filter((t) => pattern.test(t))).toEqual(others);
  });

  it("keep an application from reading its own changelog back: /events-.*/ in app events-app with a store events-count", () => {
    const b = new StreamsBuilder();
    b.stream(/events-.*/, Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("events-count"));
    const topology = b.build();
    const sub = topology.subtopologies[0]!;
    const changelog = "events-app-events-count-changelog";
    expect(topology.internalTopics.map((t) => t.fullName("events-app"))).toContain(changelog);
    expect(sub.sourceFor("events-eu", "events-app")?.name).toBe(sub.sources[0]!.name);
    expect(sub.sourceFor(changelog, "events-app")).toBeUndefined();
    expect(sub.sourcePatterns("events-app").some((p) => p.test(changelog))).toBe(false);
    const tasks = tasksFor(
      [{ id: sub.id, topics: [], patterns: sub.sourcePatterns("events-app") }],
      new Map([["events-eu", 2], ["old-events-eu", 3], [changelog, 2]]),
    );
    expect([...tasks.values()].flat().map((tp) => `${tp.topic}-${tp.partition}`)).toEqual(["events-eu-0", "events-eu-1"]);
  });

  it("are described as written", () => {
    const b = new StreamsBuilder();
    b.stream(/orders-.*/g).to("out");
    expect(b.build().describe().toString()).toContain("(topic pattern: orders-.*)");
  });
});
