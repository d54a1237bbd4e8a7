import { seededRandom } from "../../../lib/testing/seeded-random.ts";

/**
 * Brute-force expectations for windowed aggregations, computed from the same input the
 * topology gets: records in arrival order, stream time tracked as the largest timestamp so
 * far, and for each window the records that fall in it and were not too late when they
 * arrived. Deliberately naive (arrays, no stores), to check the real operators against.
 */

/** Seeded: the same seed gives the same input on every run. */
export const prng = seededRandom;

export interface Input {
  key: string;
  value: string;
  t: number;
}

/**
 * Records roughly `step` ms apart, shuffled by up to `jitter` ms, and with probability
 * `lateProbability` held back by up to `lateBy` ms (stragglers, some inside grace, some not).
 */
export function generate(seed: number, n: number, options: { keys: number; step: number; jitter: number; lateProbability: number; lateBy: number }): Input[] {
  const random = prng(seed);
  const out: Input[] = [];
  for (let i = 0; i < n; i++) {
    let t = 1000 + i * options.step + Math.floor(random() * options.jitter);
    if (random() < options.lateProbability) t -= Math.floor(random() * options.lateBy);
    out.push({ key: `k${Math.floor(random() * options.keys)}`, value: `v${i}`, t: Math.max(0, t) });
  }
  return out;
}

/** A window of one key, as results are compared: `key@start..end`. */
export function windowId(key: string, startMs: number, endMs: number): string {
  return `${key}@${startMs}..${endMs}`;
}

export interface Expected {
  /** Every window's final value (on update: the last value seen downstream). */
  finalValues: Map<string, string[]>;
  /** Windows closed by the end of the input, with their values: what emit-on-close must emit, once each. */
  closed: Map<string, string[]>;
  /** What `suppress(untilWindowCloses)` emits, in any order, when it sees each record's updates at once. */
  suppressed: Array<[string, string[]]>;
  /** Records too late for at least one of their windows. */
  late: number;
}

/** One change of a window downstream of the aggregation: its new values (null: removed) and result timestamp. */
interface Update {
  id: string;
  end: number;
  values: string[] | null;
  timestamp: number;
}

/**
 * Kafka Streams' final-result suppression: its stream time is the largest timestamp of the
 * changes reaching it; it holds each window's latest change and emits it once stream time
 * reaches the window's end + `afterEnd` (a removed window is dropped, never emitted).
 */
function suppress(updatesPerRecord: Update[][], afterEnd: number): Array<[string, string[]]> {
  const held = new Map<string, Update>();
  const out: Array<[string, string[]]> = [];
  let now = -1;
  for (const updates of updatesPerRecord) {
    for (const u of updates) {
      now = Math.max(now, u.timestamp);
      held.set(u.id, u);
    }
    for (const [id, u] of held) {
      if (u.end + afterEnd > now) continue;
      held.delete(id);
      if (u.values !== null) out.push([id, [...u.values]]);
    }
  }
  return out;
}

/** Tumbling/hopping windows [start, start + size), closed once stream time >= end + grace. */
export function expectTimeWindows(input: Input[], size: number, advance: number, grace: number): Expected {
  const windows = new Map<string, { closesAt: number; values: string[]; timestamp: number }>();
  const updates: Update[][] = [];
  let now = -1;
  let late = 0;
  for (const r of input) {
    now = Math.max(now, r.t);
    let missed = false;
    const changes: Update[] = [];
    updates.push(changes);
    for (let start = r.t - (r.t % advance); start > r.t - size && start >= 0; start -= advance) {
      const closesAt = start + size + grace;
      if (now >= closesAt) {
        missed = true;
        continue;
      }
      const id = windowId(r.key, start, start + size);
      const w = windows.get(id) ?? { closesAt, values: [], timestamp: r.t };
      w.values.push(r.value);
      w.timestamp = Math.max(w.timestamp, r.t);
      windows.set(id, w);
      changes.push({ id, end: start + size, values: [...w.values], timestamp: w.timestamp });
    }
    if (missed) late++;
  }
  return result(windows, now, late, suppress(updates, grace));
}

/**
 * Sliding windows [start, start + d], both ends inclusive, as Kafka Streams creates them: a
 * record's own window ending at it ([0, d] near the epoch), the window just after it once a
 * later record is within d, and the window just after each earlier record within d of it. A
 * window exists if it was open (stream time <= end + grace) when it came into being; it holds
 * the accepted records in its range that arrived while it was open, in arrival order.
 */
