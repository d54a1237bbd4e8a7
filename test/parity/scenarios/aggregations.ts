import { Materialized, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { events, interleave } from "../harness/inputs.ts";
import type { Scenario } from "../harness/scenario.ts";
import { groupedStrings, longStore, out, outLongs, stringStore, strings, sum, toLongs, toStrings, withHeaders } from "./common.ts";

const KEYS = ["a", "b", "c"];

/**
 * One input record becomes three with the same key before a count: with a cache the three
 * updates collapse into one result per commit (both drivers commit after each input record),
 * without one each goes downstream.
 */
function fanOutCount(b: StreamsBuilder, store?: Materialized<string, bigint>): void {
  b.stream("in", strings)
    .flatMapValues((v) => [v, v, v])
    .groupByKey()
    .count(store)
    .toStream()
    .to("out", toLongs);
}

export const aggregations: Scenario[] = [
  {
    name: "count-by-key",
    about: "groupByKey().count(): null keys are dropped, every update goes downstream",
    outputs: [outLongs()],
    steps: events({ seed: 1, topic: "in", count: 40, keys: KEYS, stepMs: 100, jitterMs: 300, nullKeyShare: 0.1, nullValueShare: 0.1 }),
    topology(b) {
      b.stream("in", strings).groupByKey().count().toStream().to("out", toLongs);
    },
  },
  {
    name: "count-caching-disabled",
    about: "count() into a store without a cache: the same updates as with one under commit-per-record",
    outputs: [outLongs()],
    steps: events({ seed: 2, topic: "in", count: 30, keys: KEYS, stepMs: 100, nullValueShare: 0.1 }),
    topology(b) {
      b.stream("in", strings).groupByKey().count(longStore("counts").withCachingDisabled()).toStream().to("out", toLongs);
    },
  },
  {
    name: "count-cache-zero-bytes",
    about: "statestore.cache.max.bytes = 0 turns every cache off",
    config: { cacheMaxBytes: 0 },
    outputs: [outLongs()],
    steps: events({ seed: 3, topic: "in", count: 30, keys: KEYS, stepMs: 100 }),
    topology(b) {
      b.stream("in", strings).groupByKey().count().toStream().to("out", toLongs);
    },
  },
  {
    name: "reduce-sum",
    about: "groupByKey().reduce(sum): first value is the aggregate; null values skipped",
    outputs: [out()],
    steps: events({ seed: 4, topic: "in", count: 40, keys: KEYS, stepMs: 50, jitterMs: 200, nullKeyShare: 0.05, nullValueShare: 0.1 }),
    topology(b) {
      b.stream("in", strings).groupByKey(groupedStrings).reduce(sum, stringStore("sums")).toStream().to("out", toStrings);
    },
  },
  {
    name: "aggregate-after-group-by",
    about: "groupBy(new key) repartitions; aggregate concatenates in arrival order",
    outputs: [out()],
    steps: events({ seed: 5, topic: "in", count: 30, keys: ["k1", "k2", "k3", "k4"], stepMs: 100, jitterMs: 150, nullValueShare: 0.1 }),
    topology(b) {
      b.stream("in", strings)
        .groupBy((_k, v): string | null => (v === null ? null : Number(v) % 2 === 0 ? "even" : "odd"), groupedStrings)
        .aggregate(() => "", (_k, v, agg) => agg + v, stringStore())
        .toStream()
        .to("out", toStrings);
    },
  },
  {
    name: "cogroup-two-streams",
    about: "cogroup of two grouped streams into one aggregate, each with its own aggregator",
    outputs: [out()],
    steps: interleave(
      6,
      events({ seed: 61, topic: "left", count: 20, keys: KEYS, stepMs: 100, nullValueShare: 0.1 }),
      events({ seed: 62, topic: "right", count: 20, keys: KEYS, stepMs: 100, nullKeyShare: 0.1 }),
    ),
    topology(b) {
      const left = b.stream("left", strings).groupByKey(groupedStrings);
      const right = b.stream("right", strings).groupByKey(groupedStrings);
      left
        .cogroup<string>((_k, v, agg) => agg + "L" + v)
        .cogroup(right, (_k, v, agg) => agg + "R" + v)
        .aggregate(() => "", Materialized.with(Serdes.string(), Serdes.string()))
        .toStream()
        .to("out", toStrings);
    },
  },
  {
    name: "fan-out-count-cached",
    about: "three updates of one key from one input record, into a caching store: one result per input",
    outputs: [outLongs()],
    steps: events({ seed: 7, topic: "in", count: 20, keys: KEYS, stepMs: 100, jitterMs: 150 }),
    topology: (b) => fanOutCount(b),
  },
  {
    name: "fan-out-count-caching-disabled",
    about: "the same fan-out into a store without a cache: every update goes downstream",
    outputs: [outLongs()],
    steps: events({ seed: 7, topic: "in", count: 20, keys: KEYS, stepMs: 100, jitterMs: 150 }),
    topology: (b) => fanOutCount(b, longStore("counts").withCachingDisabled()),
  },
  {
    name: "fan-out-count-cache-off",
    about: "the same fan-out with statestore.cache.max.bytes = 0",
    config: { cacheMaxBytes: 0 },
    outputs: [outLongs()],
    steps: events({ seed: 7, topic: "in", count: 20, keys: KEYS, stepMs: 100, jitterMs: 150 }),
    topology: (b) => fanOutCount(b),
  },
  {
    name: "reduce-headers",
    about: "the headers an aggregation's result carries (those of the record that updated it)",
    outputs: [withHeaders(out())],
    steps: events({ seed: 8, topic: "in", count: 25, keys: KEYS, stepMs: 100, jitterMs: 300, headers: true }),
    topology(b) {
      b.stream("in", strings).groupByKey(groupedStrings).reduce(sum, stringStore("sums")).toStream().to("out", toStrings);
    },
  },
  {
    name: "fan-out-repartition-count-cached",
    about: "three re-keyed copies of each record go through a repartition topic into a caching count",
    outputs: [outLongs()],
    steps: events({ seed: 9, topic: "in", count: 20, keys: KEYS, stepMs: 100, jitterMs: 150 }),
    topology(b) {
      b.stream("in", strings)
        .flatMap((k, v) => [[`${v}`, k], [`${v}`, k], [`${v}`, k]] as const)
        .groupByKey(groupedStrings)
        .count()
        .toStream()
        .to("out", toLongs);
    },
  },
  {
    name: "cogroup-with-repartition",
    about: "cogroup of a grouped-by-key stream and a re-keyed (repartitioned) one",
    outputs: [out()],
    steps: interleave(
      10,
      events({ seed: 101, topic: "left", count: 20, keys: KEYS, stepMs: 100 }),
      events({ seed: 102, topic: "right", count: 20, keys: ["a1", "b1", "c1"], stepMs: 100, nullValueShare: 0.1 }),
    ),
    topology(b) {
      const left = b.stream("left", strings).groupByKey(groupedStrings);
      const right = b.stream("right", strings).groupBy((k) => k!.slice(0, 1), groupedStrings);
      left
        .cogroup<string>((_k, v, agg) => agg + "L" + v)
        .cogroup(right, (_k, v, agg) => agg + "R" + v)
        .aggregate(() => "", Materialized.with(Serdes.string(), Serdes.string()))
        .toStream()
        .to("out", toStrings);
    },
  },
];
