import { createHash } from "node:crypto";
import type { Serde } from "../../serdes/index.ts";

/**
 * The messages of a foreign-key join on its two internal topics, and their byte layouts.
 *
 * Registration (`<name>-subscription-registration-topic`, keyed by the foreign key):
 * `[instruction: 1 subscribe | 2 subscribe, answering even without a foreign row | 0
 * unsubscribe | 3 unsubscribe and answer with null][hash: 16 bytes][primary key bytes]`.
 * Response (`<name>-subscription-response-topic`, keyed by the left table's primary key):
 * `[hash: 16 bytes][1 + foreign value bytes | 0 when the foreign row is absent]`.
 * The hash is that of the left row's serialized value when it subscribed: a response whose
 * hash no longer matches the current left row is stale and dropped.
 */
export interface Subscription {
  readonly subscribe: boolean;
  /**
   * Answer even when the foreign row is absent (Kafka Streams' PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE):
   * a left join always, an inner join when the row moved from another foreign key, whose
   * result must be reset. Otherwise an absent foreign row gets no answer (PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE).
   * On an unsubscription: answer with null (DELETE_KEY_AND_PROPAGATE), else none.
   */
  readonly propagateNull: boolean;
  readonly hash: Buffer;
  readonly primaryKey: unknown;
}

export interface SubscriptionResponse {
  readonly hash: Buffer;
  readonly foreignValue: unknown;
}

const HASH_BYTES = 16;
const NO_HASH = Buffer.alloc(HASH_BYTES);

/** The hash a subscription carries: MD5 of the left row's serialized value (not for security, for identity). */
export function valueHash(bytes: Buffer | null): Buffer {
  return bytes === null ? NO_HASH : createHash("md5").update(bytes).digest();
}

export function subscriptionSerde(primaryKeySerde: Serde<unknown>): Serde<Subscription> {
  return {
    name: "fk-subscription",
    serialize(topic, value) {
      if (value === null) return null;
      const key = primaryKeySerde.serialize(topic, value.primaryKey) ?? Buffer.alloc(0);
      const instruction = value.subscribe ? (value.propagateNull ? 2 : 1) : value.propagateNull ? 3 : 0;
      return Buffer.concat([Buffer.from([instruction]), value.hash, key]);
    },
    deserialize(topic, data) {
      if (data === null) return null;
      return {
        subscribe: data[0] === 1 || data[0] === 2,
        propagateNull: data[0] === 2 || data[0] === 3,
        hash: Buffer.from(data.subarray(1, 1 + HASH_BYTES)),
        primaryKey: primaryKeySerde.deserialize(topic, data.subarray(1 + HASH_BYTES)),
      };
    },
  };
}

export function responseSerde(foreignValueSerde: Serde<unknown>): Serde<SubscriptionResponse> {
  return {
    name: "fk-response",
    serialize(topic, value) {
      if (value === null) return null;
      const foreign = value.foreignValue === null ? null : foreignValueSerde.serialize(topic, value.foreignValue);
      return foreign === null ? Buffer.concat([value.hash, Buffer.from([0])]) : Buffer.concat([value.hash, Buffer.from([1]), foreign]);
    },
    deserialize(topic, data) {
      if (data === null) return null;
      const present = data[HASH_BYTES] === 1;
      return {
        hash: Buffer.from(data.subarray(0, HASH_BYTES)),
        foreignValue: present ? foreignValueSerde.deserialize(topic, data.subarray(HASH_BYTES + 1)) : null,
      };
    },
  };
}

/** Subscription store keys: `[foreign key length: uint32 BE][foreign key bytes][primary key bytes]`. */
export function subscriptionPrefix(foreignKey: Buffer): Buffer {
  const prefix = Buffer.alloc(4 + foreignKey.length);
  prefix.writeUInt32BE(foreignKey.length, 0);
  foreignKey.copy(prefix, 4);
  return prefix;
}

export function subscriptionKey(foreignKey: Buffer, primaryKey: Buffer): Buffer {
  return Buffer.concat([subscriptionPrefix(foreignKey), primaryKey]);
}

export function primaryKeyOf(subscriptionStoreKey: Buffer): Buffer {
  return subscriptionStoreKey.subarray(4 + subscriptionStoreKey.readUInt32BE(0));
}
