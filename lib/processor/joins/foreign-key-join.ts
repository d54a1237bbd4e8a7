import type { KeyValueStore } from "../../state/index.ts";
import type { Serde } from "../../serdes/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import type { Change } from "../stateful/change.ts";
import { recordSkipped } from "../stateful/skipped-records.ts";
import type { TableValueGetter, TableValueGetterSupplier } from "../stateful/value-getter.ts";
import { refuseAsync } from "../synchronous.ts";
import {
  primaryKeyOf,
  subscriptionKey,
  subscriptionPrefix,
  valueHash,
  type Subscription,
  type SubscriptionResponse,
} from "./fk-wire.ts";

/** What the processors of one foreign-key join share. */
export interface ForeignKeyJoinSpec {
  readonly leftJoin: boolean;
  readonly foreignKey: (value: unknown) => unknown;
  readonly joiner: (value: unknown, foreignValue: unknown, key: unknown) => unknown;
  readonly leftKeySerde: Serde<unknown>;
  readonly leftValueSerde: Serde<unknown>;
  readonly foreignKeySerde: Serde<unknown>;
  readonly left: TableValueGetterSupplier<unknown, unknown>;
  readonly right: TableValueGetterSupplier<unknown, unknown>;
  readonly subscriptionStore: string;
  /** Child node names: the registration sink, the response sink, and the result table. */
  readonly registrationSink: string;
  readonly responseSink: string;
  readonly output: string;
}

/** The joined row for a left row and its foreign row, or null when the join has none. */
export function resolveForeignKeyJoin(spec: Pick<ForeignKeyJoinSpec, "leftJoin" | "joiner">, key: unknown, value: unknown, foreignValue: unknown): unknown {
  if (value === null) return null;
  if (foreignValue === null && !spec.leftJoin) return null;
  const joined = spec.joiner(value, foreignValue, key);
  refuseAsync(joined, "A join's value joiner");
  return joined ?? null;
}

/** What the join hands its result node: the joined row (null: none) and the rows it came from. */
export interface ForeignKeyJoinResult {
  readonly value: unknown;
  readonly left: unknown;
  readonly foreign: unknown;
  /**
   * Forward even a tombstone for a key without a result, as Kafka Streams does for every
   * current response and when an inner-join row leaves its foreign key
   * (DELETE_KEY_AND_PROPAGATE): it cannot know whether the row had joined.
   */
  readonly always?: boolean;
}

function result(spec: ForeignKeyJoinSpec, key: unknown, left: unknown, foreign: unknown): ForeignKeyJoinResult {
  return { value: resolveForeignKeyJoin(spec, key, left, foreign), left, foreign };
}

function extract(spec: ForeignKeyJoinSpec, value: unknown): unknown {
  if (value === null) return null;
  const fk = spec.foreignKey(value);
  refuseAsync(fk, "A foreign-key extractor");
  return fk ?? null;
}

/**
 * Left table side: for each change of a left row, unsubscribe from the old foreign key
 * when it changes or the row goes, subscribe (with the hash of the new value) to the new
 * one. In a left join the result of a deleted row or one without foreign key is final at
 * once (a tombstone, or the row joined with null). In an inner join a row leaving its
 * foreign key for none asks the old foreign side to answer with a tombstone, which goes out
 * even when the row had not joined (Kafka Streams cannot know either); a row that never had
 * one sends nothing.
 */
export class SubscriptionSendProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  private readonly nodeName: string;
  private readonly spec: ForeignKeyJoinSpec;
  private context!: ProcessorContext<unknown, unknown>;

  constructor(nodeName: string, spec: ForeignKeyJoinSpec) {
    this.nodeName = nodeName;
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
  }

  process = (record: StreamRecord<unknown, Change<unknown>>): void => {
    const { spec } = this;
    if (record.key === null || record.key === undefined) {
      recordSkipped(this.context, this.nodeName, "null key in a foreign-key join");
      return;
    }
    const next = record.value.newValue ?? null;
    const newFk = extract(spec, next);
    const oldFk = extract(spec, record.value.oldValue ?? null);
    const bytes = (fk: unknown): Buffer | null => (fk === null ? null : spec.foreignKeySerde.serialize(spec.registrationSink, fk));
    const newFkBytes = bytes(newFk);
    const oldFkBytes = bytes(oldFk);
    const hash = valueHash(next === null ? null : spec.leftValueSerde.serialize(spec.registrationSink, next));
    const leaves = oldFkBytes !== null && (newFkBytes === null || !oldFkBytes.equals(newFkBytes));
    if (leaves) {
      // An inner-join row left with no foreign key: the old foreign side answers with a
      // tombstone, stamped with the newer of the two rows (Kafka Streams' DELETE_KEY_AND_PROPAGATE).
      const propagateNull = !spec.leftJoin && newFk === null;
      const message: Subscription = { subscribe: false, propagateNull, hash, primaryKey: record.key };
      this.context.forward(record.withKeyValue(oldFk, message), spec.registrationSink);
    }
    if (newFk !== null) {
      // As Kafka Streams: an inner join resets the result only when the row left another foreign key.
      const message: Subscription = { subscribe: true, propagateNull: spec.leftJoin || leaves, hash, primaryKey: record.key };
      this.context.forward(record.withKeyValue(newFk, message), spec.registrationSink);
    } else if (spec.leftJoin) {
      this.context.forward(record.withValue(result(spec, record.key, next, null)), spec.output);
    }
  };
}

