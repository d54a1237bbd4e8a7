import { Grouped, Materialized, type KTable, type StreamsBuilder } from "../../../lib/dsl/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { events, interleave, pipe } from "../harness/inputs.ts";
import type { Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { longStore, out, outLongs, stringStore, strings, sum, toLongs, toStrings, withHeaders } from "./common.ts";

/** Table updates with tombstones, repeated values, and deletes of keys that never existed. */
export function updates(seed: number, headers = false, keys: readonly string[] = ["a1", "a2", "b1", "b2"], count = 35): Step[] {
  const changes = events({ seed, headers, topic: "in", count, keys, stepMs: 50, jitterMs: 80, nullValueShare: 0.15, value: (_i, r) => String(1 + Math.floor(r() * 4)) });
  return interleave(seed + 1, changes, [pipe("in", "never", null, 10), pipe("in", "never2", null, 700), pipe("in", "never", null, 1200)]);
}

const odd = (_k: string, v: string): boolean => Number(v) % 2 === 1;
const tripled = (v: string): string => String(Number(v) * 3);
const sourceTable = (b: StreamsBuilder, cached = true): KTable<string, string> =>
  cached ? b.table("in", strings) : b.table("in", strings, stringStore("source").withCachingDisabled());
const groupedByPrefix = Grouped.with(Serdes.string(), Serdes.string());

/** groupBy(key prefix).aggregate with adder and subtractor leaving a trail: "+3-3+4". */
export function prefixTrail(b: StreamsBuilder): void {
  sourceTable(b)
    .groupBy((k, v) => [k.slice(0, 1), v] as const, groupedByPrefix)
    .aggregate(() => "", (_k, v, agg) => `${agg}+${v}`, (_k, v, agg) => `${agg}-${v}`, stringStore("trail"))
    .toStream()
    .to("out", toStrings);
}

export const tables: Scenario[] = [
  {
    name: "table-source-to-stream",
    about: "a source table's changelog: repeated values, tombstones, deletes of absent keys",
    outputs: [out()],
    steps: updates(300),
    topology: (b) => sourceTable(b).toStream().to("out", toStrings),
  },
  {
    name: "table-source-materialized-caching-disabled",
    about: "a materialized source table without a cache",
    outputs: [out()],
    steps: updates(301),
    topology: (b) => sourceTable(b, false).toStream().to("out", toStrings),
  },
  {
    name: "table-filter-not-materialized",
    about: "KTable.filter without a store: what a filtered-out update and a delete send downstream",
    outputs: [out()],
    steps: updates(302),
    topology: (b) => sourceTable(b).filter(odd).toStream().to("out", toStrings),
  },
  {
    name: "table-filter-materialized",
    about: "KTable.filter into its own store",
    outputs: [out()],
    steps: updates(303),
    topology: (b) => sourceTable(b).filter(odd, stringStore("filtered")).toStream().to("out", toStrings),
  },
  {
    name: "table-filter-materialized-caching-disabled",
    about: "KTable.filter into a store without a cache",
    outputs: [out()],
    steps: updates(304),
    topology: (b) => sourceTable(b, false).filter(odd, stringStore("filtered").withCachingDisabled()).toStream().to("out", toStrings),
  },
  {
    name: "table-map-values-not-materialized",
    about: "KTable.mapValues without a store",
    outputs: [out()],
    steps: updates(305),
    topology: (b) => sourceTable(b).mapValues(tripled).toStream().to("out", toStrings),
  },
  {
    name: "table-map-values-materialized",
    about: "KTable.mapValues into its own store, after a filter",
    outputs: [out()],
    steps: updates(306),
    topology: (b) => sourceTable(b).filter(odd).mapValues(tripled, stringStore("tripled")).toStream().to("out", toStrings),
  },
  {
    name: "table-group-by-count",
    about: "KTable.groupBy(value).count(): an update moves a row from one group to another",
    outputs: [outLongs()],
    steps: updates(307),
    topology: (b) =>
      sourceTable(b)
        .groupBy((k, v) => [v, k] as const, groupedByPrefix)
        .count()
        .toStream()
        .to("out", toLongs),
  },
  {
    name: "table-group-by-reduce-same-key",
    about: "KTable.groupBy(key prefix).reduce(adder, subtractor): updates keep their group key (KIP-904)",
    outputs: [out()],
    steps: updates(308),
    topology: (b) =>
      sourceTable(b)
        .groupBy((k, v) => [k.slice(0, 1), v] as const, groupedByPrefix)
        .reduce(sum, (agg, v) => String(Number(agg) - Number(v)), stringStore("sums"))
        .toStream()
        .to("out", toStrings),
  },
  {
    name: "table-group-by-aggregate-same-key",
    about: "KTable.groupBy(key prefix).aggregate: subtractor then adder on the same group (KIP-904)",
    outputs: [out()],
    steps: updates(309),
    topology: prefixTrail,
  },
  {
    name: "table-group-by-aggregate-caching-disabled",
    about: "KTable.groupBy(value parity).aggregate into a store without a cache",
    outputs: [out()],
    steps: updates(310),
    topology: (b) =>
      sourceTable(b)
        .groupBy((k, v) => [Number(v) % 2 === 0 ? "even" : "odd", k] as const, groupedByPrefix)
        .aggregate(() => "", (_k, v, agg) => `${agg}+${v}`, (_k, v, agg) => `${agg}-${v}`, stringStore("trail").withCachingDisabled())
        .toStream()
        .to("out", toStrings),
  },
  {
    name: "table-group-by-count-cache-off",
    about: "KTable.groupBy(key prefix).count() with every cache off (cacheMaxBytes 0)",
    config: { cacheMaxBytes: 0 },
    outputs: [outLongs()],
    steps: updates(311),
    topology: (b) =>
      sourceTable(b)
        .groupBy((k, v) => [k.slice(0, 1), v] as const, groupedByPrefix)
        .count(longStore("counts"))
        .toStream()
        .to("out", toLongs),
  },
  {
    name: "stream-to-table",
    about: "KStream.toTable(): null keys skipped, tombstones delete",
    outputs: [out()],
    steps: events({ seed: 312, topic: "in", count: 35, keys: ["a", "b", "c"], stepMs: 50, jitterMs: 80, nullKeyShare: 0.1, nullValueShare: 0.15 }),
    topology: (b) => b.stream("in", strings).toTable().toStream().to("out", toStrings),
  },
  {
    name: "stream-to-table-materialized-filter",
    about: "KStream.toTable(Materialized) then filter",
    outputs: [out()],
    steps: events({ seed: 313, topic: "in", count: 35, keys: ["a", "b", "c"], stepMs: 50, nullKeyShare: 0.1, nullValueShare: 0.15 }),
    topology: (b) =>
      b
        .stream("in", strings)
        .toTable(Materialized.as<string, string>("as-table").withKeySerde(Serdes.string()).withValueSerde(Serdes.string()))
        .filter(odd)
        .toStream()
        .to("out", toStrings),
  },
  {
    name: "table-group-by-aggregate-headers",
    about: "headers of a table aggregation's results, through the repartition topic",
    outputs: [withHeaders(out())],
    steps: updates(314, true),
    topology: prefixTrail,
  },
  {
    name: "table-filter-map-values-headers",
    about: "headers through a source table, filter and mapValues, tombstones included",
    outputs: [withHeaders(out())],
    steps: updates(315, true),
    topology: (b) => sourceTable(b).filter(odd).mapValues(tripled).toStream().to("out", toStrings),
  },
  {
    name: "table-group-by-null-group-key",
    about: "KTable.groupBy whose selector returns a null key for some rows: those rows are left out",
    outputs: [outLongs()],
    steps: updates(316),
    topology: (b) =>
      sourceTable(b)
        .groupBy((k, v) => [v === "4" ? null : k.slice(0, 1), v] as const, groupedByPrefix as never)
        .count()
        .toStream()
        .to("out", toLongs),
  },
  {
    name: "table-filter-then-group-by-count",
    about: "a filtered table regrouped: the filter must hand the old value on for the subtractor",
    outputs: [outLongs()],
    steps: updates(317),
    topology: (b) =>
      sourceTable(b)
        .filter(odd)
        .groupBy((k, v) => [v, k] as const, groupedByPrefix)
        .count()
        .toStream()
        .to("out", toLongs),
  },
  {
    name: "table-map-values-then-group-by-reduce",
    about: "mapValues then groupBy(key prefix).reduce(adder, subtractor)",
    outputs: [out()],
    steps: updates(318),
    topology: (b) =>
      sourceTable(b)
        .mapValues(tripled)
        .groupBy((k, v) => [k.slice(0, 1), v] as const, groupedByPrefix)
        .reduce(sum, (agg, v) => String(Number(agg) - Number(v)), stringStore("sums"))
        .toStream()
        .to("out", toStrings),
  },
];
