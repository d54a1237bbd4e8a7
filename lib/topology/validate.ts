import { TopologyError } from "../errors/index.ts";
import type { InternalTopicSpec } from "./internal-topics.ts";
import type { StoreSpec, TopologyNode } from "./nodes.ts";
import type { SubTopology } from "./subtopology.ts";

/** Checks that need the whole graph but not its split. Each message says how to fix it. */
export function validateGraph(
  nodes: readonly TopologyNode[],
  stores: ReadonlyMap<string, StoreSpec>,
  repartitionTopics: ReadonlyMap<string, InternalTopicSpec>,
): void {
  if (!nodes.some((n) => n.kind === "source")) {
    throw new TopologyError("The topology has no source: read at least one topic with builder.stream(..).");
  }
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const readers = new Map<string, string>();
  const repartitionWriters = new Set<string>();
  const repartitionReaders = new Set<string>();

  for (const node of nodes) {
    if (node.kind === "source") {
      for (const topic of node.topics) {
        const key = `${node.internal}:${topic}`;
        const other = readers.get(key);
        if (other !== undefined) {
          throw new TopologyError(
            `Topic "${topic}" is read by two sources, "${other}" and "${node.name}"; read it once and reuse the stream.`,
          );
        }
        readers.set(key, node.name);
        if (node.internal) repartitionReaders.add(topic);
      }
      continue;
    }
    if (node.parents.length === 0) throw new TopologyError(`Node "${node.name}" has no parent; connect it to a source or processor.`);
    for (const parentName of node.parents) {
      const parent = byName.get(parentName);
      if (!parent) throw new TopologyError(`Node "${node.name}" names an unknown parent "${parentName}".`);
      if (parent.kind === "sink") {
        throw new TopologyError(`Node "${node.name}" cannot follow sink "${parentName}": sinks have no children.`);
      }
    }
    if (node.kind === "processor") {
      for (const store of node.stores) {
        if (!stores.has(store)) {
          throw new TopologyError(
            `Processor "${node.name}" uses state store "${store}", which was never added; add it with builder.addStateStore(..) first.`,
          );
        }
      }
    } else if (node.internal && node.topic !== null) {
      repartitionWriters.add(node.topic);
    }
  }

  for (const topic of repartitionTopics.keys()) {
    if (!repartitionWriters.has(topic) || !repartitionReaders.has(topic)) {
      throw new TopologyError(`Repartition topic "${topic}" needs both a sink that writes it and a source that reads it.`);
    }
  }
}

/** Checks on the sub-topologies: a sub-topology may not feed its own input through a topic. */
export function validateSubtopologies(subtopologies: readonly SubTopology[]): void {
  for (const sub of subtopologies) {
    const inputs = new Set(sub.sources.flatMap((s) => s.topics.map((t) => `${s.internal}:${t}`)));
    for (const sink of sub.sinks) {
      // A foreign-key join of a table with itself (or with a table of its own sub-topology)
      // sends subscriptions and responses through topics its own tasks read: not a loop.
      if (sink.internal && sink.topic !== null && /-subscription-(registration|response)-topic$/.test(sink.topic)) continue;
      if (sink.topic !== null && inputs.has(`${sink.internal}:${sink.topic}`)) {
        throw new TopologyError(
          `Sink "${sink.name}" writes to topic "${sink.topic}", which sub-topology ${sub.id} also reads: that is a loop. ` +
            "Write to a different topic, or read it back in a separate stream that is not connected to this one.",
        );
      }
    }
  }
}