/**
 * Foreign table side, registrations: keeps `(foreign key, primary key) -> hash` in the
 * subscription store and answers a subscription at once with the foreign row as it is now,
 * timestamped with the newer of the subscription and the foreign row. Without a foreign row
 * it answers (null) only when asked to (`propagateNull`: a left join, or an inner-join row
 * that moved from another foreign key, whose old result that null removes). An
 * unsubscription asked to answer gets a null answer: the inner-join tombstone of a row that
 * left its foreign key for none.
 */
export class SubscriptionReceiveProcessor implements Processor<unknown, Subscription, unknown, SubscriptionResponse> {
  private readonly nodeName: string;
  private readonly spec: ForeignKeyJoinSpec;
  private context!: ProcessorContext<unknown, SubscriptionResponse>;
  private store!: KeyValueStore<Buffer, Buffer>;
  private right!: TableValueGetter<unknown, unknown>;

  constructor(nodeName: string, spec: ForeignKeyJoinSpec) {
    this.nodeName = nodeName;
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, SubscriptionResponse>): void {
    this.context = context;
    this.store = context.getStateStore<KeyValueStore<Buffer, Buffer>>(this.spec.subscriptionStore);
    this.right = this.spec.right.init(context);
  }

  process = (record: StreamRecord<unknown, Subscription | null>): void => {
    const message = record.value;
    if (record.key === null || record.key === undefined || message === null) {
      recordSkipped(this.context, this.nodeName, "a subscription without foreign key or body");
      return;
    }
    const fkBytes = this.spec.foreignKeySerde.serialize(this.nodeName, record.key) ?? Buffer.alloc(0);
    const pkBytes = this.spec.leftKeySerde.serialize(this.nodeName, message.primaryKey) ?? Buffer.alloc(0);
    const storeKey = subscriptionKey(fkBytes, pkBytes);
    if (message.subscribe) this.store.put(storeKey, message.hash);
    else this.store.delete(storeKey);
    if (!message.subscribe && !message.propagateNull) return;
    const foreign = this.right.get(record.key);
    if (foreign === null && !message.propagateNull) return;
    const foreignValue = message.subscribe ? (foreign?.value ?? null) : null;
    const response = record.withKeyValue(message.primaryKey, { hash: message.hash, foreignValue });
    // The result is as new as the newer of the two rows it joins (Kafka Streams' SubscriptionJoinProcessor).
    this.context.forward(foreign === null ? response : response.withTimestamp(Math.max(record.timestamp, foreign.timestampMs)));
  };
}

/** Foreign table side, updates: every subscriber of the changed foreign row gets its new value. */
export class ForeignTableChangeProcessor implements Processor<unknown, Change<unknown>, unknown, SubscriptionResponse> {
  private readonly spec: ForeignKeyJoinSpec;
  private readonly nodeName: string;
  private context!: ProcessorContext<unknown, SubscriptionResponse>;
  private store!: KeyValueStore<Buffer, Buffer>;

  constructor(nodeName: string, spec: ForeignKeyJoinSpec) {
    this.nodeName = nodeName;
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, SubscriptionResponse>): void {
    this.context = context;
    this.store = context.getStateStore<KeyValueStore<Buffer, Buffer>>(this.spec.subscriptionStore);
  }

  process = (record: StreamRecord<unknown, Change<unknown>>): void => {
    if (record.key === null || record.key === undefined) return;
    const fkBytes = this.spec.foreignKeySerde.serialize(this.nodeName, record.key) ?? Buffer.alloc(0);
    const foreignValue = record.value.newValue ?? null;
    for (const entry of this.store.prefixScan(subscriptionPrefix(fkBytes))) {
      const primaryKey = this.spec.leftKeySerde.deserialize(this.nodeName, primaryKeyOf(entry.key));
      this.context.forward(record.withKeyValue(primaryKey, { hash: entry.value, foreignValue }));
    }
  };
}

/**
 * Left table side, responses: a response counts only if its hash matches the left row as it
 * is now; otherwise the row changed since it subscribed and a newer response is on its way
 * (or the row went). A current one becomes the joined row.
 */
export class SubscriptionResolveProcessor implements Processor<unknown, SubscriptionResponse, unknown, unknown> {
  private readonly spec: ForeignKeyJoinSpec;
  private context!: ProcessorContext<unknown, unknown>;
  private left!: TableValueGetter<unknown, unknown>;

  constructor(spec: ForeignKeyJoinSpec) {
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    this.left = this.spec.left.init(context);
  }

  process = (record: StreamRecord<unknown, SubscriptionResponse | null>): void => {
    const response = record.value;
    if (record.key === null || record.key === undefined || response === null) return;
    const current = this.left.get(record.key)?.value ?? null;
    const currentHash = valueHash(current === null ? null : this.spec.leftValueSerde.serialize(this.spec.output, current));
    // A deleted row matches the hash of no value: the answer to its unsubscription.
    if (!currentHash.equals(response.hash)) return;
    // A current response always goes out, a tombstone included (Kafka Streams' ResponseJoinProcessor).
    this.context.forward(record.withValue({ ...result(this.spec, record.key, current, response.foreignValue), always: true }));
  };
}
