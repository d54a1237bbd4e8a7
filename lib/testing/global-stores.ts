import type { TaskStores } from "../runtime/index.ts";
import { SubTopology, type GlobalStoreSpec, type StoreSpec, type Topology } from "../topology/index.ts";
import type { DriverStateDirectory } from "./driver-stores.ts";
import type { TestStoreContext } from "./topology-test-driver.ts";

interface GlobalPutStore {
  put(key: unknown, value: unknown): void;
}

/**
 * The test driver's GlobalKTable stores: built once for the whole driver (like one
 * instance's global state), filled synchronously from records piped into their topics and
 * from those the topology writes there (after the record that wrote them), and
 * handed to any task whose processors ask for them.
 */
export class DriverGlobalStores {
  private readonly byTopic = new Map<string, GlobalStoreSpec>();
  private readonly stores = new Map<string, unknown>();
  /** The stores when built by the state layer: the driver commits them with the tasks'. */
  readonly taskStores: TaskStores | null = null;
  private timestampMs = -1;
  /** Records the topology wrote to a global table's topic, not yet applied to its store. */
  private readonly held: { topic: string; key: Buffer | null; value: Buffer | null; timestampMs: number }[] = [];

  constructor(
    topology: Topology,
    applicationId: string,
    stateDir: DriverStateDirectory | null,
    factory: ((spec: StoreSpec, context: TestStoreContext) => unknown) | undefined,
  ) {
    const specs = topology.globalStores;
    if (specs.length === 0) return;
    for (const spec of specs) this.byTopic.set(spec.topic, spec);
    const send = (): void => {
      throw new Error("a global store has no changelog: its topic is its changelog");
    };
    if (factory) {
      const context: TestStoreContext = { taskId: "global", applicationId, partition: 0, recordTimestamp: () => this.timestampMs, send };
      for (const spec of specs) this.stores.set(spec.storeName, factory(spec.storeSpec, context));
      return;
    }
    this.taskStores = stateDir!.open({
      taskId: "global",
      applicationId,
      subtopology: new SubTopology(-1, [], specs.map((s) => s.storeSpec)),
      cacheMaxBytes: undefined,
      recordTimestamp: () => this.timestampMs,
      send,
    });
    for (const spec of specs) this.stores.set(spec.storeName, this.taskStores.get(spec.storeName));
  }

  get(name: string): unknown {
    return this.stores.get(name);
  }

  names(): string[] {
    return [...this.stores.keys()];
  }

  has(topic: string): boolean {
    return this.byTopic.has(topic);
  }

  /** Keeps a record the topology wrote to a global table's topic for `applyHeld()`; ignores other topics. */
  hold(topic: string, key: Buffer | null, value: Buffer | null, timestampMs: number): void {
    if (this.byTopic.has(topic)) this.held.push({ topic, key, value, timestampMs });
  }

  /** Applies the held records to their stores, in the order they were written. */
  applyHeld(): void {
    for (let r = this.held.shift(); r !== undefined; r = this.held.shift()) this.fill(r.topic, r.key, r.value, r.timestampMs);
  }

  /** Applies a record of a global table's topic to its store (a null value deletes); false for other topics. */
  fill(topic: string, key: Buffer | null, value: Buffer | null, timestampMs: number): boolean {
    const spec = this.byTopic.get(topic);
    if (spec === undefined) return false;
    const typedKey = spec.keySerde.deserialize(topic, key);
    if (typedKey === null) return true; // a row needs a key, as in a table
    this.timestampMs = timestampMs;
    (this.stores.get(spec.storeName) as GlobalPutStore).put(typedKey, spec.valueSerde.deserialize(topic, value));
    return true;
  }
}
