import { ConfigError, RetriableError } from "../../errors/index.ts";
import type { Serde } from "../../serdes/index.ts";
import { changelogTopicName } from "../../state/index.ts";
import type { SubTopology, Topology } from "../../topology/index.ts";
import { sameHost, type ClusterView, type HostInfo } from "./cluster-view.ts";
import { partitionForKey } from "./murmur2.ts";

/** Where a key of a store lives (Kafka Streams' KeyQueryMetadata). */
export interface KeyQueryMetadata {
  /** The instance running the key's task, or null while no instance does (a rebalance, say). */
  active: HostInfo | null;
  /** Instances keeping a standby copy of the key's task. */
  standbys: HostInfo[];
  /** The key's partition; -1 for a global store (on every instance). */
  partition: number;
  /** The key's task, `<subtopology>_<partition>`; null for a global store. */
  taskId: string | null;
}

/** One instance of the application as interactive queries see it (Kafka Streams' StreamsMetadata). */
export interface StreamsMetadata {
  hostInfo: HostInfo;
  /** The stores of the tasks it runs (global stores included). */
  stateStoreNames: string[];
  /** The stores of the tasks it keeps standby copies of. */
  standbyStateStoreNames: string[];
  activeTasks: string[];
  standbyTasks: string[];
}

/** What the metadata is computed from. */
export interface QueryMetadataSource {
  topology: Topology;
  applicationId: string;
  /** This instance's applicationServer (UNAVAILABLE_HOST without one). */
  self: HostInfo;
  /** Partition counts by run-time topic name; null before the app planned its topics. */
  partitionCounts(): ReadonlyMap<string, number> | null;
  /** The group's view of who runs what; null until the assignment tells (then this instance is the only host known). */
  clusterView(): ClusterView | null;
  localActiveTasks(): string[];
  localStandbyTasks(): string[];
}

/** Answers queryMetadataForKey and streamsMetadataForStore from the topology and the assignment. */
export class QueryMetadata {
  readonly #source: QueryMetadataSource;

  constructor(source: QueryMetadataSource) {
    this.#source = source;
  }

  /** The sub-topology holding a (non-global) store; throws for an unknown store. */
  subtopologyOf(store: string): SubTopology | null {
    const { topology } = this.#source;
    if (topology.globalStores.some((g) => g.storeName === store)) return null;
    const sub = topology.subtopologies.find((s) => s.stores.some((spec) => spec.name === store));
    if (!sub) {
      const names = [...topology.stores.map((s) => s.name), ...topology.globalStores.map((g) => g.storeName)];
      throw new ConfigError(`no state store named "${store}" in this topology; it has ${names.map((n) => `"${n}"`).join(", ") || "none"}`);
    }
    return sub;
  }

  /**
   * The serde a store's keys were partitioned with: the key serde of its sub-topology's
   * source (the bytes the partitioner hashed), unless the caller gives one.
   */
  keySerdeOf(store: string): Serde<unknown> | null {
    const sub = this.subtopologyOf(store);
    if (!sub) return this.#source.topology.globalStores.find((g) => g.storeName === store)?.keySerde ?? null;
    return sub.sources[0]?.keySerde ?? null;
  }

  /** Every instance known, with what it runs. */
  allStreamsMetadata(): StreamsMetadata[] {
    const { topology } = this.#source;
    const globals = topology.globalStores.map((g) => g.storeName);
    const storesOf = (tasks: string[]) => {
      const subs = new Set(tasks.map((t) => Number(t.split("_")[0])));
      return topology.subtopologies.filter((s) => subs.has(s.id)).flatMap((s) => s.stores.map((spec) => spec.name));
    };
    return this.#hosts().map((h) => ({
      hostInfo: { host: h.host, port: h.port },
      stateStoreNames: [...new Set([...storesOf(h.active), ...globals])].sort(),
      standbyStateStoreNames: [...new Set(storesOf(h.standby))].sort(),
      activeTasks: [...h.active].sort(),
      standbyTasks: [...h.standby].sort(),
    }));
  }

  /** The instances holding the store, active or standby (every instance for a global store). */
  streamsMetadataForStore(store: string): StreamsMetadata[] {
    this.subtopologyOf(store);
    return this.allStreamsMetadata().filter((m) => m.stateStoreNames.includes(store) || m.standbyStateStoreNames.includes(store));
  }

  /** Where `key` of `store` lives. The key is serialized with `keySerde`, else with the store's source key serde. */
  queryMetadataForKey<K>(store: string, key: K, keySerde?: Serde<K>): KeyQueryMetadata {
    const sub = this.subtopologyOf(store);
    if (!sub) return { active: this.#source.self, standbys: [], partition: -1, taskId: null };
    const serde = (keySerde ?? sub.sources[0]?.keySerde ?? null) as Serde<K> | null;
    if (!serde) throw new ConfigError(`store "${store}" has no source key serde to partition keys with; pass keySerde`);
    if (key === null || key === undefined) throw new ConfigError(`a key of store "${store}" cannot be null; null keys are never stored`);
    const bytes = serde.serialize(changelogTopicName(this.#source.applicationId, store), key);
    if (bytes === null) throw new ConfigError(`the key serde of store "${store}" turned the key ${String(key)} into null`);
    const partition = partitionForKey(bytes, this.#partitionCount(sub, store));
    return this.metadataForTask(`${sub.id}_${partition}`, partition);
  }

  /** Who runs and who keeps standby copies of one task. */
  metadataForTask(taskId: string, partition: number): KeyQueryMetadata {
    const hosts = this.#hosts();
    const active = hosts.find((h) => h.active.includes(taskId)) ?? null;
    const standbys = hosts.filter((h) => h.standby.includes(taskId)).map((h) => ({ host: h.host, port: h.port }));
    return { active: active ? { host: active.host, port: active.port } : null, standbys, partition, taskId };
  }

  /** True when this instance is `host`. */
  isSelf(host: HostInfo): boolean {
    return sameHost(host, this.#source.self);
  }

  /** How many partitions (tasks) a non-global store has. */
  partitionCountOf(store: string): number {
    const sub = this.subtopologyOf(store);
    if (!sub) throw new ConfigError(`store "${store}" is a global store: it has no partitions, every instance holds all of it`);
    return this.#partitionCount(sub, store);
  }

  #partitionCount(sub: SubTopology, store: string): number {
    const counts = this.#source.partitionCounts();
    if (!counts) throw new RetriableError(`the partitions of store "${store}" are not known before the app has started; retry once it runs`);
    const { applicationId } = this.#source;
    const fromSources = sub.sourceTopics(applicationId).map((t) => counts.get(t) ?? 0);
    const count = Math.max(counts.get(changelogTopicName(applicationId, store)) ?? 0, ...fromSources);
    if (count < 1) throw new RetriableError(`the partition count of store "${store}" is not known yet; retry once the app runs`);
    return count;
  }

  // The assignment's view, with this instance's own tasks taking precedence for itself (they are current).
  #hosts(): ClusterView["hosts"] {
    const { self } = this.#source;
    const local = { host: self.host, port: self.port, active: this.#source.localActiveTasks(), standby: this.#source.localStandbyTasks() };
    const others = (this.#source.clusterView()?.hosts ?? []).filter((h) => !sameHost(h, self));
    return [local, ...others];
  }
}
