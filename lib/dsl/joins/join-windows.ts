import { ConfigError } from "../../errors/index.ts";

/**
 * The time window of a stream-stream join: a left record at time `t` joins right records
 * with a timestamp in `[t - beforeMs, t + afterMs]` (both inclusive). As in Kafka Streams,
 * each side keeps its records for before + after + grace, and left/outer joins emit a
 * waiting record's null-side result once its window plus grace has closed in the join's
 * stream time (a record whose window has already ended when it arrives gets it at once).
 *
 * @example
 *   left.join(right, (l, r) => ({ ...l, ...r }), JoinWindows.ofTimeDifferenceAndGrace(60_000, 5_000));
 *   JoinWindows.ofTimeDifferenceWithNoGrace(10_000).before(0); // right records up to 10 s after
 */
export class JoinWindows {
  readonly beforeMs: number;
  readonly afterMs: number;
  readonly graceMs: number;

  private constructor(beforeMs: number, afterMs: number, graceMs: number) {
    if (beforeMs + afterMs < 0) {
      throw new ConfigError(`JoinWindows: the window (before ${beforeMs} ms + after ${afterMs} ms) must not be negative`);
    }
    this.beforeMs = beforeMs;
    this.afterMs = afterMs;
    this.graceMs = graceMs;
  }

  /** Records at most `timeDifferenceMs` apart join; records out of order are not waited for. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    const d = checkMs("timeDifferenceMs", timeDifferenceMs, 0);
    return new JoinWindows(d, d, 0);
  }

  /** Records at most `timeDifferenceMs` apart join; out-of-order records are accepted for `graceMs` after a window ends. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    const d = checkMs("timeDifferenceMs", timeDifferenceMs, 0);
    return new JoinWindows(d, d, checkMs("graceMs", graceMs, 0));
  }

  /** How far before a left record's time a right record may be (may be negative if `after` covers it). */
  before(ms: number): JoinWindows {
    return new JoinWindows(checkMs("before", ms, -Number.MAX_SAFE_INTEGER), this.afterMs, this.graceMs);
  }

  /** How far after a left record's time a right record may be (may be negative if `before` covers it). */
  after(ms: number): JoinWindows {
    return new JoinWindows(this.beforeMs, checkMs("after", ms, -Number.MAX_SAFE_INTEGER), this.graceMs);
  }

  /** `beforeMs + afterMs`. */
  get sizeMs(): number {
    return this.beforeMs + this.afterMs;
  }
}

function checkMs(what: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new ConfigError(`JoinWindows: ${what} must be a whole number of milliseconds${min === 0 ? " >= 0" : ""}, not ${value}`);
  }
  return value;
}
