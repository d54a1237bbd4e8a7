import { Serdes } from "../serdes/builtins.ts";
import type { Serde } from "../serdes/serde.ts";
import { TopologyBuilder } from "../topology/builder.ts";
import type { StoreSpec, TimestampExtractor } from "../topology/nodes.ts";
import type { Topology } from "../topology/topology.ts";
import { TopologyError } from "../errors/index.ts";
import { Consumed } from "./options/consumed.ts";
import { KStream } from "./kstream.ts";
import { nodeName } from "./stream-node.ts";
import { Named } from "./options/named.ts";

/**
 * The entry point of the DSL: read topics as streams, chain operators, then `build()` the
 * topology to run.
 *
 * @example
 *   const builder = new StreamsBuilder();
 *   builder.stream("words", Consumed.with(Serdes.string(), Serdes.string()))
 *     .filter((k, v) => v !== null && v.length > 3)
 *     .to("long-words");
 *   const topology = builder.build();
 */
export class StreamsBuilder {
  private readonly topology = new TopologyBuilder();

  /**
   * Reads one topic, several, or every topic matching a pattern. Without `Consumed` keys
   * and values are raw Buffers.
   */
  stream<K = Buffer, V = Buffer>(topics: string | readonly string[] | RegExp, consumed?: Consumed<K, V>): KStream<K | null, V | null> {
    const options = consumed ?? (Consumed.with(Serdes.bytes(), Serdes.bytes()) as unknown as Consumed<K, V>);
    const isPattern = topics instanceof RegExp;
    const names = isPattern ? [] : typeof topics === "string" ? [topics] : [...topics];
    if (!isPattern && names.length === 0) throw new TopologyError("stream() needs at least one topic.");
    const name = nodeName(this.topology, options.name !== null ? Named.as(options.name) : null, "KSTREAM-SOURCE-");
    const keySerde = options.keySerde as Serde<unknown>;
    const valueSerde = options.valueSerde as Serde<unknown>;
    this.topology.addSource({
      name,
      topics: names,
      pattern: isPattern ? topics : null,
      internal: false,
      keySerde,
      valueSerde,
      timestampExtractor: options.timestampExtractor as TimestampExtractor | null,
      offsetReset: options.offsetReset,
    });
    return new KStream({ builder: this.topology, nodeName: name, repartitionRequired: false, keySerde, valueSerde });
  }

  /** Registers a state store that processors can then name in `process(.., "store-name")`. */
  addStateStore(store: StoreSpec): this {
    this.topology.addStateStore(store);
    return this;
  }

  /** Checks the graph and cuts it into sub-topologies. Errors say what is wrong and how to fix it. */
  build(): Topology {
    return this.topology.build();
  }
}
