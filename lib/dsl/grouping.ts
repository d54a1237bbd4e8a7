import { FilterProcessor } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";
import { repartitionTopicName, type TopologyBuilder } from "../topology/index.ts";
import { claimName, requireSerde, type StreamState } from "./stream-node.ts";

/**
 * What a grouped stream knows until an aggregation consumes it: the stream it groups (keys
 * already the grouping keys), serdes from `Grouped` or the stream, and the user's name for
 * the repartition topic. KGroupedStream and its windowed variants share it.
 */
export interface GroupedStreamState {
  readonly stream: StreamState;
  readonly keySerde: Serde<unknown> | null;
  readonly valueSerde: Serde<unknown> | null;
  /** `Grouped.as(name)`: names the repartition topic instead of the store name. */
  readonly repartitionName: string | null;
}

const GENERATED = /^KSTREAM.*-\d{10}$/;

/**
 * The node an aggregation hangs off: the grouped stream itself when its keys are still
 * partitioned as they are read, else the source of a new repartition topic
 * `<Grouped name | defaultName>-repartition` (defaultName is the store name, as in Kafka
 * Streams). The records on the way drop null keys (no partition to go to). Node names:
 * `<topic>-sink`, `-filter`, `-source` for a user-chosen name; generated ones otherwise,
 * burning the counter either way so later generated names do not depend on the choice.
 */
export function repartitionForGrouping(
  grouped: GroupedStreamState,
  defaultName: string,
  where: string,
  hint = "Grouped.with(keySerde, valueSerde)",
): StreamState {
  const stream = grouped.stream;
  if (!stream.repartitionRequired) return stream;
  const builder = stream.builder;
  const base = grouped.repartitionName ?? defaultName;
  const topic = repartitionTopicName(base);
  const keySerde = requireSerde(grouped.keySerde, stream.keySerde, "key", where, hint);
  const valueSerde = requireSerde(grouped.valueSerde, stream.valueSerde, "value", where, hint);
  const names = repartitionNodeNames(builder, base, topic);
  builder.addRepartitionTopic(topic, null);
  builder.addProcessor(names.filter, () => new FilterProcessor<unknown, unknown>((key) => key !== null, true), [stream.nodeName]);
  builder.addSink({
    name: names.sink,
    parents: [names.filter],
    topic,
    topicExtractor: null,
    internal: true,
    keySerde,
    valueSerde,
    partitioner: null,
  });
  builder.addSource({
    name: names.source,
    topics: [topic],
    pattern: null,
    internal: true,
    keySerde,
    valueSerde,
    timestampExtractor: null,
    offsetReset: null,
  });
  return { builder, nodeName: names.source, repartitionRequired: false, keySerde, valueSerde };
}

function repartitionNodeNames(builder: TopologyBuilder, base: string, topic: string): { sink: string; filter: string; source: string } {
  const generated = {
    sink: builder.names.next("KSTREAM-SINK-"),
    filter: builder.names.next("KSTREAM-FILTER-"),
    source: builder.names.next("KSTREAM-SOURCE-"),
  };
  if (GENERATED.test(base)) return generated;
  return {
    sink: claimName(builder, `${topic}-sink`),
    filter: claimName(builder, `${topic}-filter`),
    source: claimName(builder, `${topic}-source`),
  };
}
