import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Consumed, Materialized, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { FetchedRecord } from "../../../lib/kafka/index.ts";
import { TaskStores } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { StateDirectory, type KeyValueStore } from "../../../lib/state/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

/**
 * DSL stores are ordinary state-layer stores: what the driver captured on their changelog
 * topics restores them through the runtime's TaskStores, as a new owner of the task would.
 */
describe("DSL stores restore from their changelogs", () => {
  it("rebuilds a count and a table (deleted key included) in a fresh state directory", () => {
    const b = new StreamsBuilder();
    b.stream("clicks", Consumed.with(Serdes.string(), Serdes.string())).groupByKey().count(Materialized.as("counts"));
    b.table("users", Consumed.with(Serdes.string(), Serdes.string()), Materialized.as("users"));
    const topology = b.build();
    const driver = new TopologyTestDriver(topology, { applicationId: "app" });
    cleanup.push(() => driver.close());
    const clicks = driver.createInputTopic("clicks", Serdes.string(), Serdes.string());
    ["a", "b", "a", "a"].forEach((k) => clicks.pipeInput(k, "x"));
    const users = driver.createInputTopic("users", Serdes.string(), Serdes.string());
    users.pipeInput("u1", "ann");
    users.pipeInput("u2", "bob");
    users.pipeInput("u1", null);
    const changelog = (topic: string): FetchedRecord[] =>
      driver
        .createOutputTopic(topic, Serdes.bytes(), Serdes.bytes())
        .readRecordsToList()
        .map((r, offset) => ({ topic, partition: 0, offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: {} }));
    const logs = new Map([
      ["app-counts-changelog", changelog("app-counts-changelog")],
      ["app-users-changelog", changelog("app-users-changelog")],
    ]);

    const root = mkdtempSync(join(tmpdir(), "sluice-restore-"));
    const directory = StateDirectory.lock(root, "app");
    cleanup.push(() => rmSync(root, { recursive: true, force: true }));
    cleanup.push(() => directory.release());
    const restored = new Map<string, TaskStores>();
    for (const sub of topology.subtopologies) {
      const stores = new TaskStores({
        taskId: `${sub.id}_0`,
        applicationId: "app",
        database: directory.openTask(`${sub.id}_0`),
        specs: sub.stores,
        partition: 0,
        send: () => {
          throw new Error("restoring writes no changelog");
        },
        recordTimestamp: () => 0,
      });
      cleanup.push(() => stores.close());
      const bounds = new Map([...logs].map(([topic, records]) => [`${topic}:0`, { start: 0, end: records.length, highWatermark: records.length }]));
      for (const range of stores.planRestore(bounds, false, () => expect.fail("nothing to wipe"))) {
        expect(range.from).toBe(0);
        stores.restore(range, logs.get(range.topic)!);
      }
      for (const name of stores.names()) restored.set(name, stores);
    }
    const counts = restored.get("counts")!.get("counts") as unknown as KeyValueStore<string, bigint>;
    expect(counts.all()).toEqual([{ key: "a", value: 3n }, { key: "b", value: 1n }]);
    const table = restored.get("users")!.get("users") as unknown as KeyValueStore<string, string>;
    expect(table.all()).toEqual([{ key: "u2", value: "bob" }]);
    expect(restored.get("users")!.database.readCheckpoint("users")).toBe(2);
  });
});
