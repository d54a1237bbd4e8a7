import type { Serde } from "../../serdes/index.ts";
import type { StreamPartitioner } from "../../topology/index.ts";

/**
 * How `repartition()` builds its internal topic `<applicationId>-<name>-repartition`.
 * Without a name one is generated, and it shifts when operators are added before it.
 *
 * @example
 *   stream.repartition(Repartitioned.as<string, Order>("orders-by-customer").withNumberOfPartitions(12));
 */
export class Repartitioned<K, V> {
  readonly name: string | null;
  readonly numberOfPartitions: number | null;
  readonly keySerde: Serde<K> | null;
  readonly valueSerde: Serde<V> | null;
  readonly partitioner: StreamPartitioner<K | null, V | null> | null;

  private constructor(
    name: string | null,
    numberOfPartitions: number | null,
    keySerde: Serde<K> | null,
    valueSerde: Serde<V> | null,
    partitioner: StreamPartitioner<K | null, V | null> | null,
  ) {
    this.name = name;
    this.numberOfPartitions = numberOfPartitions;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
    this.partitioner = partitioner;
  }

  static as<K, V>(name: string): Repartitioned<K, V> {
    return new Repartitioned<K, V>(name, null, null, null, null);
  }

  static with<K, V>(keySerde: Serde<K>, valueSerde: Serde<V>): Repartitioned<K, V> {
    return new Repartitioned(null, null, keySerde, valueSerde, null);
  }

  static numberOfPartitions<K, V>(n: number): Repartitioned<K, V> {
    return new Repartitioned<K, V>(null, null, null, null, null).withNumberOfPartitions(n);
  }

  withNumberOfPartitions(n: number): Repartitioned<K, V> {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`Repartitioned: number of partitions must be a positive integer, got ${n}`);
    return new Repartitioned(this.name, n, this.keySerde, this.valueSerde, this.partitioner);
  }

  withKeySerde(serde: Serde<K>): Repartitioned<K, V> {
    return new Repartitioned(this.name, this.numberOfPartitions, serde, this.valueSerde, this.partitioner);
  }

  withValueSerde(serde: Serde<V>): Repartitioned<K, V> {
    return new Repartitioned(this.name, this.numberOfPartitions, this.keySerde, serde, this.partitioner);
  }

  withStreamPartitioner(partitioner: StreamPartitioner<K | null, V | null>): Repartitioned<K, V> {
    return new Repartitioned(this.name, this.numberOfPartitions, this.keySerde, this.valueSerde, partitioner);
  }
}
