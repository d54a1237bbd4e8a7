import type { Serde } from "../../serdes/index.ts";

/**
 * How `groupBy`/`groupByKey` group records: serdes for the repartition topic (and the
 * aggregation's store) and the name of the repartition topic, `<applicationId>-<name>-repartition`.
 * Without a name the topic is named after the aggregation's store.
 *
 * @example
 *   orders.groupBy((id, o) => o.customer, Grouped.as<string, Order>("orders-by-customer").withKeySerde(Serdes.string()));
 */
export class Grouped<K, V> {
  readonly name: string | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;

  private constructor(name: string | null, keySerde: Serde<K> | null, valueSerde: Serde<V> | null) {
    this.name = name;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  static as<K, V>(name: string): Grouped<K, V> {
    return new Grouped<K, V>(name, null, null);
  }

  static with<K, V>(keySerde: Serde<K>, valueSerde: Serde<V>): Grouped<K, V> {
    return new Grouped(null, keySerde, valueSerde);
  }

  static keySerde<K, V>(keySerde: Serde<K>): Grouped<K, V> {
    return new Grouped<K, V>(null, keySerde, null);
  }

  withName(name: string): Grouped<K, V> {
    return new Grouped(name, this.keySerde, this.valueSerde);
  }

  withKeySerde(keySerde: Serde<K>): Grouped<K, V> {
    return new Grouped(this.name, keySerde, this.valueSerde);
  }

  withValueSerde(valueSerde: Serde<V>): Grouped<K, V> {
    return new Grouped(this.name, this.keySerde, valueSerde);
  }
}
