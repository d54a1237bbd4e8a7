import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CompositeReadOnlySessionStore,
  CompositeReadOnlyWindowStore,
  StateDirectory,
  Stores,
  type SessionStore,
  type StoreContext,
  type TaskDatabase,
  type WindowStore,
} from "../../../lib/state/index.ts";
import { stringSerde } from "../state/helpers.ts";

function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TASKS = 3;
const KEYS = ["a", "ab", "b", "c", "cd", "e", "f"];
// Each key lives in one task, as the partitioner puts it.
const taskOf = (key: string) => (key.charCodeAt(0) + key.length) % TASKS;
const bytes = (s: string) => Buffer.from(s, "utf8");

/** Several task databases in one state directory, each with its own context. */
class Tasks {
  readonly root = mkdtempSync(join(tmpdir(), "sluice-views-"));
  readonly directory = StateDirectory.lock(this.root, "app");
  readonly databases: TaskDatabase[] = [];
  readonly contexts: StoreContext[] = [];
  constructor() {
    for (let t = 0; t < TASKS; t++) {
      const database = this.directory.openTask(`0_${t}`);
      this.databases.push(database);
      this.contexts.push({ database, applicationId: "app", changelogWriter: () => ({ log: () => undefined }), recordTimestamp: () => 5 });
    }
  }
  close(): void {
    for (const d of this.databases) d.close();
    this.directory.release();
    rmSync(this.root, { recursive: true, force: true });
  }
}

