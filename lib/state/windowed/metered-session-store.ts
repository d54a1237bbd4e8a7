import { MeteredStore, type MeteredStoreOptions } from "../metered-store.ts";
import type { CacheFlushListener, KeyValue } from "../store.ts";
import type { CachingTimeKeyedStore } from "./caching-time-keyed-store.ts";
import type { TimeKeyedBytesStore, TimeKeyedRow } from "./time-keyed-bytes-store.ts";
import type { SessionStore, Windowed } from "./windowed-stores.ts";

const LATEST = Number.MAX_SAFE_INTEGER;
const EARLIEST = Number.MIN_SAFE_INTEGER;

/** The typed session store. Rows are addressed (key, time = session end, extra = session start). */
export class MeteredSessionStore<K, V>
  extends MeteredStore<TimeKeyedBytesStore, CachingTimeKeyedStore, K, V>
  implements SessionStore<K, V>
{
  readonly retentionMs: number;

  constructor(options: MeteredStoreOptions<TimeKeyedBytesStore, CachingTimeKeyedStore, K, V>) {
    super(options);
    this.retentionMs = this.inner.retentionMs;
  }

  get observedStreamTimeMs(): number {
    return this.inner.observedStreamTimeMs;
  }

  get latestTimestampMs(): number {
    return this.inner.latestTimestampMs;
  }

  rollbacks = 0;

  /** @internal Called by the store builder when the task's database rolls back. */
  rolledBack(): void {
    this.rollbacks++;
  }

  setFlushListener(listener: CacheFlushListener<Windowed<K>, V>, sendOldValues = false): boolean {
    return this.forwardFlushes(this.cache, listener, sendOldValues, (r) => this.windowed(r.key, r.time, r.extra));
  }

  put(session: Windowed<K>, value: V | null): void {
    const started = this.metrics.start();
    const { startMs, endMs } = session.window;
    if (endMs < startMs) throw new RangeError(`Session window end ${endMs} is before its start ${startMs}`);
    // A session's changes carry its end as timestamp (Kafka Streams' session cache flushes so).
    this.inner.put(this.serdes.keyBytes(session.key), endMs, startMs, this.serdes.valueBytes(value), endMs);
    this.metrics.record("put", started);
  }

  remove(session: Windowed<K>): void {
    const started = this.metrics.start();
    const { startMs, endMs } = session.window;
    this.inner.put(this.serdes.keyBytes(session.key), endMs, startMs, null, endMs);
    this.metrics.record("remove", started);
  }

  fetchSession(key: K, sessionStartMs: number, sessionEndMs: number): V | null {
    const started = this.metrics.start();
    const stored = this.inner.get(this.serdes.keyBytes(key), sessionEndMs, sessionStartMs);
    this.metrics.record("fetch", started);
    return this.serdes.value(stored?.value ?? null);
  }

  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[] {
    return this.find(key, earliestSessionEndMs, latestSessionStartMs, false);
  }

  backwardFindSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[] {
    return this.find(key, earliestSessionEndMs, latestSessionStartMs, true);
  }

  fetch(key: K): KeyValue<Windowed<K>, V>[] {
    return this.find(key, EARLIEST, LATEST, false);
  }

  private find(key: K, earliestEnd: number, latestStart: number, reverse: boolean): KeyValue<Windowed<K>, V>[] {
    const started = this.metrics.start();
    const rows = this.inner.find({
      key: this.serdes.keyBytes(key),
      timeFrom: earliestEnd,
      timeTo: LATEST,
      extraTo: latestStart,
      reverse,
    });
    this.metrics.record("fetch", started);
    return rows.map((r) => this.session(r));
  }

  private session(r: TimeKeyedRow): KeyValue<Windowed<K>, V> {
    return { key: this.windowed(r.key, r.time, r.extra), value: this.serdes.value(r.value) as V };
  }

  private windowed(keyBytes: Buffer, sessionEndMs: number, sessionStartMs: number): Windowed<K> {
    return { key: this.serdes.key(keyBytes), window: { startMs: sessionStartMs, endMs: sessionEndMs } };
  }
}
