import type { CachedStore, KeyValue, StateStore } from "../store.ts";

/**
 * A window's bounds in ms. For time windows `endMs` = start + size and is exclusive; for
 * session windows it is the timestamp of the session's last record, inclusive (as in
 * Kafka Streams).
 */
export interface Window {
  startMs: number;
  endMs: number;
}

/** A key together with the window it was aggregated in. */
export interface Windowed<K> {
  key: K;
  window: Window;
}

export interface WindowValue<V> {
  windowStartMs: number;
  value: V;
  /** The timestamp written with the window (windowed aggregations: the largest of its records'). */
  timestampMs: number;
}

/**
 * Windowed values by key and window start. Windows are kept for `retentionMs` back from
 * the largest window start ever put (the store's observed stream time): older ones are
 * not returned, writes to them are dropped, and they are deleted at the next flush.
 * Scans return arrays (see store.ts for why).
 */
export interface WindowStore<K, V> extends StateStore, CachedStore<Windowed<K>, V> {
  readonly windowSizeMs: number;
  readonly retentionMs: number;
  /** With duplicates retained (stream-stream joins), every put adds a row and null puts are ignored. */
  readonly retainDuplicates: boolean;
  readonly observedStreamTimeMs: number;
  /**
   * The largest record timestamp of the results written (restored ones included): with each
   * result carrying the largest timestamp of its records, the durable observed stream time
   * of the operator that writes the store.
   */
  readonly latestTimestampMs: number;
  /**
   * How often the task's uncommitted writes were rolled back (an aborted transaction). A
   * processor that keeps time in memory starts it again from the store when this changes.
   */
  readonly rollbacks: number;
  /** Writes the window's value (with the current record's timestamp unless given); null deletes it. */
  put(key: K, value: V | null, windowStartMs: number, timestampMs?: number): void;
  /** The value of one window, or null. */
  fetchWindow(key: K, windowStartMs: number): V | null;
  /** The value of one window with its timestamp, or null. */
  fetchWindowValue(key: K, windowStartMs: number): WindowValue<V> | null;
  /** The key's windows with a start in [timeFrom, timeTo], oldest first. */
  fetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[];
  /** The same as `fetch`, newest first. */
  backwardFetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[];
  /** Every key's windows with a start in [timeFrom, timeTo], by start, then key bytes. */
  fetchAll(timeFrom: number, timeTo: number): KeyValue<Windowed<K>, V>[];
  /** Every retained window, by start, then key bytes. */
  all(): KeyValue<Windowed<K>, V>[];
}

/**
 * Session aggregates by key and session window. Sessions are kept for `retentionMs` back
 * from the largest session end ever put.
 */
export interface SessionStore<K, V> extends StateStore, CachedStore<Windowed<K>, V> {
  readonly retentionMs: number;
  readonly observedStreamTimeMs: number;
  /** As `WindowStore.latestTimestampMs`. */
  readonly latestTimestampMs: number;
  /** As `WindowStore.rollbacks`. */
  readonly rollbacks: number;
  /** Writes the session's aggregate; null removes the session. */
  put(session: Windowed<K>, value: V | null): void;
  remove(session: Windowed<K>): void;
  /** The aggregate of exactly this session, or null. */
  fetchSession(key: K, sessionStartMs: number, sessionEndMs: number): V | null;
  /**
   * The key's sessions that end at or after `earliestSessionEndMs` and start at or before
   * `latestSessionStartMs` (the sessions a new record may merge with), by end, then start.
   */
  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[];
  /** The same as `findSessions`, newest first. */
  backwardFindSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[];
  /** All retained sessions of the key. */
  fetch(key: K): KeyValue<Windowed<K>, V>[];
}
