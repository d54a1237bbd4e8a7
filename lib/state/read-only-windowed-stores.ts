import type { KeyValue } from "./store.ts";
import type { SessionStore, WindowStore, WindowValue, Windowed } from "./windowed/windowed-stores.ts";

/**
 * What interactive queries may read of a window store (Kafka Streams' ReadOnlyWindowStore).
 * Time bounds are window starts and inclusive on both ends.
 */
export interface ReadOnlyWindowStore<K, V> {
  /** The size of the store's windows in ms (a window's end is its start plus this). */
  readonly windowSizeMs: number;
  /** The value of the key's window that starts at `windowStartMs`, or null. */
  fetch(key: K, windowStartMs: number): V | null;
  /** The key's windows with a start in [timeFrom, timeTo], oldest first. */
  fetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[];
  /** The same as `fetch(key, from, to)`, newest first. */
  backwardFetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[];
  /** Every key's windows with a start in [timeFrom, timeTo]. */
  fetchAll(timeFrom: number, timeTo: number): KeyValue<Windowed<K>, V>[];
  /** Every retained window. */
  all(): KeyValue<Windowed<K>, V>[];
}

/** What interactive queries may read of a session store (Kafka Streams' ReadOnlySessionStore). */
export interface ReadOnlySessionStore<K, V> {
  /** Every retained session of the key, by end, then start. */
  fetch(key: K): KeyValue<Windowed<K>, V>[];
  /** The same as `fetch`, newest first. */
  backwardFetch(key: K): KeyValue<Windowed<K>, V>[];
  /** The aggregate of exactly this session, or null. */
  fetchSession(key: K, sessionStartMs: number, sessionEndMs: number): V | null;
  /** The key's sessions that end at or after `earliestSessionEndMs` and start at or before `latestSessionStartMs`, by end, then start. */
  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[];
  /** The same as `findSessions`, newest first. */
  backwardFindSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[];
}

const LATEST = Number.MAX_SAFE_INTEGER;
const EARLIEST = Number.MIN_SAFE_INTEGER;

// A range whose start is after its end is empty, as in Kafka Streams; a bound that is no number is a mistake.
function checkRange(what: string, from: number, to: number): void {
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw new RangeError(`${what}: time bounds must be numbers of ms, got ${from} and ${to}`);
}

/**
 * One window store across the tasks an instance runs. A key lives in exactly one task, so
 * a key's fetch answers from the first task that has windows for it; scans of every key
 * concatenate the tasks' results, each in its store's order, not merged across tasks (as
 * Kafka Streams' composite window store does).
 */
export class CompositeReadOnlyWindowStore<K, V> implements ReadOnlyWindowStore<K, V> {
  readonly #stores: () => WindowStore<K, V>[];

  constructor(stores: () => WindowStore<K, V>[]) {
    this.#stores = stores;
  }

  get windowSizeMs(): number {
    return this.#stores()[0]?.windowSizeMs ?? 0;
  }

  fetch(key: K, windowStartMs: number): V | null;
  fetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[];
  fetch(key: K, timeFrom: number, timeTo?: number): V | null | WindowValue<V>[] {
    if (timeTo === undefined) {
      for (const store of this.#stores()) {
        const value = store.fetchWindow(key, timeFrom);
        if (value !== null) return value;
      }
      return null;
    }
    checkRange("fetch", timeFrom, timeTo);
    if (timeFrom > timeTo) return [];
    return this.#firstNonEmpty((s) => s.fetch(key, timeFrom, timeTo));
  }

  backwardFetch(key: K, timeFrom: number, timeTo: number): WindowValue<V>[] {
    checkRange("backwardFetch", timeFrom, timeTo);
    if (timeFrom > timeTo) return [];
    return this.#firstNonEmpty((s) => s.backwardFetch(key, timeFrom, timeTo));
  }

  fetchAll(timeFrom: number, timeTo: number): KeyValue<Windowed<K>, V>[] {
    checkRange("fetchAll", timeFrom, timeTo);
    if (timeFrom > timeTo) return [];
    return this.#stores().flatMap((s) => s.fetchAll(timeFrom, timeTo));
  }

  all(): KeyValue<Windowed<K>, V>[] {
    return this.#stores().flatMap((s) => s.fetchAll(EARLIEST, LATEST));
  }

  #firstNonEmpty<T>(read: (store: WindowStore<K, V>) => T[]): T[] {
    for (const store of this.#stores()) {
      const found = read(store);
      if (found.length > 0) return found;
    }
    return [];
  }
}

/** One session store across the tasks an instance runs; a key's sessions come from the first task that has any. */
export class CompositeReadOnlySessionStore<K, V> implements ReadOnlySessionStore<K, V> {
  readonly #stores: () => SessionStore<K, V>[];

  constructor(stores: () => SessionStore<K, V>[]) {
    this.#stores = stores;
  }

  fetch(key: K): KeyValue<Windowed<K>, V>[] {
    return this.#firstNonEmpty((s) => s.fetch(key));
  }

  backwardFetch(key: K): KeyValue<Windowed<K>, V>[] {
    return this.#firstNonEmpty((s) => s.backwardFindSessions(key, EARLIEST, LATEST));
  }

  fetchSession(key: K, sessionStartMs: number, sessionEndMs: number): V | null {
    checkRange("fetchSession", sessionStartMs, sessionEndMs);
    for (const store of this.#stores()) {
      const value = store.fetchSession(key, sessionStartMs, sessionEndMs);
      if (value !== null) return value;
    }
    return null;
  }

  findSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[] {
    checkRange("findSessions", earliestSessionEndMs, latestSessionStartMs);
    return this.#firstNonEmpty((s) => s.findSessions(key, earliestSessionEndMs, latestSessionStartMs));
  }

  backwardFindSessions(key: K, earliestSessionEndMs: number, latestSessionStartMs: number): KeyValue<Windowed<K>, V>[] {
    checkRange("backwardFindSessions", earliestSessionEndMs, latestSessionStartMs);
    return this.#firstNonEmpty((s) => s.backwardFindSessions(key, earliestSessionEndMs, latestSessionStartMs));
  }

  #firstNonEmpty<T>(read: (store: SessionStore<K, V>) => T[]): T[] {
    for (const store of this.#stores()) {
      const found = read(store);
      if (found.length > 0) return found;
    }
    return [];
  }
}
