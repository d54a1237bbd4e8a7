import { ConfigError } from "../../errors/index.ts";

function checkMs(what: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`${what} must be a whole number of milliseconds >= ${min}, not ${value}`);
  }
  return value;
}

/**
 * Fixed-size windows aligned to the epoch: `[start, start + size)`, a new one every
 * `advance` ms. With `advance === size` (the default) they are tumbling: each record is in
 * exactly one; with a smaller advance they hop, and a record is in ceil(size / advance).
 * A window accepts records until the operator's stream time reaches `end + grace`.
 *
 * @example
 *   TimeWindows.ofSizeAndGrace(5 * 60_000, 30_000).advanceBy(60_000)
 */
export class TimeWindows {
  readonly kind = "time" as const;
  readonly sizeMs: number;
  readonly advanceMs: number;
  readonly graceMs: number;

  private constructor(sizeMs: number, advanceMs: number, graceMs: number) {
    this.sizeMs = sizeMs;
    this.advanceMs = advanceMs;
    this.graceMs = graceMs;
  }

  /** Tumbling windows; records after the window end are late at once. */
  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return TimeWindows.ofSizeAndGrace(sizeMs, 0);
  }

  /** Tumbling windows that still accept records up to `graceMs` (in stream time) after they end. */
  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    const size = checkMs("TimeWindows size", sizeMs, 1);
    return new TimeWindows(size, size, checkMs("TimeWindows grace", graceMs, 0));
  }

  /** Hopping windows: a new window every `advanceMs`, which must be in (0, size]. */
  advanceBy(advanceMs: number): TimeWindows {
    checkMs("TimeWindows advance", advanceMs, 1);
    if (advanceMs > this.sizeMs) {
      throw new ConfigError(`TimeWindows advance (${advanceMs} ms) must not exceed the window size (${this.sizeMs} ms): records would fall between windows`);
    }
    return new TimeWindows(this.sizeMs, advanceMs, this.graceMs);
  }

  /** Starts of the windows containing `timestampMs`, oldest first (none start below 0). */
  windowStartsFor(timestampMs: number): number[] {
    const starts: number[] = [];
    const last = timestampMs - (timestampMs % this.advanceMs);
    for (let start = last; start > timestampMs - this.sizeMs && start >= 0; start -= this.advanceMs) starts.push(start);
    return starts.reverse();
  }

  /** How long a window store must keep windows: until they close, at least. */
  get retentionMs(): number {
    return this.sizeMs + this.graceMs;
  }
}

/**
 * Windows of a fixed time difference that slide with the records: `[start, start + d]`,
 * both ends inclusive. As in Kafka Streams, a window exists only where records define one:
 * each record's own window ending at its timestamp (`[t - d, t]`, or `[0, d]` near the
 * epoch) and, when later records fall within `d` of it, the window starting just after it
 * (`[t + 1, t + 1 + d]`). So every distinct set of records within `d` of each other is
 * aggregated once. A window accepts records while stream time is at most `end + grace`.
 */
export class SlidingWindows {
  readonly kind = "sliding" as const;
  readonly timeDifferenceMs: number;
  readonly graceMs: number;

  private constructor(timeDifferenceMs: number, graceMs: number) {
    this.timeDifferenceMs = timeDifferenceMs;
    this.graceMs = graceMs;
  }

  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return SlidingWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    return new SlidingWindows(checkMs("SlidingWindows time difference", timeDifferenceMs, 1), checkMs("SlidingWindows grace", graceMs, 0));
  }

  /** Windows are kept 2d + grace (Kafka Streams' default): a record looks back 2d for the window before its own. */
  get retentionMs(): number {
    return 2 * this.timeDifferenceMs + this.graceMs;
  }
}

/**
 * Per-key sessions of activity: records closer than `gap` to each other belong to one
 * session `[first, last]` (both inclusive). A record that bridges two sessions merges them:
 * downstream sees tombstones for both old sessions, then the merged one. A session accepts
 * records while the operator's stream time is at most `end + gap + grace` (Kafka Streams).
 */
export class SessionWindows {
  readonly kind = "session" as const;
  readonly gapMs: number;
  readonly graceMs: number;

  private constructor(gapMs: number, graceMs: number) {
    this.gapMs = gapMs;
    this.graceMs = graceMs;
  }

  static ofInactivityGapWithNoGrace(gapMs: number): SessionWindows {
    return SessionWindows.ofInactivityGapAndGrace(gapMs, 0);
  }

  static ofInactivityGapAndGrace(gapMs: number, graceMs: number): SessionWindows {
    return new SessionWindows(checkMs("SessionWindows inactivity gap", gapMs, 1), checkMs("SessionWindows grace", graceMs, 0));
  }

  get retentionMs(): number {
    return this.gapMs + this.graceMs;
  }
}

export type EmitStrategyType = "on_window_update" | "on_window_close";

/**
 * When a windowed aggregation emits: on every update (default; results are revised as
 * records arrive) or once per window when it closes (the operator's stream time passed
 * end + grace; sessions end + gap + grace), with its final value.
 */
export class EmitStrategy {
  readonly type: EmitStrategyType;
  private constructor(type: EmitStrategyType) {
    this.type = type;
  }
  static onWindowUpdate(): EmitStrategy {
    return new EmitStrategy("on_window_update");
  }
  static onWindowClose(): EmitStrategy {
    return new EmitStrategy("on_window_close");
  }
}

/**
 * The stream time at which a window stops accepting records. Time windows end exclusive, so
 * they close at `end + grace`; sliding windows end inclusive, so one ms later. (Sessions close
 * at `closesAt(end + gap, grace, true)`.)
 */
export function closesAt(endMs: number, graceMs: number, endInclusive: boolean): number {
  return endMs + graceMs + (endInclusive ? 1 : 0);
}
