import type { Cancellable, PunctuationType, Punctuator } from "../../processor/index.ts";

export interface PunctuationSchedule extends Cancellable {
  readonly nodeName: string;
  readonly type: PunctuationType;
  readonly intervalMs: number;
  readonly punctuator: Punctuator;
  /** The next time (stream or wall-clock) at which it is due. */
  due: number;
  cancelled: boolean;
}

/**
 * The punctuators of one task. Stream-time schedules start due at 0, so they fire on the
 * first record; wall-clock ones start one interval after registration. After firing at time
 * t, a schedule is due at the next multiple of its interval after t: missed intervals (a gap
 * in the data, a long pause) are skipped, not replayed in a burst, as in Kafka Streams.
 */
export class PunctuationQueue {
  private schedules: PunctuationSchedule[] = [];

  add(nodeName: string, type: PunctuationType, intervalMs: number, punctuator: Punctuator, nowMs: number): PunctuationSchedule {
    if (!(intervalMs >= 1)) throw new RangeError(`A punctuation interval must be at least 1 ms, got ${intervalMs}`);
    const schedule: PunctuationSchedule = {
      nodeName,
      type,
      intervalMs,
      punctuator,
      due: type === "stream_time" ? 0 : nowMs + intervalMs,
      cancelled: false,
      cancel: () => {
        schedule.cancelled = true;
        this.schedules = this.schedules.filter((s) => s !== schedule);
      },
    };
    this.schedules.push(schedule);
    return schedule;
  }

  /** Earliest due time of the given type, or Infinity. */
  nextDue(type: PunctuationType): number {
    let next = Infinity;
    for (const s of this.schedules) if (s.type === type && s.due < next) next = s.due;
    return next;
  }

  /** The schedules due at `time`, earliest first, each moved on to its next due time. */
  takeDue(type: PunctuationType, time: number): PunctuationSchedule[] {
    const due = this.schedules.filter((s) => s.type === type && s.due <= time).sort((a, b) => a.due - b.due);
    for (const s of due) {
      const missed = Math.floor((time - s.due) / s.intervalMs);
      s.due += (missed + 1) * s.intervalMs;
    }
    return due;
  }

  clear(): void {
    this.schedules = [];
  }
}
