import { describe, expect, it } from "vitest";
import type { SqliteTimeKeyedTable } from "../../../lib/state/sqlite/time-keyed-table.ts";
import type { TimeKeyedWrite } from "../../../lib/state/sqlite/time-keyed-rows.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";
import { StateFixture } from "./helpers.ts";

const RETENTION = 300;

function rowsOf(table: SqliteTimeKeyedTable) {
  return table
    .find({ key: null, timeFrom: Number.MIN_SAFE_INTEGER, timeTo: Number.MAX_SAFE_INTEGER, reverse: false })
    .map((r) => `${r.key.toString()}@${r.time}/${r.extra}=${r.value.toString()}:${r.timestampMs}`);
}

/**
 * A window or session table's putAll (a cache flush's one call, many rows to a statement)
 * against the same writes put one by one: the same rows, the same writes applied and
 * dropped as expired (later writes of one call advance the stream time earlier ones are
 * judged by), across batches, repeats of a row and deletes, for both kinds of table.
 */
describe("time-keyed table putAll against put one by one", () => {
  it.each(["window", "session"] as const)("%s table", (kind) => {
    const one = new StateFixture();
    const all = new StateFixture();
    try {
      const tableOf = (fx: StateFixture) => (kind === "window" ? fx.database.windowTable("t", RETENTION) : fx.database.sessionTable("t", RETENTION));
      const [byOne, byAll] = [tableOf(one), tableOf(all)];
      const next = seededRandom(21);
      let clock = 0;
      for (let call = 0; call < 60; call++) {
        // Sizes around the statement batch (64 rows), few keys and times so that a call repeats rows.
        const writes: TimeKeyedWrite[] = Array.from({ length: Math.floor(next() * 200) }, (_, i) => {
          if (next() < 0.05) clock += 100;
          return {
            key: Buffer.from(`k${Math.floor(next() * 12)}`),
            time: clock - Math.floor(next() * 8) * 50, // up to 350 late: some expired
            extra: Math.floor(next() * 3),
            value: next() < 0.2 ? null : Buffer.from(`v${call}.${i}`),
            timestampMs: clock + i,
          };
        });
        const applied = writes.map((w) => byOne.put(w.key, w.time, w.extra, w.value, w.timestampMs));
        expect(byAll.putAll(writes)).toEqual(applied);
        expect(rowsOf(byAll)).toEqual(rowsOf(byOne));
        expect(byAll.observedStreamTimeMs).toBe(byOne.observedStreamTimeMs);
        expect(byAll.latestTimestampMs).toBe(byOne.latestTimestampMs);
        for (const w of writes.slice(0, 20)) expect(byAll.get(w.key, w.time, w.extra)).toEqual(byOne.get(w.key, w.time, w.extra));
        if (call % 10 === 9) {
          one.database.commit();
          all.database.commit();
        }
      }
      expect(rowsOf(byOne).length).toBeGreaterThan(10);
    } finally {
      one.close();
      all.close();
    }
  });
});
