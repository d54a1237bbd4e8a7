import { type SinkNode, repartitionTopicName, type TopicNameExtractor } from "../topology/index.ts";
import type { Produced } from "./options/produced.ts";
import type { Repartitioned } from "./options/repartitioned.ts";
import { claimName, requireSerde, type StreamState } from "./stream-node.ts";

/** `to()`: a sink node writing a fixed topic or one picked per record. */
export function addSink(parent: StreamState, topic: string | TopicNameExtractor, produced: Produced<unknown, unknown> | undefined): void {
  const name = produced?.name != null ? claimName(parent.builder, produced.name) : parent.builder.names.next("KSTREAM-SINK-");
  const where = typeof topic === "string" ? `to("${topic}")` : "to(<topic extractor>)";
  const sink: Omit<SinkNode, "kind"> = {
    name,
    parents: [parent.nodeName],
    topic: typeof topic === "string" ? topic : null,
    topicExtractor: typeof topic === "string" ? null : topic,
    internal: false,
    keySerde: requireSerde(produced?.keySerde, parent.keySerde, "key", where, "Produced.with(keySerde, valueSerde)"),
    valueSerde: requireSerde(produced?.valueSerde, parent.valueSerde, "value", where, "Produced.with(keySerde, valueSerde)"),
    partitioner: produced?.partitioner ?? null,
  };
  parent.builder.addSink(sink);
}

/**
 * `repartition()`: a sink to `<name>-repartition` and a source reading it back. The two
 * end up in different sub-topologies, which is the point.
 */
export function addRepartition(parent: StreamState, options: Repartitioned<unknown, unknown> | undefined): StreamState {
  const builder = parent.builder;
  const baseName = options?.name ?? builder.names.next("KSTREAM-REPARTITION-");
  const topic = repartitionTopicName(baseName);
  const where = `repartition(${options?.name ? `"${options.name}"` : ""})`;
  const hint = "Repartitioned.with(keySerde, valueSerde)";
  const keySerde = requireSerde(options?.keySerde, parent.keySerde, "key", where, hint);
  const valueSerde = requireSerde(options?.valueSerde, parent.valueSerde, "value", where, hint);
  builder.addRepartitionTopic(topic, options?.numberOfPartitions ?? null);
  builder.addSink({
    name: claimName(builder, `${topic}-sink`),
    parents: [parent.nodeName],
    topic,
    topicExtractor: null,
    internal: true,
    keySerde,
    valueSerde,
    partitioner: options?.partitioner ?? null,
  });
  const sourceName = claimName(builder, `${topic}-source`);
  builder.addSource({
    name: sourceName,
    topics: [topic],
    pattern: null,
    internal: true,
    keySerde,
    valueSerde,
    timestampExtractor: null,
    offsetReset: null,
  });
  return { builder, nodeName: sourceName, repartitionRequired: false, keySerde, valueSerde };
}
