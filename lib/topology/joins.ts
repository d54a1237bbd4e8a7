import type { Serde } from "../serdes/index.ts";
import { decorateTopic } from "./naming.ts";
import { parentsOf, type StoreSpec, type TopologyNode } from "./nodes.ts";

/**
 * A GlobalKTable's store: every instance holds all partitions of `topic`, filled by a
 * consumer of its own (the runtime) or by the test driver from piped input, and read by
 * processors of any task that declare `storeName`. It belongs to no sub-topology and has
 * no changelog: the topic is its changelog.
 *
 * Filling it: for each record of `topic` (every partition, from the checkpoint or the
 * beginning), `store.put(keySerde.deserialize(topic, key), valueSerde.deserialize(topic, value))`,
 * a null value deleting the key. `storeSpec.build(context)` makes the store with the state
 * layer's StoreContext, exactly like a task store.
 */
export interface GlobalStoreSpec {
  readonly storeName: string;
  readonly topic: string;
  readonly keySerde: Serde<unknown>;
  readonly valueSerde: Serde<unknown>;
  readonly storeSpec: StoreSpec;
}

/** A source topic as a co-partition group names it: internal ones are named without the application id. */
export interface CopartitionedTopic {
  readonly topic: string;
  /** A repartition (or other internal) topic: at run time `<applicationId>-<topic>`. */
  readonly internal: boolean;
}

/**
 * Turns groups of node names (join inputs) into groups of the source topics that feed them:
 * the topics whose partitions must line up, so that equal keys meet in the same task.
 * Patterns cannot be checked and are left out; groups that share a topic are merged.
 */
export function copartitionTopicGroups(nodes: readonly TopologyNode[], nodeGroups: readonly (readonly string[])[]): CopartitionedTopic[][] {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const sourcesOf = (name: string, seen = new Set<string>()): CopartitionedTopic[] => {
    if (seen.has(name)) return [];
    seen.add(name);
    const node = byName.get(name);
    if (!node) return [];
    if (node.kind === "source") return node.topics.map((topic) => ({ topic, internal: node.internal }));
    return parentsOf(node).flatMap((p) => sourcesOf(p, seen));
  };
  const groups: Map<string, CopartitionedTopic>[] = [];
  for (const nodeGroup of nodeGroups) {
    const group = new Map<string, CopartitionedTopic>();
    for (const name of nodeGroup) for (const t of sourcesOf(name)) group.set(`${t.internal}:${t.topic}`, t);
    for (let i = groups.length - 1; i >= 0; i--) {
      const other = groups[i]!;
      if ([...group.keys()].some((k) => other.has(k))) {
        for (const [k, t] of other) group.set(k, t);
        groups.splice(i, 1);
      }
    }
    if (group.size > 1) groups.push(group);
  }
  return groups.map((g) => [...g.values()]);
}

/** The run-time names of a co-partition group's topics. */
export function copartitionGroupNames(group: readonly CopartitionedTopic[], applicationId: string): string[] {
  return group.map((t) => (t.internal ? decorateTopic(applicationId, t.topic) : t.topic));
}
