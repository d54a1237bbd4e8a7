import type { Serde } from "../../serdes/index.ts";
import type { StreamPartitioner } from "../../topology/index.ts";

/**
 * How to write a topic: serdes, an optional partitioner, and the sink node's name.
 *
 * @example
 *   stream.to("alerts", Produced.with(Serdes.string(), Serdes.json<Alert>())
 *     .withStreamPartitioner((topic, key, value, n) => (value?.region === "eu" ? 0 : undefined)));
 */
export class Produced<K, V> {
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  readonly partitioner: StreamPartitioner<K | null, V | null> | null;
  readonly name: string | null;

  private constructor(
    keySerde: Serde<K> | null,
    valueSerde: Serde<V> | null,
    partitioner: StreamPartitioner<K | null, V | null> | null,
    name: string | null,
  ) {
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.partitioner = partitioner;
    this.name = name;
  }

  static with<K, V>(keySerde: Serde<K>, valueSerde: Serde<V>): Produced<K, V> {
    return new Produced(keySerde, valueSerde, null, null);
  }

  /** Keep the stream's own serdes (those it was read with) and only name the sink. */
  static as<K, V>(name: string): Produced<K, V> {
    return new Produced<K, V>(null, null, null, name);
  }

  withStreamPartitioner(partitioner: StreamPartitioner<K | null, V | null>): Produced<K, V> {
    return new Produced(this.keySerde, this.valueSerde, partitioner, this.name);
  }

  withName(name: string): Produced<K, V> {
    return new Produced(this.keySerde, this.valueSerde, this.partitioner, name);
  }
}
