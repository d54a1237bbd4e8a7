import { TopologyError } from "../errors/index.ts";
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

/** The global stores after the sub-topologies in `describe()`: they generate no tasks. */
export function describeGlobalStores(specs: readonly GlobalStoreSpec[]): string {
  return specs.map((g) => `   Global store: ${g.storeName} (topic: ${g.topic}; every instance, no tasks)\n`).join("");
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

/**
 * The co-partitioning rule for partition counts (Kafka Streams' CopartitionedTopicsEnforcer),
 * for the runtime's topic plan. `counts` holds what is known so far by run-time name (user
 * topics; internal ones once worked out). Returns the counts it forces on internal topics:
 *
 * - a group with user topics: those must all have one count (else a TopologyError naming
 *   them), and every internal topic of the group gets it (an explicit different count is an
 *   error);
 * - a group of internal topics only: their explicit counts must agree and then apply to all;
 *   without one, once all of them are known (`counts`), all get the largest.
 *
 * Call it before working out repartition counts from their writers (it seeds them, which
 * also breaks the cycle of a foreign-key join's two topics) and once more afterwards.
 */
export function copartitionedPartitionCounts(
  groups: readonly (readonly CopartitionedTopic[])[],
  internalTopics: readonly { readonly name: string; readonly numberOfPartitions: number | null }[],
  applicationId: string,
  counts: ReadonlyMap<string, number>,
): Map<string, number> {
  const forced = new Map<string, number>();
  const explicit = new Map(internalTopics.map((t) => [t.name, t.numberOfPartitions]));
  for (const group of groups) {
    const external = group.filter((t) => !t.internal).map((t) => t.topic);
    const internal = group.filter((t) => t.internal);
    const runName = (t: CopartitionedTopic) => decorateTopic(applicationId, t.topic);
    let count: number | undefined;
    if (external.length > 0) {
      const known = external.map((t) => counts.get(t));
      if (known.some((c) => c === undefined)) continue;
      if (new Set(known).size > 1) {
        throw new TopologyError(
          `topics not co-partitioned: ${external.map((t, i) => `${t} (${known[i]} partitions)`).join(", ")}; ` +
            "a join across them needs equal partition counts: repartition one side (KStream.repartition) or recreate the topics",
        );
      }
      count = known[0]!;
      for (const t of internal) {
        const fixed = explicit.get(t.topic) ?? null;
        if (fixed !== null && fixed !== count) {
          throw new TopologyError(
            `repartition topic ${runName(t)} has ${fixed} partitions (Repartitioned.withNumberOfPartitions), but the topics it is joined with ` +
              `(${external.join(", ")}) have ${count}: drop the explicit count or make them equal`,
          );
        }
      }
    } else {
      const fixed = [...new Set(internal.map((t) => explicit.get(t.topic) ?? null).filter((n): n is number => n !== null))];
      if (fixed.length > 1) {
        throw new TopologyError(`co-partitioned repartition topics ${internal.map(runName).join(", ")} have different explicit partition counts (${fixed.join(", ")}): make them equal`);
      }
      if (fixed.length === 1) count = fixed[0]!;
      else {
        const known = internal.map((t) => counts.get(runName(t)));
        if (known.some((c) => c === undefined)) continue;
        count = Math.max(...(known as number[]));
      }
    }
    for (const t of internal) forced.set(runName(t), count);
  }
  return forced;
}
