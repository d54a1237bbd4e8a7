import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeTimeKeyedKey, SESSION_KEY_LAYOUT, WINDOW_KEY_LAYOUT } from "../../../lib/state/index.ts";
import type { RestoreRecord } from "../../../lib/state/index.ts";
import { RecentRows } from "../../../lib/state/sqlite/recent-rows.ts";
import type { SqliteTimeKeyedTable } from "../../../lib/state/sqlite/time-keyed-table.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";
import { StateFixture } from "./helpers.ts";

const RETENTION = 200;

/**
 * A table that keeps its recent rows in memory must answer every read as the same table
 * without them does (SQLite alone is the oracle): random writes, deletes and rewrites at
 * advancing, partly late times, point reads and key scans reaching before and after the
 * memory's horizon, commits with expiry, rollbacks, restores and wipes, across budgets from
 * one that evicts on nearly every write to one that never does.
 */
describe("a time-keyed table's recent rows against the same table without them", () => {
  const fixtures: StateFixture[] = [];
  afterEach(() => {
    for (const fx of fixtures.splice(0)) fx.close();
    vi.restoreAllMocks();
  });

  it.each([
    { seed: 21, kind: "window", budget: 150 },
    { seed: 22, kind: "window", budget: 2_000 },
    { seed: 23, kind: "window", budget: 1_000_000 },
    { seed: 24, kind: "session", budget: 600 },
    { seed: 25, kind: "session", budget: 1_000_000 },
  ] as const)("seed $seed, $kind table, budget $budget bytes", ({ seed, kind, budget }) => {
    const answeredInMemory = vi.spyOn(RecentRows.prototype, "find");
    const open = (fx: StateFixture): SqliteTimeKeyedTable => (kind === "window" ? fx.database.windowTable("t", RETENTION) : fx.database.sessionTable("t", RETENTION));
    const [withFx, withoutFx] = [new StateFixture(), new StateFixture()];
    fixtures.push(withFx, withoutFx);
    const tested = open(withFx);
    const oracle = open(withoutFx);
    tested.keepRecentRows(budget);
    const layout = kind === "window" ? WINDOW_KEY_LAYOUT : SESSION_KEY_LAYOUT;
    const next = seededRandom(seed);
    const keys = ["a", "ab", "b", "c", "dd"].map((k) => Buffer.from(k));
    const committed: RestoreRecord[] = [];
    let uncommitted: RestoreRecord[] = [];
    let clock = 0;
    let reads = 0;
    const everything = { key: null, timeFrom: Number.MIN_SAFE_INTEGER, timeTo: Number.MAX_SAFE_INTEGER, reverse: false };

    for (let step = 0; step < 4_000; step++) {
      const op = next();
      const key = keys[Math.floor(next() * keys.length)]!;
      if (next() < 0.3) clock += 7;
      const time = clock - Math.floor(next() * 40) * 7; // up to 273 ms late: some expired
      const extra = Math.floor(next() * 3);
      if (op < 0.45) {
        const value = next() < 0.1 ? null : Buffer.from(`v${step}`.repeat(1 + Math.floor(next() * 4)));
        const applied = tested.put(key, time, extra, value, time + 1);
        expect(oracle.put(key, time, extra, value, time + 1)).toBe(applied);
        if (applied) uncommitted.push({ key: encodeTimeKeyedKey(layout, key, time, extra), value, timestamp: time + 1 });
      } else if (op < 0.6) {
        reads++;
        expect(tested.get(key, time, extra)).toEqual(oracle.get(key, time, extra));
      } else if (op < 0.9) {
        reads++;
        const query = { key, timeFrom: time - Math.floor(next() * 60), timeTo: time + Math.floor(next() * 20), reverse: next() < 0.3, ...(next() < 0.3 ? { extraTo: 1 } : {}) };
        expect(tested.find(query)).toEqual(oracle.find(query));
      } else if (op < 0.96) {
        for (const [fx, table] of [[withFx, tested], [withoutFx, oracle]] as const) {
          table.flush();
          fx.database.commit();
        }
        committed.push(...uncommitted);
        uncommitted = [];
        expect(tested.find(everything)).toEqual(oracle.find(everything));
      } else if (op < 0.985) {
        withFx.database.rollback();
        withoutFx.database.rollback();
        uncommitted = [];
      } else if (op < 0.995) {
        // A restore of everything committed so far over the rows there are.
        withFx.database.commit();
        withoutFx.database.commit();
        committed.push(...uncommitted);
        uncommitted = [];
        const position = { topic: "app-t-changelog", partition: 0, offset: committed.length };
        withFx.database.restoreBatch("t", committed, position);
        withoutFx.database.restoreBatch("t", committed, position);
      } else {
        withFx.database.rollback();
        withoutFx.database.rollback();
        withFx.database.wipeStore("t");
        withoutFx.database.wipeStore("t");
        committed.length = 0;
        uncommitted = [];
      }
    }
    expect(tested.find(everything)).toEqual(oracle.find(everything));
    // Not vacuous: a good share of the scans of one key were answered from memory.
    expect(answeredInMemory.mock.calls.length).toBeGreaterThan(reads / 10);
  });

  it("stays within its budget by dropping its oldest rows and moving its horizon past them", () => {
    const rowBytes = 1 + 10 + 128; // key, value, the overhead counted per row
    const recent = new RecentRows(3 * rowBytes, 0);
    for (let time = 1; time <= 10; time++) recent.put(Buffer.from("k"), time, 0, Buffer.from(`value-${time}`.padEnd(10)), time);
    expect(recent.covers(8)).toBe(true);
    expect(recent.covers(7)).toBe(false);
    expect(recent.find(Buffer.from("k"), 8, 10, undefined, false).map((row) => row.time)).toEqual([8, 9, 10]);
    recent.expire(10);
    expect(recent.find(Buffer.from("k"), 8, 10, undefined, true).map((row) => row.time)).toEqual([10]);
  });
});
