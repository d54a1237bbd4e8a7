import {
  EmitStrategy,
  PassThroughProcessor,
  SessionWindowAggregateProcessor,
  SlidingWindowAggregateProcessor,
  TimeWindowAggregateProcessor,
  WindowedSerdes,
  change,
  type SessionWindows,
  type SlidingWindows,
  type TableValueGetterSupplier,
  type TimeWindows,
  type WindowedAggregateOptions,
  type WindowedAggregation,
} from "../../processor/index.ts";
import type { Serde } from "../../serdes/index.ts";
import type { SessionStore, WindowStore, Windowed } from "../../state/index.ts";
import { repartitionForGrouping, type GroupedStreamState } from "../grouping.ts";
import { storeNameFor } from "../materialize.ts";
import type { Materialized } from "../options/materialized.ts";
import type { Named } from "../options/named.ts";
import { claimName, nodeName, requireSerde } from "../stream-node.ts";
import type { TableState } from "../table-node.ts";
import { addFinalResultBuffer, addSessionStore, addWindowStore, type WindowedStoreSettings } from "./window-stores.ts";
import { registerWindowedTable } from "./windowed-tables.ts";

export type AnyWindows = TimeWindows | SlidingWindows | SessionWindows;

/** What a windowed handle (TimeWindowedKStream, SessionWindowedKStream) carries besides the grouped stream. */
export interface WindowedOptions {
  readonly emitStrategy: EmitStrategy;
  /** Topic for records too late for their window, with headers saying why; null: counted only. */
  readonly lateRecordsTopic: string | null;
}

export interface WindowedAggregationSpec {
  readonly prefix: "KSTREAM-AGGREGATE-" | "KSTREAM-REDUCE-";
  readonly named: Named | null | undefined;
  readonly materialized: Materialized<unknown, unknown> | null | undefined;
  /** The aggregate's serde when Materialized gives none (count: int64; reduce: the stream's). */
  readonly valueSerde: Serde<unknown> | null;
  readonly aggregation: WindowedAggregation<unknown, unknown, unknown>;
  readonly where: string;
}

/**
 * count/reduce/aggregate over windows: names the store and processor as Kafka Streams does,
 * repartitions if keys changed, registers the window or session store (retention = window
 * size + grace unless Materialized says more; changelog compact,delete with one extra day),
 * and the durable final-result buffer when emitting on close. Late records go to `lateRecordsTopic` through a sink child when set.
 */
