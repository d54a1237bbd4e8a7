import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BufferConfig, Consumed, Materialized, StreamsBuilder, Suppressed } from "../../../lib/dsl/index.ts";
import { EmitStrategy, TimeWindows, WindowedSerdes } from "../../../lib/processor/index.ts";
import { StreamTask, TaskStores } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { StateDirectory } from "../../../lib/state/index.ts";
import type { Topology } from "../../../lib/topology/index.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** One task over a state directory, run like the runtime does: process, flush, commit, close. */
function openTask(topology: Topology, directory: StateDirectory, out: string[]) {
  const sub = topology.subtopologies[0]!;
  const windowed = WindowedSerdes.timeWindowed(Serdes.string(), 1000);
  let task: StreamTask | null = null;
  const stores = new TaskStores({
    taskId: "0_0",
    applicationId: "app",
    database: directory.openTask("0_0"),
    specs: sub.stores,
    partition: 0,
    send: () => {},
    recordTimestamp: () => task?.currentRecordTimestamp() ?? -1,
  });
  task = new StreamTask({
    taskId: "0_0",
    subtopology: sub,
    applicationId: "app",
    partitions: [{ topic: "in", partition: 0 }],
    collector: {
      send: (topic, key, value) => {
        const w = windowed.deserialize(topic, key)!;
        out.push(`${w.key}@${w.window.startMs}=${value!.readBigInt64BE(0)}`);
      },
      partitionCount: () => 1,
    },
    stores: { getStore: (name) => stores.get(name) },
  });
  task.init();
  let offset = 0;
  return {
    pipe(key: string, t: number) {
      task!.addRecords("in", 0, [{ topic: "in", partition: 0, offset: offset++, timestamp: t, key: Buffer.from(key), value: Buffer.from("x"), headers: {} }]);
      while (task!.process()) {}
    },
    commit() {
      stores.flush();
      stores.commit(new Map());
    },
    /** As the runtime does after an aborted transaction: the task's uncommitted writes are rolled back. */
    rollback() {
      stores.rollback();
    },
    commitAndClose() {
      stores.flush();
      stores.commit(new Map());
      task!.close();
      stores.close();
    },
  };
}

describe("emit on window close across a restart", () => {
  it("keeps stream time durable: a straggler late before the restart is still late after it, so no window is emitted twice", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(1000, 500))
      .emitStrategy(EmitStrategy.onWindowClose())
      .count(Materialized.as("c"))
      .toStream()
      .to("out");
    const topology = b.build();
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-restart-"));
    dirs.push(stateDir);
    const out: string[] = [];

    let directory = StateDirectory.lock(stateDir, "app");
    const before = openTask(topology, directory, out);
    before.pipe("a", 1500);
    before.pipe("b", 2900); // stream time 2900: a@1000 closed at 2500
    expect(out).toEqual(["a@1000=1"]);
    before.commitAndClose();
    directory.release();

    // A new task starts from stream time -1, and the largest window start stored is 2000 (< 2500).
    directory = StateDirectory.lock(stateDir, "app");
    const after = openTask(topology, directory, out);
    after.pipe("a", 1600); // late by the stream time before the restart
    after.pipe("b", 4000);
    expect(out).toEqual(["a@1000=1", "b@2000=1"]);
    after.commitAndClose();
    directory.release();
  });
});

describe("suppress(untilWindowCloses) over a cached windowed count across a restart", () => {
  it("a straggler late before the restart is still late for the count after it, so suppression does not emit its window again", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(1000, 300))
      .count(Materialized.as("c"))
      .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
      .toStream()
      .to("out");
    const topology = b.build();
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-restart-suppress-"));
    dirs.push(stateDir);
    const out: string[] = [];

    let directory = StateDirectory.lock(stateDir, "app");
    const before = openTask(topology, directory, out);
    before.pipe("a", 1500);
    before.pipe("b", 2900); // stream time 2900: a@1000 closed at 2300
    before.commit(); // the cache flushes into the suppression buffer, which emits a@1000
    expect(out).toEqual(["a@1000=1"]);
    before.commitAndClose();
    directory.release();

    // The largest window start the count stored is 2000 (< 2300): not enough to know a@1000 closed.
    directory = StateDirectory.lock(stateDir, "app");
    const after = openTask(topology, directory, out);
    after.pipe("a", 1600); // late by the stream time before the restart
    after.pipe("b", 4000);
    after.commit();
    expect(out).toEqual(["a@1000=1", "b@2000=1"]);
    after.commitAndClose();
    directory.release();
  });
});

describe("after a rollback of the task's writes (an aborted transaction)", () => {
  it("a windowed operator starts its stream time again from the store, so replayed records are judged as the first time", () => {
    const b = new StreamsBuilder();
    b.stream("in", Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(1000))
      .count(Materialized.as<string, bigint>("c").withCachingDisabled())
      .toStream()
      .to("out");
    const stateDir = mkdtempSync(join(tmpdir(), "sluice-rollback-"));
    dirs.push(stateDir);
    const out: string[] = [];
    const directory = StateDirectory.lock(stateDir, "app");
    const task = openTask(b.build(), directory, out);
    task.pipe("a", 100);
    task.commit();
    task.pipe("a", 300);
    task.pipe("b", 5000); // moves the operator's time; then the transaction aborts
    task.rollback();
    out.length = 0;
    task.pipe("a", 300); // replayed from the committed offset: in order then, so in order now
    expect(out).toEqual(["a@0=2"]);
    task.commitAndClose();
    directory.release();
  });
});
