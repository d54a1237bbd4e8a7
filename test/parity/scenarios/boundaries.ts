import { JoinWindows } from "../../../lib/dsl/index.ts";
import { SessionWindows, SlidingWindows, TimeWindows } from "../../../lib/processor/index.ts";
import { pipe } from "../harness/inputs.ts";
import type { PipeStep } from "../harness/exchange.ts";
import type { Scenario } from "../harness/scenario.ts";
import { out, outSessions, outTimeWindowed } from "./common.ts";
import { join, type Kind } from "./stream-joins.ts";
import { sessionWindowed, timeWindowed, type Emit } from "./windows.ts";

/**
 * Hand-written inputs that put records exactly on the edges: a window's end, its close
 * (end + grace), one millisecond either side, the same timestamp twice. Each comment says
 * what the record is meant to hit; the oracle decides what happens.
 */
const at = (key: string, timestamp: number, topic = "in"): PipeStep => pipe(topic, key, String(timestamp), timestamp);

/** Tumbling windows of 1000 ms, grace 200 ms. */
const TUMBLING: PipeStep[] = [
  at("a", 0),
  at("a", 999), // last millisecond of [0, 1000)
  at("a", 1000), // first of [1000, 2000)
  at("b", 1199), // stream time one short of the close of [0, 1000)
  at("a", 500), // still accepted
  at("b", 1200), // stream time reaches end + grace
  at("a", 999), // too late now
  at("a", 1999),
  at("b", 2200),
  at("a", 1000), // too late
  at("z", 10_000),
];

/** Sliding windows, time difference 500 ms, grace 100 ms. */
const SLIDING: PipeStep[] = [
  at("a", 1000),
  at("a", 1500), // exactly the time difference later: one window holds both
  at("a", 1501),
  at("a", 1000), // the same timestamp again
  at("a", 2001),
  at("b", 2101),
  at("a", 1400), // late for some windows, within grace for others
  at("b", 2602),
  at("a", 2000),
  // Closes every window while they are still within the store's retention (2 x 500 + 100 ms):
  // beyond it Kafka Streams loses them (a kept difference, docs/parity.md).
  at("z", 3200),
];

/** Sessions, inactivity gap 300 ms, grace 100 ms. */
const SESSIONS: PipeStep[] = [
  at("a", 1000),
  at("a", 1300), // exactly the gap later
  at("a", 1601), // one past the gap: a new session
  at("a", 1450), // within the gap of both: merges them
  at("b", 2001), // stream time = end 1601 + gap + grace
  at("a", 1601),
  at("b", 2002), // one more
  at("a", 1601),
  at("a", 1200),
  at("z", 10_000),
];

/** Stream-stream join, time difference 100 ms, grace 50 ms. */
const JOIN: PipeStep[] = [
  at("a", 1000, "left"),
  at("a", 1100, "right"), // exactly the time difference after
  at("a", 1101, "right"), // one past it
  at("a", 900, "right"), // exactly the time difference before
  at("a", 1001, "left"),
  at("b", 1150, "left"), // stream time = 1000 + difference + grace
  at("b", 1151, "right"),
  at("a", 949, "left"), // older than stream time - difference - grace
  at("a", 1001, "left"), // exactly at that bound
  at("c", 1300, "right"),
  at("z", 10_000, "left"),
  at("z", 10_000, "right"),
];

function tumbling(emit: Emit): Scenario {
  return {
    name: `boundary-tumbling-${emit}`,
    about: `tumbling windows at their edges (${emit})`,
    outputs: [outTimeWindowed(1000)],
    steps: TUMBLING,
    topology: (b) => timeWindowed(b, TimeWindows.ofSizeAndGrace(1000, 200), 1000, emit, "count"),
  };
}

function sliding(emit: Emit): Scenario {
  return {
    name: `boundary-sliding-${emit}`,
    about: `sliding windows at their edges (${emit})`,
    outputs: [outTimeWindowed(500)],
    steps: SLIDING,
    topology: (b) => timeWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(500, 100), 500, emit, "count"),
  };
}

/** Uncached: with a cache, Kafka Streams merges into expired sessions still cached (a kept difference). */
function sessions(emit: Emit): Scenario {
  return {
    name: `boundary-session-${emit}-uncached`,
    about: `sessions at the gap and grace edges (${emit}), caching disabled`,
    outputs: [outSessions()],
    steps: SESSIONS,
    topology: (b) => sessionWindowed(b, SessionWindows.ofInactivityGapAndGrace(300, 100), emit, "count", { caching: false }),
  };
}

function joins(kind: Kind): Scenario {
  return {
    name: `boundary-join-${kind}`,
    about: `stream-stream ${kind} join at the window and grace edges`,
    outputs: [out()],
    steps: JOIN,
    topology: (b) => join(b, kind, JoinWindows.ofTimeDifferenceAndGrace(100, 50)),
  };
}

export const boundaries: Scenario[] = [
  tumbling("update"),
  tumbling("close"),
  tumbling("suppress"),
  sliding("update"),
  sliding("close"),
  sessions("update"),
  sessions("close"),
  joins("inner"),
  joins("left"),
  joins("outer"),
];
