import { describe, expect, it } from "vitest";
import type { SqliteTimeKeyedTable } from "../../../lib/state/sqlite/time-keyed-table.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";
import { StateFixture } from "./helpers.ts";

const RETENTION = 300;

type Model = Map<string, { time: number; text: string }>;

function rowsOf(table: SqliteTimeKeyedTable): string[] {
  return table
    .find({ key: null, timeFrom: Number.MIN_SAFE_INTEGER, timeTo: Number.MAX_SAFE_INTEGER, reverse: false })
    .map((r) => `${r.key.toString()}@${r.time}/${r.extra}=${r.value.toString()}:${r.timestampMs}`)
    .sort();
}

function expectedRows(model: Model, observed: number): string[] {
  return [...model.values()].filter((r) => r.time >= observed - RETENTION + 1).map((r) => r.text).sort();
}

/**
 * A window or session table's writes (held back and written many to a statement until a
 * read, a delete or a commit) against a brute-force model of the rows and Kafka Streams'
 * retention rule: runs of writes between reads, repeats of a row, deletes, expired writes
 * (later writes advance the stream time earlier ones are judged by), commits and rollbacks.
 */
describe("time-keyed table writes against a model", () => {
  it.each(["window", "session"] as const)("%s table", (kind) => {
    const fx = new StateFixture();
    try {
      const table = kind === "window" ? fx.database.windowTable("t", RETENTION) : fx.database.sessionTable("t", RETENTION);
      const next = seededRandom(21);
      let model: Model = new Map();
      let observed = Number.MIN_SAFE_INTEGER;
      let committed = { model: new Map(model) };
      let clock = 0;
      for (let run = 0; run < 80; run++) {
        // Runs around the statement batch (64 rows), few keys and times so that a run repeats rows.
        const writes = Array.from({ length: Math.floor(next() * 200) }, (_, i) => {
          if (next() < 0.05) clock += 100;
          return {
            key: Buffer.from(`k${Math.floor(next() * 12)}`),
            time: clock - Math.floor(next() * 8) * 50, // up to 350 late: some expired
            extra: Math.floor(next() * 3),
            value: next() < 0.1 ? null : Buffer.from(`v${run}.${i}`),
            timestampMs: clock + i,
          };
        });
        const applied = writes.map((w) => table.put(w.key, w.time, w.extra, w.value, w.timestampMs));
        writes.forEach((w, i) => {
          observed = Math.max(observed, w.time);
          const live = w.time >= observed - RETENTION + 1;
          expect(applied[i]).toBe(live);
          if (!live) return;
          const address = `${w.key.toString()}@${w.time}/${w.extra}`;
          if (w.value === null) model.delete(address);
          else model.set(address, { time: w.time, text: `${address}=${w.value.toString()}:${w.timestampMs}` });
        });
        const action = next();
        if (action < 0.15) {
          fx.database.commit();
          committed = { model: new Map(model) };
        } else if (action < 0.25) {
          fx.database.rollback();
          model = new Map(committed.model);
          // After a rollback the stream time is the latest of the rows that remain.
          observed = Math.max(Number.MIN_SAFE_INTEGER, ...[...model.values()].map((r) => r.time));
          expect(table.observedStreamTimeMs).toBe(observed);
        } else if (action < 0.5) {
          const w = writes[0];
          if (w !== undefined) {
            const row = w.time >= observed - RETENTION + 1 ? model.get(`${w.key.toString()}@${w.time}/${w.extra}`) : undefined;
            expect(table.get(w.key, w.time, w.extra)?.value.toString()).toBe(row?.text.split("=")[1]?.split(":")[0]);
          }
        }
        expect(rowsOf(table)).toEqual(expectedRows(model, observed));
      }
      expect(model.size).toBeGreaterThan(10);
    } finally {
      fx.close();
    }
  });
});
