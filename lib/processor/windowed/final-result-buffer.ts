import type { KeyValueStore, StateStore } from "../../state/index.ts";
import type { Headers } from "../record.ts";
import { decodeHeaders, encodeHeaders } from "./buffered-headers.ts";

/** The entry that holds the buffer's stream time; result keys start with a close time < 2^53 (byte 0x00) and are 24+ bytes. */
const STREAM_TIME_KEY = Buffer.from([0xff]);

function int64(value: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(BigInt(value));
  return b;
}

/** One window's latest result, waiting for its window to close. */
export interface BufferedResult {
  readonly closesAtMs: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly keyBytes: Buffer;
  readonly valueBytes: Buffer;
  readonly timestampMs: number;
  /** The headers kept with the result (suppression: those of the change it holds). */
  readonly headers: Headers;
}

/**
 * The durable buffer behind emit-on-window-close and `suppress(untilWindowCloses)`: a
 * logged key-value store (so its changelog restores it) holding each open window's latest
 * result under `[closes at][key bytes][start][end]` (sessions: `[closes at][start][key
 * bytes][end]`): ordered by the stream time at which the window closes, then as Kafka
 * Streams emits windows closing together. When stream time reaches that, the result is emitted and its entry
 * deleted in the same task transaction, so after a crash a window is neither lost (the
 * entry is still there) nor emitted twice (the delete committed with the output).
 *
 * It also keeps the operator's stream time durable: stream time is what decides that a
 * window closed, and the task's own stream time starts from nothing after a restart, which
 * would reopen windows already emitted. The time is written to the store at each flush
 * (each commit), with the output and offsets it belongs to.
 */
export class FinalResultBuffer implements StateStore {
  readonly name: string;
  readonly persistent: boolean;
  private readonly store: KeyValueStore<Buffer, Buffer>;
  // Read lazily: the task builds its stores before restoring them from their changelogs.
  private loaded = false;
  private time = -1;
  private persistedTime = -1;
  /** No entry closes before this (a lower bound): saves a scan per record. */
  private earliestClose = Number.MIN_SAFE_INTEGER;

  /** Sessions close by end, and Kafka Streams emits those closing together by start, then key. */
  private readonly startBeforeKey: boolean;

  constructor(store: KeyValueStore<Buffer, Buffer>, options: { startBeforeKey?: boolean } = {}) {
    this.store = store;
    this.startBeforeKey = options.startBeforeKey ?? false;
    this.name = store.name;
    this.persistent = store.persistent;
  }

  /** Re-reads what is committed (after a rollback of the task's database). */
  reload(): void {
    this.loaded = false;
    this.earliestClose = Number.MIN_SAFE_INTEGER;
  }

  /** Takes the operator's observed stream time in (made durable at the next flush) and returns the larger of it and the durable one. */
  observe(streamTimeMs: number): number {
    this.load();
    if (streamTimeMs > this.time) this.time = streamTimeMs;
    return this.time;
  }

  get streamTimeMs(): number {
    this.load();
    return this.time;
  }

  /** Keeps the window's latest result (null: forget it, e.g. a session merged into another). */
  put(closesAtMs: number, startMs: number, endMs: number, keyBytes: Buffer, valueBytes: Buffer | null, timestampMs: number, headers?: Headers): void {
    const key = this.startBeforeKey
      ? Buffer.concat([int64(closesAtMs), int64(startMs), keyBytes, int64(endMs)])
      : Buffer.concat([int64(closesAtMs), keyBytes, int64(startMs), int64(endMs)]);
    if (valueBytes === null) {
      this.store.delete(key);
      return;
    }
    this.store.put(key, Buffer.concat([int64(timestampMs), encodeHeaders(headers), valueBytes]));
    if (closesAtMs < this.earliestClose) this.earliestClose = closesAtMs;
  }

  /**
   * Removes and returns, in close-time order, every result whose window has closed by
   * stream time `nowMs`. `nextCloseAfter(now)` may say when the next window can close at the
   * earliest (default now + 1).
   */
  takeClosed(nowMs: number, nextCloseAfter?: (timeMs: number) => number): BufferedResult[] {
    if (nowMs < this.earliestClose) return [];
    const entries = this.store.range(null, int64(nowMs + 1));
    // Time windows close only on a grid (start + size + grace, starts every `advance`): no
    // window can close before the next grid point, so no scan is needed until then.
    this.earliestClose = nextCloseAfter ? nextCloseAfter(nowMs) : nowMs + 1;
    const results: BufferedResult[] = [];
    for (const { key, value } of entries) {
      if (key.length < 24) continue;
      this.store.delete(key);
      results.push({
        closesAtMs: Number(key.readBigInt64BE(0)),
        startMs: Number(key.readBigInt64BE(this.startBeforeKey ? 8 : key.length - 16)),
        endMs: Number(key.readBigInt64BE(key.length - 8)),
        keyBytes: this.startBeforeKey ? key.subarray(16, key.length - 8) : key.subarray(8, key.length - 16),
        ...decodeHeaders(value, 8),
        timestampMs: Number(value.readBigInt64BE(0)),
      });
    }
    return results;
  }

  /** Results still waiting (for tests and metrics). */
  pending(): number {
    return this.store.all().filter((e) => e.key.length >= 24).length;
  }

  flush(): void {
    if (this.loaded && this.time > this.persistedTime) {
      this.store.put(STREAM_TIME_KEY, int64(this.time));
      this.persistedTime = this.time;
    }
    this.store.flush();
  }

  close(): void {
    this.store.close();
  }

  private load(): void {
    if (this.loaded) return;
    const stored = this.store.get(STREAM_TIME_KEY);
    this.time = this.persistedTime = stored === null ? -1 : Number(stored.readBigInt64BE(0));
    this.loaded = true;
  }
}
