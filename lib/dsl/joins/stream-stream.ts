import { StreamStreamJoinProcessor, PassThroughProcessor, type JoinSide, type StreamStreamJoinSpec } from "../../processor/index.ts";
import type { Serde } from "../../serdes/index.ts";
import { Stores, type StoreContext } from "../../state/index.ts";
import { Repartitioned } from "../options/repartitioned.ts";
import { addRepartition } from "../sinks.ts";
import { claimName, requireSerde, type StreamState } from "../stream-node.ts";
import type { JoinWindows } from "./join-windows.ts";
import type { StreamJoined } from "./stream-joined.ts";

export type StreamJoinKind = "inner" | "left" | "outer";

/** Windowed changelogs keep a day more than the store, as Kafka Streams' default. */
const CHANGELOG_EXTRA_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * Builds a stream-stream join: repartitions either input if its keys may have changed,
 * marks both inputs co-partitioned, adds one window store per side (duplicates retained)
 * and, for left/outer joins, the store of records waiting for a partner, then one join
 * processor per side and a merge of their output.
 */
export function joinStreams(
  left: StreamState,
  right: StreamState,
  joiner: (left: unknown, right: unknown, key: unknown) => unknown,
  windows: JoinWindows,
  options: StreamJoined<unknown, unknown, unknown> | undefined,
  kind: StreamJoinKind,
): StreamState {
  const builder = left.builder;
  const where = `${kind === "inner" ? "join" : kind === "left" ? "leftJoin" : "outerJoin"}(<stream>)`;
  const hint = "StreamJoined.with(keySerde, valueSerde, otherValueSerde)";
  const keySerde = requireSerde(options?.keySerde, left.keySerde ?? right.keySerde, "key", where, hint);
  const leftValueSerde = requireSerde(options?.valueSerde, left.valueSerde, "value", where, hint);
  const rightValueSerde = requireSerde(options?.otherValueSerde, right.valueSerde, "value", where, `${hint} (the other stream's value serde)`);
  const name = options?.name ?? null;
  if (left.repartitionRequired) left = repartitionForJoin(left, name === null ? null : `${name}-left`, keySerde, leftValueSerde);
  if (right.repartitionRequired) right = repartitionForJoin(right, name === null ? null : `${name}-right`, keySerde, rightValueSerde);
  builder.copartition([left.nodeName, right.nodeName]);

  const outer: Record<JoinSide, boolean> = { left: kind !== "inner", right: kind === "outer" };
  const thisName = name !== null ? claimName(builder, `${name}-${outer.left ? "outer" : "join"}-this`) : builder.names.next(outer.left ? "KSTREAM-OUTERTHIS-" : "KSTREAM-JOINTHIS-");
  const otherName = name !== null ? claimName(builder, `${name}-${outer.right ? "outer" : "join"}-other`) : builder.names.next(outer.right ? "KSTREAM-OUTEROTHER-" : "KSTREAM-JOINOTHER-");
  const mergeName = name !== null ? claimName(builder, `${name}-merge`) : builder.names.next("KSTREAM-MERGE-");

  const storeBase = options?.storeName ?? null;
  const leftStore = storeBase !== null ? `${storeBase}-this-join-store` : `${thisName}-store`;
  const rightStore = storeBase !== null ? `${storeBase}-other-join-store` : `${otherName}-store`;
  const pendingStore =
    kind === "inner"
      ? null
      : storeBase !== null || name !== null
        ? `${storeBase ?? name}-outer-shared-join-store`
        : `${thisName.replace("KSTREAM-OUTERTHIS-", "KSTREAM-OUTERSHARED-")}-store`;

  // Kafka Streams keeps window size (before + after) + grace: what a late record can still join.
  const retentionMs = Math.max(1, windows.sizeMs + windows.graceMs);
  const logging = options?.loggingEnabled ?? true;
  const logConfig = { "cleanup.policy": "compact,delete", "retention.ms": String(retentionMs + CHANGELOG_EXTRA_RETENTION_MS), ...options?.logConfig };
  const windowStore = (storeName: string, valueSerde: Serde<unknown>): void => {
    const b = Stores.windowStoreBuilder(storeName, { retentionMs, windowSizeMs: Math.max(1, windows.sizeMs), retainDuplicates: true }, keySerde, valueSerde);
    if (logging) b.withLoggingEnabled(logConfig);
    else b.withLoggingDisabled();
    builder.addStateStore({ name: storeName, changelog: logging, changelogConfig: b.logConfig, build: (context: StoreContext) => b.build(context) });
  };
  windowStore(leftStore, leftValueSerde);
  windowStore(rightStore, rightValueSerde);
  if (pendingStore !== null) {
    const b = Stores.keyValueStoreBuilder(pendingStore, bytesSerde, bytesSerde);
    if (logging) b.withLoggingEnabled({ ...options?.logConfig });
    else b.withLoggingDisabled();
    builder.addStateStore({ name: pendingStore, changelog: logging, changelogConfig: b.logConfig, build: (context: StoreContext) => b.build(context) });
  }

  const spec: StreamStreamJoinSpec = {
    leftStore,
    rightStore,
    pendingStore,
    beforeMs: windows.beforeMs,
    afterMs: windows.afterMs,
    graceMs: windows.graceMs,
    outer,
    keySerde,
    valueSerdes: { left: leftValueSerde, right: rightValueSerde },
    joiner,
  };
  const stores = pendingStore === null ? [leftStore, rightStore] : [leftStore, rightStore, pendingStore];
  builder.addProcessor(thisName, () => new StreamStreamJoinProcessor(thisName, "left", spec), [left.nodeName], { stores });
  builder.addProcessor(otherName, () => new StreamStreamJoinProcessor(otherName, "right", spec), [right.nodeName], { stores });
  builder.addProcessor(mergeName, () => new PassThroughProcessor(), [thisName, otherName]);
  return { builder, nodeName: mergeName, repartitionRequired: false, keySerde, valueSerde: null };
}

/**
 * Routes a stream whose keys may have changed through `<base>-repartition` before a join.
 * The base is the join's name plus `-left`/`-right`, else the upstream node's name (as in
 * Kafka Streams); a generated one if that topic is taken already.
 */
export function repartitionForJoin(state: StreamState, base: string | null, keySerde: Serde<unknown>, valueSerde: Serde<unknown>): StreamState {
  let name = base ?? state.nodeName;
  if (base === null && state.builder.hasNode(`${name}-repartition-sink`)) name = state.builder.names.next("KSTREAM-REPARTITION-");
  return addRepartition(state, Repartitioned.as<unknown, unknown>(name).withKeySerde(keySerde).withValueSerde(valueSerde));
}

const bytesSerde = {
  serialize: (_topic: string, value: Buffer | null): Buffer | null => value,
  deserialize: (_topic: string, data: Buffer | null): Buffer | null => data,
};
