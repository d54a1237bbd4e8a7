import { ConfigError, RetriableError } from "../../errors/index.ts";
import {
  CompositeReadOnlyKeyValueStore,
  CompositeReadOnlySessionStore,
  CompositeReadOnlyWindowStore,
  type ReadOnlyKeyValueStore,
  type ReadOnlySessionStore,
  type ReadOnlyWindowStore,
  type SessionStore,
  type WindowStore,
} from "../../state/index.ts";
import type { Topology } from "../../topology/index.ts";

/** The kinds of store interactive queries read (Kafka Streams' QueryableStoreTypes). */
export type QueryableStoreType = "keyValue" | "window" | "session";

/** What the local views read: the app's state and the stores of its running tasks. */
export interface LocalStoreSource {
  topology: Topology;
  state(): string;
  /** Every running task's store of that name (an object of the state layer). */
  taskStores(name: string): unknown[];
  /** The global store of that name once it is open. */
  globalStore(name: string): unknown;
}

/** The kind of a store object, told by the methods it has. */
export function storeTypeOf(store: unknown): QueryableStoreType | null {
  const s = store as Record<string, unknown> | null;
  if (s === null || typeof s !== "object") return null;
  if (typeof s.fetchWindow === "function") return "window";
  if (typeof s.findSessions === "function") return "session";
  if (typeof s.getWithTimestamp === "function" && typeof s.range === "function") return "keyValue";
  return null;
}

/**
 * Read-only views of one store across this instance's tasks, checked on every call: the
 * app must be RUNNING, a task of this instance must hold the store, and the store must be
 * of the kind asked for.
 */
export class LocalStores {
  readonly #source: LocalStoreSource;

  constructor(source: LocalStoreSource) {
    this.#source = source;
  }

  /** Throws a ConfigError unless the topology has the store. */
  checkKnown(name: string): void {
    const { topology } = this.#source;
    if (topology.stores.some((s) => s.name === name) || topology.globalStores.some((g) => g.storeName === name)) return;
    const names = [...topology.stores.map((s) => s.name), ...topology.globalStores.map((g) => g.storeName)];
    throw new ConfigError(`no state store named "${name}" in this topology; it has ${names.map((n) => `"${n}"`).join(", ") || "none"}`);
  }

  isGlobal(name: string): boolean {
    return this.#source.topology.globalStores.some((g) => g.storeName === name);
  }

  keyValue<K, V>(name: string): ReadOnlyKeyValueStore<K, V> {
    this.checkKnown(name);
    return new CompositeReadOnlyKeyValueStore<K, V>(() => this.open(name, "keyValue") as ReadOnlyKeyValueStore<K, V>[]);
  }

  window<K, V>(name: string): ReadOnlyWindowStore<K, V> {
    this.checkKnown(name);
    return new CompositeReadOnlyWindowStore<K, V>(() => this.open(name, "window") as WindowStore<K, V>[]);
  }

  session<K, V>(name: string): ReadOnlySessionStore<K, V> {
    this.checkKnown(name);
    return new CompositeReadOnlySessionStore<K, V>(() => this.open(name, "session") as SessionStore<K, V>[]);
  }

  /** The store objects of that name on this instance now, checked to be of `type`. */
  open(name: string, type: QueryableStoreType): unknown[] {
    let stores: unknown[];
    if (this.isGlobal(name)) {
      const store = this.#source.globalStore(name);
      if (!store) throw new RetriableError(`global store "${name}" is not open yet; retry once the app is running`);
      stores = [store];
    } else {
      const state = this.#source.state();
      if (state !== "RUNNING") {
        throw new RetriableError(`store "${name}" cannot be queried while the app is ${state} (its tasks may be restoring); retry once it is RUNNING`);
      }
      stores = this.#source.taskStores(name);
      if (stores.length === 0) {
        throw new RetriableError(`store "${name}" has no task on this instance right now; its partitions are owned by other instances`);
      }
    }
    const actual = storeTypeOf(stores[0]);
    if (actual !== type) {
      throw new ConfigError(`store "${name}" is a ${actual ?? "custom"} store, not a ${type} store; query it with app.store(name, "${actual ?? "keyValue"}")`);
    }
    return stores;
  }
}
