import type { ProcessorSupplier, Headers, RecordContext } from "../processor/index.ts";
import type { Serde } from "../serdes/index.ts";

/** Where a source with no committed offset starts reading. */
export type OffsetReset = "earliest" | "latest";

/** What a timestamp extractor sees: the deserialized record and where it came from. */
export interface ConsumedRecord<K, V> {
  readonly key: K;
  readonly value: V;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** The timestamp Kafka stored with the record. */
  readonly timestamp: number;
  readonly headers: Headers;
}

/**
 * Chooses a record's event time. `partitionTimeMs` is the largest timestamp seen on its
 * partition so far (-1 at first). A negative result is an invalid timestamp and goes to the
 * deserialization exception handler.
 */
export type TimestampExtractor<K = unknown, V = unknown> = (record: ConsumedRecord<K, V>, partitionTimeMs: number) => number;

/** Picks the output topic per record. */
export type TopicNameExtractor<K = unknown, V = unknown> = (key: K, value: V, context: RecordContext) => string;

/** Picks the output partition; `undefined` leaves it to the producer's default partitioner. */
export type StreamPartitioner<K = unknown, V = unknown> = (topic: string, key: K, value: V, numPartitions: number) => number | undefined;

/**
 * A state store as the topology knows it: a name, whether it has a changelog, and how to
 * make one. The state layer defines what `build` takes; the topology only carries it.
 */
export interface StoreSpec {
  readonly name: string;
  readonly changelog: boolean;
  /** Extra topic configs for the changelog topic, e.g. retention for windowed stores. */
  readonly changelogConfig?: Readonly<Record<string, string>>;
  readonly build: (...args: never[]) => unknown;
}

export interface SourceNode {
  readonly kind: "source";
  readonly name: string;
  /** Exact topic names; internal ones (see `internal`) without the application id prefix. */
  readonly topics: readonly string[];
  /** Set instead of `topics` for a pattern subscription. */
  readonly pattern: RegExp | null;
  /** True when `topics` are repartition topics, named `<applicationId>-<topic>` at run time. */
  readonly internal: boolean;
  readonly keySerde: Serde<unknown>;
  readonly valueSerde: Serde<unknown>;
  readonly timestampExtractor: TimestampExtractor | null;
  readonly offsetReset: OffsetReset | null;
}

export interface ProcessorNode {
  readonly kind: "processor";
  readonly name: string;
  readonly parents: readonly string[];
  readonly supplier: ProcessorSupplier<unknown, unknown, unknown, unknown>;
  readonly stores: readonly string[];
  /** The node may change keys: a later grouping or join must repartition. */
  readonly keyChanging: boolean;
}

export interface SinkNode {
  readonly kind: "sink";
  readonly name: string;
  readonly parents: readonly string[];
  /** A fixed topic (internal ones without prefix), or null when `topicExtractor` picks it. */
  readonly topic: string | null;
  readonly topicExtractor: TopicNameExtractor | null;
  readonly internal: boolean;
  readonly keySerde: Serde<unknown>;
  readonly valueSerde: Serde<unknown>;
  readonly partitioner: StreamPartitioner | null;
}

export type TopologyNode = SourceNode | ProcessorNode | SinkNode;

export function parentsOf(node: TopologyNode): readonly string[] {
  return node.kind === "source" ? [] : node.parents;
}
