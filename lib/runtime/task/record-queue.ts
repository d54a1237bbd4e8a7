import type { StreamRecord } from "../../processor/index.ts";
import type { RawRecord } from "./contracts.ts";
import type { SourceRuntime } from "./nodes.ts";

/**
 * The buffered records of one input partition, in offset order. The head is deserialized
 * (and its event time extracted) once, when it becomes the head, because choosing the next
 * record across partitions needs its timestamp.
 */
export class RecordQueue {
  readonly topic: string;
  readonly partition: number;
  readonly source: SourceRuntime;
  /** Largest event time taken from this partition so far, -1 before any. */
  partitionTime = -1;
  /** Last processed (or skipped) offset + 1; -1 until a record has been handled. */
  committableOffset = -1;
  /**
   * Records on the broker not fetched yet, as of the newest fetch (its end minus the
   * position after it); -1 while unknown. Task idling waits on an empty partition unless
   * this is known to be 0.
   */
  lag = -1;
  /** While empty and caught up: the wall-clock time until which the task waits for it (max.task.idle.ms); -1 when not waiting. */
  idleDeadline = -1;
  /** The deserialized head, or null when not prepared yet. */
  head: StreamRecord<unknown, unknown> | null = null;
  private items: RawRecord[] = [];
  private first = 0;

  constructor(topic: string, partition: number, source: SourceRuntime) {
    this.topic = topic;
    this.partition = partition;
    this.source = source;
  }

  get size(): number {
    return this.items.length - this.first;
  }

  push(records: readonly RawRecord[]): void {
    for (const record of records) this.items.push(record);
  }

  /** The raw record at the head; only call when size > 0. */
  peekRaw(): RawRecord {
    return this.items[this.first]!;
  }

  /** Removes the head (prepared or not) and returns its raw form. */
  shift(): RawRecord {
    const raw = this.items[this.first]!;
    this.head = null;
    this.first++;
    // Compact now and then rather than shifting the array on every record.
    if (this.first >= 1024 && this.first * 2 >= this.items.length) {
      this.items = this.items.slice(this.first);
      this.first = 0;
    }
    return raw;
  }

  clear(): void {
    this.items = [];
    this.first = 0;
    this.head = null;
  }
}