export function expectSlidingWindows(input: Input[], d: number, grace: number): Expected {
  const perKey = new Map<string, { accepted: Input[]; windows: Map<number, string[]> }>();
  const closesAt = (start: number) => start + d + grace + 1;
  const updates: Update[][] = [];
  let now = -1;
  let late = 0;
  for (const r of input) {
    now = Math.max(now, r.t);
    const changes: Update[] = [];
    updates.push(changes);
    if (now >= r.t + d + grace + 1) {
      late++;
      continue;
    }
    const k = perKey.get(r.key) ?? { accepted: [] as Input[], windows: new Map<number, string[]>() };
    perKey.set(r.key, k);
    k.accepted.push(r);
    // A window's result timestamp: the largest time of the records in it.
    const changed = (start: number, values: string[]) => {
      const timestamp = Math.max(...k.accepted.filter((o) => o.t >= start && o.t <= start + d && values.includes(o.value)).map((o) => o.t));
      changes.push({ id: windowId(r.key, start, start + d), end: start + d, values: [...values], timestamp });
    };
    let missed = false;
    for (const [start, values] of k.windows) {
      if (start > r.t || start + d < r.t) continue;
      if (now < closesAt(start)) {
        values.push(r.value);
        changed(start, values);
      } else missed = true;
    }
    const candidates = new Set<number>([r.t < d ? 0 : r.t - d]);
    if (k.accepted.some((o) => o.t > r.t && o.t <= r.t + d)) candidates.add(r.t + 1);
    for (const o of k.accepted) if (o.t < r.t && o.t >= r.t - d) candidates.add(o.t + 1);
    for (const start of candidates) {
      if (k.windows.has(start)) continue;
      if (now >= closesAt(start)) {
        missed = true;
        continue;
      }
      const values = k.accepted.filter((o) => o.t >= start && o.t <= start + d).map((o) => o.value);
      k.windows.set(start, values);
      changed(start, values);
    }
    if (missed) late++;
  }
  const windows = new Map<string, { closesAt: number; values: string[] }>();
  for (const [key, k] of perKey) for (const [start, values] of k.windows) windows.set(windowId(key, start, start + d), { closesAt: closesAt(start), values });
  return result(windows, now, late, suppress(updates, grace));
}

/**
 * Session windows: a record joins the sessions of its key within `gap` of it, merged into
 * one; late when the merged session closed (stream time > end + gap + grace). Sessions are
 * kept for gap + grace after their end (by the largest session end before the record), as
 * the store keeps them. Emit-on-close emits the sessions that still exist when they close.
 * Downstream, unless the merged session is just [t, t], each covered session is removed and
 * the merged one written; changes carry the session's end as timestamp.
 */
export function expectSessions(input: Input[], gap: number, grace: number): Expected {
  interface Session { key: string; start: number; end: number; values: string[]; emitted: boolean }
  let sessions: Session[] = [];
  const closed = new Map<string, string[]>();
  let now = -1;
  let observed = -1;
  let late = 0;
  const updates: Update[][] = [];
  for (const r of input) {
    now = Math.max(now, r.t);
    const changes: Update[] = [];
    updates.push(changes);
    // Sessions the store has expired are gone for merging (but were emitted, so they stay in the results).
    const overlapping = sessions.filter((s) => s.key === r.key && s.end + gap + grace > observed && s.end >= r.t - gap && s.start <= r.t + gap);
    const start = Math.min(r.t, ...overlapping.map((s) => s.start));
    const end = Math.max(r.t, ...overlapping.map((s) => s.end));
    if (now >= end + gap + grace + 1) {
      late++;
    } else {
      if (start !== r.t || end !== r.t) for (const s of overlapping) changes.push({ id: windowId(s.key, s.start, s.end), end: s.end, values: null, timestamp: s.end });
      changes.push({ id: windowId(r.key, start, end), end, values: [...overlapping.flatMap((s) => s.values), r.value], timestamp: end });
      sessions = sessions.filter((s) => !overlapping.includes(s));
      sessions.push({ key: r.key, start, end, values: [...overlapping.flatMap((s) => s.values), r.value], emitted: false });
      observed = Math.max(observed, end);
    }
    for (const s of sessions) {
      if (!s.emitted && now >= s.end + gap + grace + 1) {
        s.emitted = true;
        closed.set(windowId(s.key, s.start, s.end), [...s.values]);
      }
    }
  }
  const finalValues = new Map(sessions.map((s) => [windowId(s.key, s.start, s.end), s.values] as const));
  return { finalValues, closed, suppressed: suppress(updates, gap + grace), late };
}

function result(windows: Map<string, { closesAt: number; values: string[] }>, now: number, late: number, suppressed: Array<[string, string[]]>): Expected {
  const finalValues = new Map<string, string[]>();
  const closed = new Map<string, string[]>();
  for (const [id, w] of windows) {
    finalValues.set(id, w.values);
    if (now >= w.closesAt) closed.set(id, w.values);
  }
  return { finalValues, closed, suppressed, late };
}
