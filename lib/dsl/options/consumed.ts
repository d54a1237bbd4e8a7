import type { Serde } from "../../serdes/index.ts";
import type { OffsetReset, TimestampExtractor } from "../../topology/index.ts";

/**
 * How to read a topic: serdes, event-time extraction, where to start without a committed
 * offset, and the source node's name. Immutable; every `with*` returns a copy.
 *
 * @example
 *   builder.stream("orders", Consumed.with(Serdes.string(), Serdes.json<Order>())
 *     .withTimestampExtractor((r) => (r.value as Order).placedAt)
 *     .withOffsetReset("earliest"));
 */
export class Consumed<K, V> {
  readonly keySerde: Serde<K>;
  readonly valueSerde: Serde<V>;
  readonly timestampExtractor: TimestampExtractor<K | null, V | null> | null;
  readonly offsetReset: OffsetReset | null;
  readonly name: string | null;

  private constructor(
    keySerde: Serde<K>,
    valueSerde: Serde<V>,
    timestampExtractor: TimestampExtractor<K | null, V | null> | null,
    offsetReset: OffsetReset | null,
    name: string | null,
  ) {
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.timestampExtractor = timestampExtractor;
    this.offsetReset = offsetReset;
    this.name = name;
  }

  static with<K, V>(keySerde: Serde<K>, valueSerde: Serde<V>): Consumed<K, V> {
    return new Consumed(keySerde, valueSerde, null, null, null);
  }

  /** Event time from the record instead of the timestamp Kafka stored. */
  withTimestampExtractor(extractor: TimestampExtractor<K | null, V | null>): Consumed<K, V> {
    return new Consumed(this.keySerde, this.valueSerde, extractor, this.offsetReset, this.name);
  }

  withOffsetReset(reset: OffsetReset): Consumed<K, V> {
    return new Consumed(this.keySerde, this.valueSerde, this.timestampExtractor, reset, this.name);
  }

  withName(name: string): Consumed<K, V> {
    return new Consumed(this.keySerde, this.valueSerde, this.timestampExtractor, this.offsetReset, name);
  }
}
