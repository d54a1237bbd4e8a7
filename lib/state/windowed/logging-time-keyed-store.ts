import type { ChangelogWriter } from "../changelog.ts";
import { encodeTimeKeyedKey, type TimeKeyedKeyLayout } from "../sqlite/time-keyed-key.ts";
import type { ValueAndTimestamp } from "../store.ts";
import type { TimeKeyedBytesStore, TimeKeyedQuery, TimeKeyedRow } from "./time-keyed-bytes-store.ts";

/**
 * Logs every applied window or session write under a key that encodes the row's whole
 * address (key + time + extra), so that restoring the changelog rebuilds every window.
 * Writes dropped as expired are not logged.
 */
export class ChangeLoggingTimeKeyedStore implements TimeKeyedBytesStore {
  readonly name: string;
  readonly persistent: boolean;
  readonly retentionMs: number;
  private readonly inner: TimeKeyedBytesStore;
  private readonly changelog: ChangelogWriter;
  private readonly layout: TimeKeyedKeyLayout;

  constructor(inner: TimeKeyedBytesStore, changelog: ChangelogWriter, layout: TimeKeyedKeyLayout) {
    this.inner = inner;
    this.changelog = changelog;
    this.layout = layout;
    this.name = inner.name;
    this.persistent = inner.persistent;
    this.retentionMs = inner.retentionMs;
  }

  get observedStreamTimeMs(): number {
    return this.inner.observedStreamTimeMs;
  }

  get latestTimestampMs(): number {
    return this.inner.latestTimestampMs;
  }

  get(key: Buffer, time: number, extra: number): ValueAndTimestamp<Buffer> | null {
    return this.inner.get(key, time, extra);
  }

  put(key: Buffer, time: number, extra: number, value: Buffer | null, timestampMs: number): boolean {
    const applied = this.inner.put(key, time, extra, value, timestampMs);
    if (applied) this.changelog.log(encodeTimeKeyedKey(this.layout, key, time, extra), value, timestampMs);
    return applied;
  }

  find(query: TimeKeyedQuery): TimeKeyedRow[] {
    return this.inner.find(query);
  }

  flush(): void {
    this.inner.flush();
  }

  close(): void {
    this.inner.close();
  }
}
