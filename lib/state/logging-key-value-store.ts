import type { BytesEntry, BytesKeyValueStore } from "./bytes-key-value-store.ts";
import type { ChangelogWriter } from "./changelog.ts";
import type { KeyValue, ValueAndTimestamp } from "./store.ts";

/** Sends every write that reaches the store to the changelog, with the record's timestamp. */
export class ChangeLoggingKeyValueStore implements BytesKeyValueStore {
  readonly name: string;
  readonly persistent: boolean;
  private readonly inner: BytesKeyValueStore;
  private readonly changelog: ChangelogWriter;

  constructor(inner: BytesKeyValueStore, changelog: ChangelogWriter) {
    this.inner = inner;
    this.changelog = changelog;
    this.name = inner.name;
    this.persistent = inner.persistent;
  }

  get(key: Buffer): Buffer | null {
    return this.inner.get(key);
  }

  getWithTimestamp(key: Buffer): ValueAndTimestamp<Buffer> | null {
    return this.inner.getWithTimestamp(key);
  }

  put(key: Buffer, value: Buffer | null, timestampMs: number): void {
    this.inner.put(key, value, timestampMs);
    this.changelog.log(key, value, timestampMs);
  }

  putIfAbsent(key: Buffer, value: Buffer, timestampMs: number): Buffer | null {
    const existing = this.inner.putIfAbsent(key, value, timestampMs);
    if (existing === null) this.changelog.log(key, value, timestampMs);
    return existing;
  }

  delete(key: Buffer, timestampMs: number): Buffer | null {
    const existing = this.inner.delete(key, timestampMs);
    if (existing !== null) this.changelog.log(key, null, timestampMs);
    return existing;
  }

  putAll(entries: readonly BytesEntry[]): void {
    this.inner.putAll(entries);
    for (const e of entries) this.changelog.log(e.key, e.value, e.timestampMs);
  }

  range(from: Buffer | null, to: Buffer | null, reverse: boolean): KeyValue<Buffer, Buffer>[] {
    return this.inner.range(from, to, reverse);
  }

  prefixScan(prefix: Buffer): KeyValue<Buffer, Buffer>[] {
    return this.inner.prefixScan(prefix);
  }

  approximateNumEntries(): number {
    return this.inner.approximateNumEntries();
  }

  flush(): void {
    this.inner.flush();
  }

  close(): void {
    this.inner.close();
  }
}