export function aggregateWindowed(grouped: GroupedStreamState, windows: AnyWindows, options: WindowedOptions, spec: WindowedAggregationSpec): TableState {
  const builder = grouped.stream.builder;
  const storeName = storeNameFor(builder, spec.materialized, spec.prefix);
  const name = nodeName(builder, spec.named, spec.prefix);
  const parent = repartitionForGrouping(grouped, storeName, spec.where);
  const hint = `Materialized.as("${storeName}").withKeySerde(..).withValueSerde(..)`;
  const keySerde = requireSerde(spec.materialized?.keySerde, grouped.keySerde ?? parent.keySerde, "key", spec.where, hint);
  const valueSerde = requireSerde(spec.materialized?.valueSerde, spec.valueSerde, "value", spec.where, hint);
  const materialized = spec.materialized;
  const retentionMs = Math.max(materialized?.retentionMs ?? 0, windows.retentionMs);
  const settings: WindowedStoreSettings = {
    caching: materialized?.cachingEnabled ?? true,
    logging: materialized?.loggingEnabled ?? true,
    logConfig: materialized?.logConfig ?? {},
    retentionMs,
  };
  const onClose = options.emitStrategy.type === "on_window_close";
  const bufferStoreName = onClose ? `${storeName}-final-results` : null;
  const stores = [storeName];
  if (windows.kind === "session") addSessionStore(builder, storeName, keySerde, valueSerde, settings);
  else addWindowStore(builder, storeName, { windowSizeMs: windowSize(windows) }, keySerde, valueSerde, settings);
  if (bufferStoreName !== null) {
    addFinalResultBuffer(builder, bufferStoreName, { cached: windows.kind === "time", startBeforeKey: windows.kind === "session" });
    stores.push(bufferStoreName);
  }
  const late = options.lateRecordsTopic;
  const resultChild = late === null ? null : claimName(builder, `${name}-results`);
  const lateChild = late === null ? null : claimName(builder, `${name}-late-records`);
  const processorOptions: WindowedAggregateOptions<unknown, unknown, unknown> = {
    nodeName: name,
    storeName,
    bufferStoreName,
    aggregation: spec.aggregation,
    output: { resultChild, lateChild },
    keySerde,
    aggregateSerde: valueSerde,
    change,
    sendOldValues: true,
  };
  builder.addProcessor(name, () => makeProcessor(windows, processorOptions), [parent.nodeName], { stores });
  let resultNode = name;
  if (resultChild !== null && lateChild !== null && late !== null) {
    builder.addProcessor(resultChild, () => new PassThroughProcessor(), [name]);
    const lateHint = "Grouped.with(keySerde, valueSerde) on the grouping, so late records can be written";
    builder.addSink({
      name: lateChild,
      parents: [name],
      topic: late,
      topicExtractor: null,
      internal: false,
      keySerde: requireSerde(grouped.keySerde, parent.keySerde, "key", `${spec.where} late records`, lateHint),
      valueSerde: requireSerde(grouped.valueSerde, parent.valueSerde, "value", `${spec.where} late records`, lateHint),
      partitioner: null,
    });
    resultNode = resultChild;
  }
  const windowedKeySerde = (windows.kind === "session" ? WindowedSerdes.sessionWindowed(keySerde) : WindowedSerdes.timeWindowed(keySerde, windowSize(windows))) as Serde<unknown>;
  // Kafka Streams' suppression emits a window once stream time reaches its end + grace (sessions: + gap).
  const suppressAfterEndMs = windows.kind === "session" ? windows.graceMs + windows.gapMs : windows.graceMs;
  registerWindowedTable(builder, resultNode, { suppressAfterEndMs, keySerde, valueSerde });
  return {
    builder,
    nodeName: resultNode,
    keySerde: windowedKeySerde,
    valueSerde,
    storeName,
    valueGetter: windowedValueGetter(storeName, windows.kind === "session") as TableValueGetterSupplier<unknown, unknown>,
  };
}

function windowSize(windows: TimeWindows | SlidingWindows): number {
  return windows.kind === "time" ? windows.sizeMs : windows.timeDifferenceMs;
}

function makeProcessor(windows: AnyWindows, options: WindowedAggregateOptions<unknown, unknown, unknown>) {
  switch (windows.kind) {
    case "time":
      return new TimeWindowAggregateProcessor(windows, options);
    case "sliding":
      return new SlidingWindowAggregateProcessor(windows, options);
    case "session":
      return new SessionWindowAggregateProcessor(windows, options);
  }
}

/** Reads a windowed table's value for a windowed key (joins and lookups use it). */
function windowedValueGetter(storeName: string, session: boolean): TableValueGetterSupplier<Windowed<unknown>, unknown> {
  return {
    storeNames: [storeName],
    init: (context) => {
      if (session) {
        const store = context.getStateStore<SessionStore<unknown, unknown>>(storeName);
        return {
          get: (w) => {
            const value = store.fetchSession(w.key, w.window.startMs, w.window.endMs);
            return value === null ? null : { value, timestampMs: w.window.endMs };
          },
        };
      }
      const store = context.getStateStore<WindowStore<unknown, unknown>>(storeName);
      return {
        get: (w) => {
          const found = store.fetch(w.key, w.window.startMs, w.window.startMs)[0];
          return found === undefined ? null : { value: found.value, timestampMs: found.timestampMs };
        },
      };
    },
  };
}
