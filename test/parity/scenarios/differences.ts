import { SessionWindows, SlidingWindows, TimeWindows } from "../../../lib/processor/index.ts";
import { isAdvance, type OutputRecord, type Step } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { outSessions, outTimeWindowed } from "./common.ts";
import { fanOutCount, sessionWindowed, timeWindowed, windowInput } from "./windows.ts";

/**
 * Kept differences from Kafka Streams (docs/differences.md): each scenario's outputs must
 * differ, and its check proves they differ only in the documented way.
 */

const PAGE = "docs/differences.md";

const text = (r: OutputRecord): string => JSON.stringify([r.topic, r.step, r.key, r.window?.start, r.window?.end, r.value, r.timestamp]);

/** The largest timestamp piped before step `index`. */
function streamTimeBefore(steps: readonly Step[], index: number): number {
  return Math.max(-Infinity, ...steps.slice(0, index).flatMap((s) => (isAdvance(s) ? [] : [s.timestamp])));
}

/**
 * The records as a cache flushed after each step shows them: per step, the last update of each
 * key and window, in no particular order.
 */
function asCached(records: readonly OutputRecord[]): Map<number, string[]> {
  const steps = new Map<number, Map<string, OutputRecord>>();
  for (const r of records) {
    const last = steps.get(r.step) ?? new Map<string, OutputRecord>();
    last.set(JSON.stringify([r.key, r.window?.start, r.window?.end]), r);
    steps.set(r.step, last);
  }
  return new Map([...steps].map(([step, last]) => [step, [...last.values()].map(text).sort()]));
}

/** Undefined when both show the same updates per step once cached, else the first step that differs. */
function sameOnceCached(a: readonly OutputRecord[], b: readonly OutputRecord[]): string | undefined {
  const [x, y] = [asCached(a), asCached(b)];
  for (const step of [...new Set([...x.keys(), ...y.keys()])].sort((m, n) => m - n)) {
    const [p, q] = [JSON.stringify(x.get(step) ?? []), JSON.stringify(y.get(step) ?? [])];
    if (p !== q) return `step ${step}: ${p} vs ${q}`;
  }
  return undefined;
}

const SLIDING_MS = 500;
const SLIDING_GRACE_MS = 300;
/** The sliding window store's retention: 2 x time difference + grace. */
const SLIDING_RETENTION_MS = 2 * SLIDING_MS + SLIDING_GRACE_MS;

const slidingCloseAfterJump: Scenario = {
  name: "difference-sliding-close-after-time-jump",
  about: "sliding windows (500), 300 ms grace, emit on close, the closing record 10 s ahead: beyond the store's retention Kafka Streams loses the windows still waiting",
  outputs: [outTimeWindowed(SLIDING_MS)],
  steps: windowInput(23),
  topology: (b) => timeWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(SLIDING_MS, SLIDING_GRACE_MS), SLIDING_MS, "close", "count"),
  difference: {
    page: `${PAGE}#sliding-windows-emitted-on-close-after-a-jump-in-stream-time`,
    check(kafkaStreams, sluice, { steps }) {
      // Kafka Streams' output must be Sluice's with some records left out, all of them
      // windows that the last record (the jump) closed and that lie beyond the retention.
      const jump = steps.length - 1;
      const jumpTime = streamTimeBefore(steps, steps.length);
      const before = streamTimeBefore(steps, jump);
      const lost: OutputRecord[] = [];
      let k = 0;
      for (const r of sluice) {
        if (kafkaStreams[k] && text(kafkaStreams[k]!) === text(r)) k++;
        else lost.push(r);
      }
      if (k < kafkaStreams.length) return `Kafka Streams wrote a record Sluice did not: ${text(kafkaStreams[k]!)}`;
      if (lost.length === 0) return "Kafka Streams lost no window";
      for (const r of lost) {
        if (r.step !== jump) return `a window lost at step ${r.step}, not at the jump (step ${jump}): ${text(r)}`;
        if (r.window!.end + SLIDING_GRACE_MS <= before) return `a window that had closed before the jump is missing: ${text(r)}`;
        if (r.window!.end > jumpTime - SLIDING_RETENTION_MS) return `a window within the retention of the jump is missing: ${text(r)}`;
      }
      return undefined;
    },
  },
};

const SESSION_GAP_MS = 300;
/** The uncached scenario with the same input (windows.ts). */
const UNCACHED_TWIN = "session-count-nograce-update-uncached";

const sessionsThroughCache: Scenario = {
  name: "difference-session-count-nograce-update-cached",
  about: "sessions (gap 300), no grace, every update, through a caching store: Kafka Streams merges stragglers into expired sessions still in its cache",
  outputs: [outSessions()],
  // The same input as session-count-nograce-update-uncached.
  steps: windowInput(30, { stepMs: 120, jitterMs: 400 }),
  topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapWithNoGrace(SESSION_GAP_MS), "update", "count"),
  difference: {
    page: `${PAGE}#sessions-through-a-caching-store`,
    check(kafkaStreams, sluice, { steps, kafkaStreamsOf }) {
      // Sluice's cached answer is Kafka Streams' uncached one (as a cache shows it: the last
      // update of each session per record)...
      const uncached = sameOnceCached(kafkaStreamsOf(UNCACHED_TWIN), sluice);
      if (uncached) return `Sluice's cached result is not Kafka Streams' uncached one (${UNCACHED_TWIN}): ${uncached}`;
      // ...and Kafka Streams' cached one first departs from it with a session that swallowed
      // one of its earlier sessions of that key which had already expired.
      const i = kafkaStreams.findIndex((r, j) => !sluice[j] || text(r) !== text(sluice[j]!));
      const departed = kafkaStreams[i];
      if (!departed?.window || departed.value === null) return `Kafka Streams' first different record is no merged session: ${departed ? text(departed) : "(none)"}`;
      const closeTime = streamTimeBefore(steps, departed.step + 1) - SESSION_GAP_MS;
      const swallowed = kafkaStreams
        .slice(0, i)
        .find((r) => r.key === departed.key && r.value !== null && r.window!.end < closeTime && r.window!.start >= departed.window!.start && r.window!.end <= departed.window!.end);
      if (!swallowed) return `Kafka Streams' first different record ${text(departed)} contains no earlier session of its key that had expired (ended before ${closeTime})`;
      return undefined;
    },
  },
};

const FAN_OUT_SIZE_MS = 1000;

const smallCacheFanOut: Scenario = {
  // The test driver commits after every record, so only what one record does can fill a
  // cache: here twelve updates of four windows into a cache of a few entries.
  name: "difference-fan-out-hopping-count-small-cache",
  about: "one record updates four hopping windows three times each through a 400-byte cache: the two caches hold different numbers of entries, so they evict at other points",
  config: { cacheMaxBytes: 400 },
  outputs: [outTimeWindowed(FAN_OUT_SIZE_MS)],
  steps: windowInput(63),
  topology: (b) => fanOutCount(b, TimeWindows.ofSizeAndGrace(FAN_OUT_SIZE_MS, 300).advanceBy(250), FAN_OUT_SIZE_MS),
  difference: {
    page: `${PAGE}#cache-entry-sizes`,
    check(kafkaStreams, sluice) {
      // Only intermediate updates differ: per record, the last update of each window is the same.
      const cached = sameOnceCached(kafkaStreams, sluice);
      if (cached) return `the last update of a window after a record differs: ${cached}`;
      return undefined;
    },
  },
};

export const differences: Scenario[] = [slidingCloseAfterJump, sessionsThroughCache, smallCacheFanOut];
