import type { KeyValueStore, WindowStore } from "../../state/index.ts";
import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { recordSkipped } from "../stateful/skipped-records.ts";
import { refuseAsync } from "../synchronous.ts";
import { PendingRecords, type JoinSerializer, type JoinSide } from "./pending-records.ts";

/** Everything both processors of one stream-stream join share. */
export interface StreamStreamJoinSpec {
  readonly leftStore: string;
  readonly rightStore: string;
  /** The store of records waiting for a partner; null for inner joins. */
  readonly pendingStore: string | null;
  /** A left record at t joins right records in [t - beforeMs, t + afterMs]. */
  readonly beforeMs: number;
  readonly afterMs: number;
  readonly graceMs: number;
  /** Which sides' unmatched records are emitted with a null partner (left join: left; outer: both). */
  readonly outer: Readonly<Record<JoinSide, boolean>>;
  readonly keySerde: JoinSerializer<unknown>;
  readonly valueSerdes: Readonly<Record<JoinSide, JoinSerializer<unknown>>>;
  readonly joiner: (left: unknown, right: unknown, key: unknown) => unknown;
}

/** What both processors of a task share: the join's stream time, and when the pending store may hold something due. */
interface SharedTime {
  /** The largest timestamp either side has seen. */
  streamTimeMs: number;
  /** No pending record is older than this (-Infinity: unknown, look). Saves a scan per record. */
  pendingLowWaterMs: number;
}

// Keyed by the task's left window store, which both processors of a task share; a new task
// (new stores) starts afresh, and nothing outlives the stores.
const sharedTimes = new WeakMap<object, SharedTime>();

/**
 * One side of a stream-stream join. A record is joined with every record of the other side
 * whose timestamp is within the window and whose own window has not closed, then kept in
 * its side's window store. A record whose window (its timestamp plus how far the window
 * reaches to the other side, plus grace) has closed in the join's stream time is late and
 * dropped. In a left or outer join a record that found no partner waits in the pending
 * store and is emitted with a null partner exactly once, when its window closes; one that
 * finds a partner later never is. Pairs and null results are thereby consistent: a record
 * either joins or gets its null result, never both.
 */
export class StreamStreamJoinProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private readonly nodeName: string;
  private readonly side: JoinSide;
  private readonly other: JoinSide;
  private readonly spec: StreamStreamJoinSpec;
  private context!: ProcessorContext<unknown, unknown>;
  private thisStore!: WindowStore<unknown, unknown>;
  private otherStore!: WindowStore<unknown, unknown>;
  private pending: PendingRecords | null = null;
  private time!: SharedTime;

  constructor(nodeName: string, side: JoinSide, spec: StreamStreamJoinSpec) {
    this.nodeName = nodeName;
    this.side = side;
    this.other = side === "left" ? "right" : "left";
    this.spec = spec;
  }

  init(context: ProcessorContext<unknown, unknown>): void {
    this.context = context;
    const left = context.getStateStore<WindowStore<unknown, unknown>>(this.spec.leftStore);
    const right = context.getStateStore<WindowStore<unknown, unknown>>(this.spec.rightStore);
    [this.thisStore, this.otherStore] = this.side === "left" ? [left, right] : [right, left];
    if (this.spec.pendingStore !== null) {
      const store = context.getStateStore<KeyValueStore<Buffer, Buffer>>(this.spec.pendingStore);
      this.pending = new PendingRecords(store, this.spec.keySerde, this.spec.valueSerdes);
    }
    let time = sharedTimes.get(left);
    if (time === undefined) {
      // After a restart the stores remember how far time had come.
      time = { streamTimeMs: Math.max(-1, left.observedStreamTimeMs, right.observedStreamTimeMs), pendingLowWaterMs: -Infinity };
      sharedTimes.set(left, time);
    }
    this.time = time;
  }

  /**
   * How far past its own time a record of `side` can still meet partners: its window closes
   * at t + reach + grace. (A window that lies wholly in the record's past closes at t + grace.)
   */
  private reach(side: JoinSide): number {
    return Math.max(0, side === "left" ? this.spec.afterMs : this.spec.beforeMs);
  }

  private isClosed(side: JoinSide, timestampMs: number): boolean {
    return timestampMs + this.reach(side) + this.spec.graceMs < this.time.streamTimeMs;
  }

  process = (record: StreamRecord<unknown, unknown>): void => {
    const ts = record.timestamp;
    if (ts > this.time.streamTimeMs) this.time.streamTimeMs = ts;
    this.emitClosed(record);
    if (record.value === null || record.value === undefined) {
      recordSkipped(this.context, this.nodeName, "null value in a stream-stream join");
      return;
    }
    if (record.key === null || record.key === undefined) {
      // A record without a key can never join; in a left/outer join its side's result is final now.
      if (this.spec.outer[this.side]) this.forward(record, record.key, record.value, null, ts);
      else recordSkipped(this.context, this.nodeName, "null key in a stream-stream join");
      return;
    }
    if (this.isClosed(this.side, ts)) {
      recordSkipped(this.context, this.nodeName, `late record: its join window closed (time ${ts}, stream time ${this.time.streamTimeMs})`);
      return;
    }
    const key = record.key;
    const from = this.side === "left" ? ts - this.spec.beforeMs : ts - this.spec.afterMs;
    const to = this.side === "left" ? ts + this.spec.afterMs : ts + this.spec.beforeMs;
    let matched = false;
    let keyBytes: Buffer | null = null;
    // Event times are never negative: a window wholly before 0 has no partners.
    const partners = to < 0 ? [] : this.otherStore.fetch(key, Math.max(0, from), to);
    for (const partner of partners) {
      if (this.isClosed(this.other, partner.windowStartMs)) continue;
      matched = true;
      if (this.pending !== null && this.spec.outer[this.other]) {
        keyBytes ??= this.pending.keyBytes(key);
        this.pending.remove(this.other, keyBytes, partner.windowStartMs);
      }
      this.forward(record, key, record.value, partner.value, Math.max(ts, partner.windowStartMs));
    }
    if (!matched && this.spec.outer[this.side] && this.pending !== null) {
      this.pending.add(this.side, key, record.value, ts);
      if (ts < this.time.pendingLowWaterMs) this.time.pendingLowWaterMs = ts;
    }
    this.thisStore.put(key, record.value, ts);
  };

  /** Emits, oldest first, the pending records whose window has closed. */
  private emitClosed(record: StreamRecord<unknown, unknown>): void {
    if (this.pending === null) return;
    const reach = Math.min(this.spec.outer.left ? this.reach("left") : Infinity, this.spec.outer.right ? this.reach("right") : Infinity);
    const latest = this.time.streamTimeMs - reach - this.spec.graceMs - 1;
    if (latest < this.time.pendingLowWaterMs) return;
    const { records, earliestLeft } = this.pending.takeClosed(latest, (side, t) => this.isClosed(side, t));
    this.time.pendingLowWaterMs = earliestLeft ?? latest + 1;
    for (const p of records) {
      this.forward(record, p.key, p.side === "left" ? p.value : null, p.side === "right" ? p.value : null, p.timestampMs, true);
    }
  }

  private forward(record: StreamRecord<unknown, unknown>, key: unknown, thisValue: unknown, otherValue: unknown, timestampMs: number, asIs = false): void {
    const [left, right] = asIs || this.side === "left" ? [thisValue, otherValue] : [otherValue, thisValue];
    const value = this.spec.joiner(left, right, key);
    refuseAsync(value, "A join's value joiner");
    this.context.forward(record.withKeyValue(key, value).withTimestamp(timestampMs));
  }
}