describe("read-only window store across tasks, against a brute-force model", () => {
  let tasks: Tasks;
  beforeEach(() => {
    tasks = new Tasks();
  });
  afterEach(() => tasks.close());

  it.each([21, 22, 23])("seed %i", (seed) => {
    const next = random(seed);
    const stores: WindowStore<string, string>[] = tasks.contexts.map((c) =>
      Stores.windowStoreBuilder("w", { retentionMs: 1_000_000, windowSizeMs: 10 }, stringSerde, stringSerde).build(c),
    );
    const view = new CompositeReadOnlyWindowStore<string, string>(() => stores);
    const model = new Map<string, { key: string; start: number; value: string }>();
    for (let i = 0; i < 300; i++) {
      const key = KEYS[Math.floor(next() * KEYS.length)]!;
      const start = Math.floor(next() * 30) * 10;
      const value = next() < 0.1 ? null : `v${i}`;
      stores[taskOf(key)]!.put(key, value, start);
      if (value === null) model.delete(`${key}@${start}`);
      else model.set(`${key}@${start}`, { key, start, value });
    }
    const rows = [...model.values()];
    for (const key of [...KEYS, "zz"]) {
      for (let q = 0; q < 10; q++) {
        const a = Math.floor(next() * 320) - 10;
        const b = Math.floor(next() * 320) - 10;
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        const expected = rows.filter((r) => r.key === key && r.start >= from && r.start <= to).sort((x, y) => x.start - y.start);
        expect(view.fetch(key, from, to).map((w) => [w.windowStartMs, w.value])).toEqual(expected.map((r) => [r.start, r.value]));
        expect(view.backwardFetch(key, from, to).map((w) => w.windowStartMs)).toEqual(expected.map((r) => r.start).reverse());
        // Bounds are inclusive: a window starting exactly on either bound is in.
        expect(view.fetch(key, a, a).map((w) => w.windowStartMs)).toEqual(rows.filter((r) => r.key === key && r.start === a).map((r) => r.start));
        if (from < to) expect(view.fetch(key, to, from)).toEqual([]); // Kafka Streams: an inverted range is empty
        expect(view.fetch(key, a)).toBe(model.get(`${key}@${a}`)?.value ?? null);
      }
    }
    // Every key: each task's windows in its store's order (start, then key bytes), tasks one after another.
    const expectedAll = (from: number, to: number) =>
      [...Array(TASKS).keys()].flatMap((t) =>
        rows
          .filter((r) => taskOf(r.key) === t && r.start >= from && r.start <= to)
          .sort((x, y) => x.start - y.start || Buffer.compare(bytes(x.key), bytes(y.key)))
          .map((r) => [r.key, r.start, r.start + 10, r.value]),
      );
    const shape = (entries: { key: { key: string; window: { startMs: number; endMs: number } }; value: string }[]) =>
      entries.map((e) => [e.key.key, e.key.window.startMs, e.key.window.endMs, e.value]);
    expect(shape(view.all())).toEqual(expectedAll(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
    expect(shape(view.fetchAll(50, 120))).toEqual(expectedAll(50, 120));
    expect(view.windowSizeMs).toBe(10);
  });

  it("refuses a bound that is no number", () => {
    const stores = tasks.contexts.map((c) => Stores.windowStoreBuilder("w", { retentionMs: 100, windowSizeMs: 10 }, stringSerde, stringSerde).build(c));
    const view = new CompositeReadOnlyWindowStore<string, string>(() => stores);
    expect(() => view.fetch("a", Number.NaN, 10)).toThrow(/time bounds must be numbers/);
    expect(() => view.fetchAll(0, Number.POSITIVE_INFINITY)).toThrow(/time bounds must be numbers/);
  });
});

describe("read-only session store across tasks, against a brute-force model", () => {
  let tasks: Tasks;
  beforeEach(() => {
    tasks = new Tasks();
  });
  afterEach(() => tasks.close());

  it.each([31, 32, 33])("seed %i", (seed) => {
    const next = random(seed);
    const stores: SessionStore<string, string>[] = tasks.contexts.map((c) => Stores.sessionStoreBuilder("s", { retentionMs: 1_000_000 }, stringSerde, stringSerde).build(c));
    const view = new CompositeReadOnlySessionStore<string, string>(() => stores);
    const model = new Map<string, { key: string; start: number; end: number; value: string }>();
    for (let i = 0; i < 300; i++) {
      const key = KEYS[Math.floor(next() * KEYS.length)]!;
      const start = Math.floor(next() * 200);
      const end = start + Math.floor(next() * 40);
      const session = { key, window: { startMs: start, endMs: end } };
      const id = `${key}@${start}-${end}`;
      if (next() < 0.1) {
        stores[taskOf(key)]!.remove(session);
        model.delete(id);
      } else {
        stores[taskOf(key)]!.put(session, `v${i}`);
        model.set(id, { key, start, end, value: `v${i}` });
      }
    }
    const rows = [...model.values()];
    const byEndThenStart = (x: { start: number; end: number }, y: { start: number; end: number }) => x.end - y.end || x.start - y.start;
    const shape = (found: { key: { key: string; window: { startMs: number; endMs: number } }; value: string }[]) =>
      found.map((s) => [s.key.key, s.key.window.startMs, s.key.window.endMs, s.value]);
    for (const key of [...KEYS, "zz"]) {
      const all = rows.filter((r) => r.key === key).sort(byEndThenStart);
      expect(shape(view.fetch(key))).toEqual(all.map((r) => [key, r.start, r.end, r.value]));
      expect(shape(view.backwardFetch(key))).toEqual(all.map((r) => [key, r.start, r.end, r.value]).reverse());
      for (let q = 0; q < 10; q++) {
        const earliestEnd = Math.floor(next() * 260) - 10;
        const latestStart = Math.floor(next() * 260) - 10;
        // Kafka Streams: sessions ending at or after earliestEnd and starting at or before latestStart, both inclusive.
        const expected = all.filter((r) => r.end >= earliestEnd && r.start <= latestStart);
        expect(shape(view.findSessions(key, earliestEnd, latestStart))).toEqual(expected.map((r) => [key, r.start, r.end, r.value]));
        expect(shape(view.backwardFindSessions(key, earliestEnd, latestStart))).toEqual(expected.map((r) => [key, r.start, r.end, r.value]).reverse());
      }
      for (const r of all) expect(view.fetchSession(key, r.start, r.end)).toBe(r.value);
      expect(view.fetchSession(key, -5, -1)).toBeNull();
    }
  });
});
