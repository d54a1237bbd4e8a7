import type { Serde } from "../../serdes/index.ts";

/**
 * Options of a stream-table join: the processor's name (which also names the repartition
 * topic `<name>-repartition` when the stream's keys changed) and the serdes of that topic.
 *
 * @example
 *   clicks.selectKey((k, c) => c.userId).join(users, enrich, Joined.with(Serdes.string(), clickSerde, userSerde).withName("clicks-users"));
 */
export class Joined<K, V, VO> {
  readonly name: string | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  /** The table's value serde (kept for Kafka Streams parity; the table knows its own). */
  readonly otherValueSerde: Serde<VO> | null;

  private constructor(name: string | null, keySerde: Serde<K> | null, valueSerde: Serde<V> | null, otherValueSerde: Serde<VO> | null) {
    this.name = name;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.otherValueSerde = otherValueSerde;
  }

  static with<K, V, VO>(keySerde: Serde<K>, valueSerde: Serde<V>, otherValueSerde?: Serde<VO>): Joined<K, V, VO> {
    return new Joined<K, V, VO>(null, keySerde, valueSerde, otherValueSerde ?? null);
  }

  static as<K, V, VO>(name: string): Joined<K, V, VO> {
    return new Joined<K, V, VO>(name, null, null, null);
  }

  withName(name: string): Joined<K, V, VO> {
    return new Joined(name, this.keySerde, this.valueSerde, this.otherValueSerde);
  }

  withKeySerde(keySerde: Serde<K>): Joined<K, V, VO> {
    return new Joined(this.name, keySerde, this.valueSerde, this.otherValueSerde);
  }

  withValueSerde(valueSerde: Serde<V>): Joined<K, V, VO> {
    return new Joined(this.name, this.keySerde, valueSerde, this.otherValueSerde);
  }

  withOtherValueSerde(otherValueSerde: Serde<VO>): Joined<K, V, VO> {
    return new Joined(this.name, this.keySerde, this.valueSerde, otherValueSerde);
  }
}

/**
 * Options of a foreign-key table join: its name, which names the internal topics
 * `<applicationId>-<name>-subscription-registration-topic` and
 * `<applicationId>-<name>-subscription-response-topic`, the subscription store
 * `<name>-subscription-store` and the join's processors. Without one, names are generated
 * (and shift when operators are added before the join).
 *
 * @example
 *   orders.join(customers, (o) => o.customerId, (o, c) => ({ ...o, customer: c }), TableJoined.as("order-customer"));
 */
export class TableJoined {
  readonly name: string | null;

  private constructor(name: string | null) {
    this.name = name;
  }

  static as(name: string): TableJoined {
    return new TableJoined(name);
  }
}
