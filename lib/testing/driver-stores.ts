import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../errors/index.ts";
import { TaskStores } from "../runtime/index.ts";
import { StateDirectory } from "../state/index.ts";
import type { SubTopology } from "../topology/index.ts";

/**
 * The real state layer for the test driver: one SQLite database per task in a temporary
 * state directory, each task's stores built by the runtime's TaskStores (so the same
 * layers, caches and changelogs as in production), removed again on close.
 */
export class DriverStateDirectory {
  /** The temporary state directory; removed by close(). */
  readonly root: string;
  private readonly directory: StateDirectory;
  private readonly taskStores: TaskStores[] = [];

  constructor(applicationId: string) {
    this.root = mkdtempSync(join(tmpdir(), "sluice-test-driver-"));
    this.directory = StateDirectory.lock(this.root, applicationId);
  }

  /** Builds the stores of one task; refuses a spec whose build does not make a state-layer store. */
  open(options: {
    taskId: string;
    applicationId: string;
    subtopology: SubTopology;
    cacheMaxBytes: number | undefined;
    recordTimestamp: () => number;
    send: (topic: string, key: Buffer, value: Buffer | null, timestamp: number, partition: number) => void;
  }): TaskStores {
    const stores = new TaskStores({
      taskId: options.taskId,
      applicationId: options.applicationId,
      database: this.directory.openTask(options.taskId),
      specs: options.subtopology.stores,
      partition: 0,
      send: options.send,
      recordTimestamp: options.recordTimestamp,
      ...(options.cacheMaxBytes !== undefined ? { cacheMaxBytes: options.cacheMaxBytes } : {}),
    });
    for (const name of stores.names()) {
      const store = stores.get(name) as unknown as Partial<Record<"flush" | "close", unknown>> | null;
      if (typeof store?.flush !== "function" || typeof store.close !== "function") {
        // Not a store TaskStores could close: close only the database.
        stores.database.close();
        throw new ConfigError(
          `State store "${name}" was not built as a state-layer store (Stores.keyValueStoreBuilder(..) or a StoreSpec whose ` +
            "build(context) returns one); to run other objects as stores, pass a storeFactory option to TopologyTestDriver.",
        );
      }
    }
    this.taskStores.push(stores);
    return stores;
  }

  close(): void {
    let first: unknown = null;
    for (const stores of this.taskStores) {
      try {
        stores.close();
      } catch (error) {
        first ??= error;
      }
    }
    this.directory.release();
    rmSync(this.root, { recursive: true, force: true });
    if (first !== null) throw first;
  }
}
