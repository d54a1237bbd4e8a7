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

/** What both processors of a task share: the join's observed stream time, and Kafka Streams' hint of the earliest pending time. */
interface SharedTime {
  /** The largest timestamp of the records that reached either side (skipped ones too, as in Kafka Streams). */
  streamTimeMs: number;
  /** The left store's rollback count this time was built on: after a rollback it starts again from the stores. */
  rollbacks: number;
  /**
   * No pending record is due while `minTimeMs + reach + grace >= stream time` (null: unknown).
   * Kafka Streams sets it to the last entry its scan visited and lowers it when a record waits.
   */
  minTimeMs: number | null;
}

// Keyed by the task's left window store, which both processors of a task share; a new task
// (new stores) starts afresh, and nothing outlives the stores.
const sharedTimes = new WeakMap<object, SharedTime>();

/**
 * One side of a stream-stream join, as Kafka Streams' join processor works. A record is
 * joined with every record of the other side that the other side's window store still
 * holds within the window (the store keeps before + after + grace back from the largest
 * time it was given), then kept in its side's window store. In a left or outer join, a
 * record that found no partner is emitted with a null partner at once if its window has
 * already ended in the join's stream time, else it waits in the pending store; a partner
 * arriving later takes it out. Each record that is (one of) the newest seen first emits, in
 * store order (time, right before left, key), the waiting records whose window + grace has
 * closed, stopping once it meets a waiting record of each side still open.
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
  /** How far before and after this side's record the other side's partners may be. */
  private readonly joinBeforeMs: number;
  private readonly joinAfterMs: number;

  constructor(nodeName: string, side: JoinSide, spec: StreamStreamJoinSpec) {
    this.nodeName = nodeName;
    this.side = side;
    this.other = side === "left" ? "right" : "left";
    this.spec = spec;
    this.joinBeforeMs = side === "left" ? spec.beforeMs : spec.afterMs;
    this.joinAfterMs = side === "left" ? spec.afterMs : spec.beforeMs;
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
      time = { streamTimeMs: -1, minTimeMs: null, rollbacks: -1 };
      sharedTimes.set(left, time);
    }
    this.time = time;
  }

  /**
   * The shared time, started from the stores (which remember how far time had come: a lower
   * bound) on the first record after a restart (after the restore) and after a rollback.
   */
  private sharedTime(): SharedTime {
    const time = this.time;
    const [left, right] = this.side === "left" ? [this.thisStore, this.otherStore] : [this.otherStore, this.thisStore];
    if (time.rollbacks !== left.rollbacks) {
      time.streamTimeMs = Math.max(-1, left.observedStreamTimeMs, right.observedStreamTimeMs);
      time.minTimeMs = null;
      time.rollbacks = left.rollbacks;
    }
    return time;
  }

  /** How long after its own time a waiting record of `side` can still find a partner (before grace). */
  private lookAhead(side: JoinSide): number {
    return side === "left" ? this.spec.afterMs : this.spec.beforeMs;
  }

  process = (record: StreamRecord<unknown, unknown>): void => {
    const ts = record.timestamp;
    const time = this.sharedTime();
    if (ts > time.streamTimeMs) time.streamTimeMs = ts;
    const outer = this.spec.outer[this.side];
    const missingKey = record.key === null || record.key === undefined;
    const missingValue = record.value === null || record.value === undefined;
    if (outer && missingKey && !missingValue) {
      // A record without a key can never join; in a left/outer join its side's result is final now.
      this.forward(record, record.key, record.value, null, ts);
      return;
    }
    if (missingKey || missingValue) {
      recordSkipped(this.context, this.nodeName, `null ${missingKey ? "key" : "value"} in a stream-stream join`);
      return;
    }
    if (ts === time.streamTimeMs) this.emitClosed(record);
    const key = record.key;
    const from = Math.max(0, ts - this.joinBeforeMs);
    const to = Math.max(0, ts + this.joinAfterMs);
    const partners = this.otherStore.fetch(key, from, to);
    let keyBytes: Buffer | null = null;
    for (const partner of partners) {
      if (this.pending !== null && this.spec.outer[this.other]) {
        keyBytes ??= this.pending.keyBytes(key);
        this.pending.remove(this.other, keyBytes, partner.windowStartMs);
      }
      this.forward(record, key, record.value, partner.value, Math.max(ts, partner.windowStartMs));
    }
    if (outer && partners.length === 0) {
      if (this.pending === null || to < time.streamTimeMs) {
        // Its window has ended already: Kafka Streams emits the null result at once.
        this.forward(record, key, record.value, null, ts);
      } else {
        time.minTimeMs = time.minTimeMs === null ? ts : Math.min(time.minTimeMs, ts);
        this.pending.add(this.side, key, record.value, ts);
      }
    }
    this.thisStore.put(key, record.value, ts);
  };

  /** Emits the waiting records whose window + grace has closed, in store order. */
  private emitClosed(record: StreamRecord<unknown, unknown>): void {
    if (this.pending === null) return;
    const { time, spec } = this;
    const now = time.streamTimeMs;
    // Kafka Streams' shortcut, with this side's reach (its unknown minimum overflows to "look" when reach + grace > 0).
    const reach = this.joinAfterMs + spec.graceMs;
    if (time.minTimeMs === null ? reach <= 0 : time.minTimeMs + reach >= now) return;
    const open: Record<JoinSide, boolean> = { left: false, right: false };
    const { records, lastVisitedMs } = this.pending.scan((side, t) => {
      if (open.left && open.right) return "stop";
      if (t + this.lookAhead(side) + spec.graceMs >= now) {
        open[side] = true;
        return "keep";
      }
      return "emit";
    });
    time.minTimeMs = lastVisitedMs;
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
