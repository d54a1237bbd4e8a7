import type { CacheFlushListener, KeyValue, ValueAndTimestamp } from "./store.ts";

/**
 * The shape shared by every layer below the metered one (caching, change-logging and the
 * SQLite table): keys and values are bytes, and every write carries the timestamp of the
 * record that caused it, because the changelog record and the table row both keep it.
 * A null value deletes.
 */
export interface BytesKeyValueStore {
  readonly name: string;
  readonly persistent: boolean;
  get(key: Buffer): Buffer | null;
  getWithTimestamp(key: Buffer): ValueAndTimestamp<Buffer> | null;
  put(key: Buffer, value: Buffer | null, timestampMs: number): void;
  putIfAbsent(key: Buffer, value: Buffer, timestampMs: number): Buffer | null;
  delete(key: Buffer, timestampMs: number): Buffer | null;
  putAll(entries: readonly BytesEntry[]): void;
  range(from: Buffer | null, to: Buffer | null, reverse: boolean): KeyValue<Buffer, Buffer>[];
  prefixScan(prefix: Buffer): KeyValue<Buffer, Buffer>[];
  approximateNumEntries(): number;
  flush(): void;
  close(): void;
}

export interface BytesEntry {
  key: Buffer;
  value: Buffer | null;
  timestampMs: number;
}

export type BytesFlushListener = CacheFlushListener<Buffer, Buffer>;
