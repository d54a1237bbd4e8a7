import { describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

// Kafka Streams' TopologyTestDriver takes max.task.idle.ms too: every partition counts as
// caught up, so only a positive value changes anything, holding records back until the
// mocked wall clock has moved that far or every input of the task has a record.

function joinDriver(maxTaskIdleMs?: number) {
  const b = new StreamsBuilder();
  const strings = Consumed.with(Serdes.string(), Serdes.string());
  const users = b.table("users", strings);
  b.stream("clicks", strings)
    .join(users, (click, user) => `${click}|${user}`)
    .to("out", Produced.with(Serdes.string(), Serdes.string()));
  const driver = new TopologyTestDriver(b.build(), maxTaskIdleMs === undefined ? {} : { maxTaskIdleMs });
  return {
    driver,
    clicks: driver.createInputTopic("clicks", Serdes.string(), Serdes.string()),
    users: driver.createInputTopic("users", Serdes.string(), Serdes.string()),
    out: driver.createOutputTopic("out", Serdes.string(), Serdes.string()),
  };
}

describe("TopologyTestDriver with maxTaskIdleMs", () => {
  it("0 (default) and -1: each record is processed as it is piped", () => {
    for (const setting of [undefined, 0, -1]) {
      const { driver, clicks, users, out } = joinDriver(setting);
      clicks.pipeInput("u1", "c1", 10);
      users.pipeInput("u1", "alice", 5);
      clicks.pipeInput("u1", "c2", 20);
      expect(out.readValuesToList()).toEqual(["c2|alice"]);
      driver.close();
    }
  });

  it("positive: a record waits for the other input or the wall clock, as Kafka Streams' PartitionGroup decides", () => {
    const { driver, clicks, users, out } = joinDriver(1_000);
    clicks.pipeInput("u1", "c1", 10);
    expect(out.readValuesToList()).toEqual([]);
    // Earlier, so it goes first; then users is empty again and c1 waits afresh.
    users.pipeInput("u1", "alice", 5);
    expect(out.readValuesToList()).toEqual([]);
    driver.advanceWallClockTime(999);
    expect(out.readValuesToList()).toEqual([]);
    driver.advanceWallClockTime(1);
    expect(out.readValuesToList()).toEqual(["c1|alice"]);
    // The wait for users is over until it gets a record again: c2 goes at once.
    clicks.pipeInput("u1", "c2", 20);
    expect(out.readValuesToList()).toEqual(["c2|alice"]);
    users.pipeInput("u1", "bob", 30);
    clicks.pipeInput("u1", "c3", 40);
    expect(out.readValuesToList()).toEqual([]);
    driver.advanceWallClockTime(1_000);
    expect(out.readValuesToList()).toEqual(["c3|bob"]);
    driver.close();
  });
});
