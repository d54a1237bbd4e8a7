import { TopologyError } from "../../errors/index.ts";
import { SuppressProcessor } from "../../processor/index.ts";
import { nodeName, claimName } from "../stream-node.ts";
import type { TableState } from "../table-node.ts";
import { addFinalResultBuffer } from "./window-stores.ts";
import { windowedTableInfo } from "./windowed-tables.ts";

/**
 * How much a suppression buffer may hold. Only `unbounded()` for now: a final result must
 * never be emitted early, so a bounded buffer could only stop the app when full. Its
 * memory is SQLite's: the buffer is a logged store on disk, not the heap.
 */
export class BufferConfig {
  readonly kind = "unbounded" as const;
  private constructor() {}
  static unbounded(): BufferConfig {
    return new BufferConfig();
  }
}

/**
 * What `KTable.suppress` holds back. `untilWindowCloses` turns a windowed table's stream of
 * revisions into exactly one final result per window, emitted when stream time passes the
 * window's end + grace. The buffer is a logged store: final results survive restarts with
 * no duplicates and no gaps.
 *
 * @example
 *   clicks.groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(3_600_000, 600_000)).count()
 *     .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
 *     .toStream().to("hourly-clicks");
 */
export class Suppressed {
  readonly kind = "until_window_closes" as const;
  readonly bufferConfig: BufferConfig;
  readonly name: string | null;

  private constructor(bufferConfig: BufferConfig, name: string | null) {
    this.bufferConfig = bufferConfig;
    this.name = name;
  }

  static untilWindowCloses(bufferConfig: BufferConfig): Suppressed {
    return new Suppressed(bufferConfig, null);
  }

  /** Names the suppression node; its buffer store (and changelog) is then `<name>-store`. */
  withName(name: string): Suppressed {
    return new Suppressed(this.bufferConfig, name);
  }
}

/** Adds the suppression node after a windowed aggregation's table; returns the suppressed table. */
export function suppressTable(table: TableState, suppressed: Suppressed): TableState {
  const builder = table.builder;
  const info = windowedTableInfo(builder, table.nodeName);
  if (!info) {
    throw new TopologyError(
      "suppress(Suppressed.untilWindowCloses(..)) needs the table of a windowed aggregation, " +
        "e.g. groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(..)).count().suppress(..): apply it right after the aggregation.",
    );
  }
  const name = suppressed.name === null ? nodeName(builder, null, "KTABLE-SUPPRESS-") : claimName(builder, suppressed.name);
  const bufferStoreName = suppressed.name === null ? builder.names.next("KTABLE-SUPPRESS-STATE-STORE-") : `${suppressed.name}-store`;
  addFinalResultBuffer(builder, bufferStoreName);
  const options = { nodeName: name, bufferStoreName, suppressAfterEndMs: info.suppressAfterEndMs, keySerde: info.keySerde, valueSerde: info.valueSerde };
  builder.addProcessor(name, () => new SuppressProcessor(options), [table.nodeName], { stores: [bufferStoreName] });
  // Lookups still see the aggregation's current values (as in Kafka Streams, suppression does not hide them).
  return { ...table, nodeName: name };
}
