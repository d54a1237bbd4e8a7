import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TaskStores } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { StateDirectory, Stores, type KeyValueStore, type StoreContext } from "../../../lib/state/index.ts";
import type { StoreSpec } from "../../../lib/topology/index.ts";

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

const TOPIC = "app-counts-changelog";

// A task with one logged store whose checkpoint is `checkpoint` and which holds one row.
function taskWithCheckpoint(checkpoint: number | null): TaskStores {
  const root = mkdtempSync(join(tmpdir(), "sluice-plan-"));
  const directory = StateDirectory.lock(root, "app");
  cleanup.push(() => rmSync(root, { recursive: true, force: true }), () => directory.release());
  const spec = {
    name: "counts",
    changelog: true,
    build: (context: StoreContext) => Stores.keyValueStoreBuilder("counts", Serdes.string(), Serdes.string()).build(context),
  } as unknown as StoreSpec;
  const stores = new TaskStores({
    taskId: "0_2",
    applicationId: "app",
    database: directory.openTask("0_2"),
    specs: [spec],
    partition: 2,
    send: () => undefined,
    recordTimestamp: () => 0,
  });
  cleanup.push(() => stores.close());
  if (checkpoint !== null) {
    const record = { topic: TOPIC, partition: 2, offset: checkpoint, timestamp: 0, key: Buffer.from("k"), value: Buffer.from("v"), headers: {} };
    stores.restore({ topic: TOPIC, partition: 2, from: checkpoint }, [record]);
  }
  return stores;
}

const bounds = (start: number, end: number, highWatermark = end) => new Map([[`${TOPIC}:2`, { start, end, highWatermark }]]);
const rows = (stores: TaskStores) => (stores.get("counts") as unknown as KeyValueStore<string, string>).all().length;

describe("planning a restore against the changelog's bounds", () => {
  it("reads from after the checkpoint to the end, and from the log start without one", () => {
    const wipes: string[] = [];
    expect(taskWithCheckpoint(9).planRestore(bounds(0, 20), false, (s) => wipes.push(s))).toEqual([{ topic: TOPIC, partition: 2, from: 10, to: 20 }]);
    expect(taskWithCheckpoint(null).planRestore(bounds(5, 20), false, (s) => wipes.push(s))).toEqual([{ topic: TOPIC, partition: 2, from: 5, to: 20 }]);
    expect(wipes).toEqual([]);
  });

  it("a checkpoint at the end reads nothing; under exactly-once a lone commit marker after it neither", () => {
    expect(taskWithCheckpoint(19).planRestore(bounds(0, 20), false, () => undefined)[0]).toMatchObject({ from: 20, to: 20 });
    // Offset 20 is the marker of the transaction that wrote 19: nothing to fetch.
    expect(taskWithCheckpoint(19).planRestore(bounds(0, 21), true, () => undefined)[0]).toMatchObject({ from: 20, to: 20 });
    // Without transactions offset 20 is a record.
    expect(taskWithCheckpoint(19).planRestore(bounds(0, 21), false, () => undefined)[0]).toMatchObject({ from: 20, to: 21 });
    // An open transaction after it (end below the high watermark): read what is stable.
    expect(taskWithCheckpoint(19).planRestore(bounds(0, 21, 23), true, () => undefined)[0]).toMatchObject({ from: 20, to: 21 });
  });

  it("wipes the store when its checkpoint is past the changelog's end (topic recreated)", () => {
    const stores = taskWithCheckpoint(40);
    expect(rows(stores)).toBe(1);
    const reasons: string[] = [];
    expect(stores.planRestore(bounds(0, 7), false, (store, reason) => reasons.push(`${store}: ${reason}`))).toEqual([{ topic: TOPIC, partition: 2, from: 0, to: 7 }]);
    expect(reasons).toEqual([`counts: its checkpoint 40 is past the end 7 of ${TOPIC}-2 (the topic was recreated or truncated)`]);
    expect(rows(stores)).toBe(0);
    expect(stores.database.readCheckpoint("counts")).toBeNull();
  });

  it("wipes the store when records after its checkpoint were deleted (start moved past it)", () => {
    const stores = taskWithCheckpoint(3);
    const reasons: string[] = [];
    expect(stores.planRestore(bounds(10, 30), false, (_store, reason) => reasons.push(reason))).toEqual([{ topic: TOPIC, partition: 2, from: 10, to: 30 }]);
    expect(reasons).toEqual([`its checkpoint 3 is before the start 10 of ${TOPIC}-2 (records after it were deleted)`]);
    expect(rows(stores)).toBe(0);
  });

  it("keeps the store when the start is exactly after its checkpoint", () => {
    const stores = taskWithCheckpoint(9);
    expect(stores.planRestore(bounds(10, 30), false, () => expect.fail("no wipe"))[0]).toMatchObject({ from: 10, to: 30 });
    expect(rows(stores)).toBe(1);
  });
});
