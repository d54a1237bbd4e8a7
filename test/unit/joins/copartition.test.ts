import { describe, expect, it } from "vitest";
import { Consumed, JoinWindows, Produced, Repartitioned, StreamJoined, StreamsBuilder, TableJoined } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { planTopics } from "../../../lib/runtime/topic-plan.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import type { Topology } from "../../../lib/topology/index.ts";

const strings = Consumed.with(Serdes.string(), Serdes.string());
const out = Produced.with(Serdes.string(), Serdes.string());

/** How the runtime is to apply the rule (docs/joins.md): seed, plan, then settle internal-only groups. */
function plan(topology: Topology, userCounts: Record<string, number>): Map<string, number> {
  const counts = new Map(Object.entries(userCounts));
  const seeded = new Map([...counts, ...topology.copartitionedPartitionCounts("app", counts)]);
  let result = planTopics(topology, "app", seeded, 1).counts;
  const settled = topology.copartitionedPartitionCounts("app", result);
  if ([...settled].some(([t, n]) => result.get(t) !== n)) result = planTopics(topology, "app", new Map([...seeded, ...settled]), 1).counts;
  return result;
}

describe("co-partitioning rule for partition counts", () => {
  it("gives a foreign-key join's registration topic the foreign table's count and its response topic the left table's", () => {
    const b = new StreamsBuilder();
    b.table("orders", strings).join(b.table("customers", strings), (o) => o, (o, c) => o + c, TableJoined.as("oc")).toStream().to("out", out);
    const topology = b.build();
    expect(() => planTopics(topology, "app", new Map([["orders", 4], ["customers", 2]]), 1)).toThrow(/cannot work out/);
    const counts = plan(topology, { orders: 4, customers: 2 });
    expect(counts.get("app-oc-subscription-registration-topic")).toBe(2);
    expect(counts.get("app-oc-subscription-response-topic")).toBe(4);
    expect(counts.get("app-oc-subscription-store-changelog")).toBe(2);
  });

  it("gives a re-keyed stream's repartition topic the count of the table it joins, not of its upstream", () => {
    const b = new StreamsBuilder();
    const users = b.table("users", strings);
    b.stream("clicks", strings).selectKey((k, v) => v).join(users, (c, u) => c + u).to("out", out);
    const counts = plan(b.build(), { clicks: 8, users: 3 });
    expect(counts.get("app-KSTREAM-KEY-SELECT-0000000004-repartition")).toBe(3);
  });

  it("names the topics when user topics that must be co-partitioned differ", () => {
    const b = new StreamsBuilder();
    b.stream("left", strings).join(b.stream("right", strings), (l, r) => l + r, JoinWindows.ofTimeDifferenceWithNoGrace(10)).to("out", out);
    const topology = b.build();
    expect(() => topology.copartitionedPartitionCounts("app", new Map([["left", 3], ["right", 2]]))).toThrow(TopologyError);
    expect(() => topology.copartitionedPartitionCounts("app", new Map([["left", 3], ["right", 2]]))).toThrow(/left \(3 partitions\), right \(2 partitions\)/);
  });

  it("refuses an explicit repartition count that differs from the co-partitioned topics", () => {
    const b = new StreamsBuilder();
    const left = b.stream("left", strings).selectKey((k, v) => v).repartition(Repartitioned.with(Serdes.string(), Serdes.string()).withNumberOfPartitions(5));
    left.join(b.stream("right", strings), (l, r) => l + r, JoinWindows.ofTimeDifferenceWithNoGrace(10)).to("out", out);
    expect(() => b.build().copartitionedPartitionCounts("app", new Map([["left", 3], ["right", 2]]))).toThrow(/has 5 partitions/);
  });

  it("makes two re-keyed join inputs equal: the larger of their counts", () => {
    const b = new StreamsBuilder();
    const left = b.stream("left", strings).selectKey((k, v) => v);
    const right = b.stream("right", strings).selectKey((k, v) => v);
    left.join(right, (l, r) => l + r, JoinWindows.ofTimeDifferenceWithNoGrace(10), StreamJoined.with(Serdes.string(), Serdes.string(), Serdes.string()).withName("j")).to("out", out);
    const counts = plan(b.build(), { left: 3, right: 6 });
    expect(counts.get("app-j-left-repartition")).toBe(6);
    expect(counts.get("app-j-right-repartition")).toBe(6);
  });
});
