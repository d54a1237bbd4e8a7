import { FatalError } from "../errors/index.ts";
import type { StoreSerde } from "./serde.ts";

/**
 * The serialization done by the metered layer, the only layer that sees typed keys and
 * values. Serdes are called with the changelog topic, as Kafka Streams does, so that a
 * schema-registry serde registers the store's subject under that name.
 */
export class StoreSerdes<K, V> {
  readonly storeName: string;
  readonly topic: string;
  private readonly keySerde: StoreSerde<K>;
  private readonly valueSerde: StoreSerde<V>;

  constructor(storeName: string, topic: string, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>) {
    this.storeName = storeName;
    this.topic = topic;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  // The last primitive key serialized: an update reads then writes the same key, and
  // serializing it once saves a Buffer per record. Object.is, not ===: 0 and -0 serialize apart.
  // An object key may change between calls, so it is not kept.
  private lastKey: unknown = undefined;
  private lastKeyBytes: Buffer | null = null;

  keyBytes(key: K): Buffer {
    if (key === null || key === undefined) {
      throw new FatalError(`Store "${this.storeName}" does not accept a null key`);
    }
    if (this.lastKeyBytes !== null && Object.is(key, this.lastKey)) return this.lastKeyBytes;
    const bytes = this.serializeKeyWith(this.keySerde, key);
    if (typeof key !== "object" && typeof key !== "function") {
      this.lastKey = key;
      this.lastKeyBytes = bytes;
    }
    return bytes;
  }

  /** Serializes a prefix (or any other key-like value) with the given serializer. */
  serializeKeyWith<P>(serializer: { serialize(topic: string, value: P | null): Buffer | null }, key: P): Buffer {
    const bytes = serializer.serialize(this.topic, key);
    if (bytes === null) {
      throw new FatalError(`The key serde of store "${this.storeName}" returned null for the key ${String(key)}`);
    }
    return bytes;
  }

  key(bytes: Buffer): K {
    return this.keySerde.deserialize(this.topic, bytes) as K;
  }

  valueBytes(value: V | null): Buffer | null {
    return value === null ? null : this.valueSerde.serialize(this.topic, value);
  }

  value(bytes: Buffer | null): V | null {
    return bytes === null ? null : this.valueSerde.deserialize(this.topic, bytes);
  }
}
