import { TopologyError } from "../errors/index.ts";
import type { Processor, ProcessorSupplier } from "../processor/index.ts";
import { changelogTopicSpec, repartitionTopicSpec, type InternalTopicSpec } from "./internal-topics.ts";
import { copartitionTopicGroups, type GlobalStoreSpec } from "./joins.ts";
import { NameGenerator, topicNameProblem } from "./naming.ts";
import type { ProcessorNode, SinkNode, SourceNode, StoreSpec, TopologyNode } from "./nodes.ts";
import { splitIntoSubtopologies } from "./split.ts";
import { Topology } from "./topology.ts";
import { validateGraph, validateSubtopologies } from "./validate.ts";

/**
 * Collects the logical graph as the DSL (or a user of the low-level API) adds nodes, then
 * checks it and cuts it into sub-topologies on `build()`. Names are checked as they are
 * added so the error points at the call that caused it.
 */
export class TopologyBuilder {
  readonly names = new NameGenerator();
  private readonly nodes = new Map<string, TopologyNode>();
  private readonly stores = new Map<string, StoreSpec>();
  private readonly repartitionTopics = new Map<string, InternalTopicSpec>();
  private readonly globalStores = new Map<string, GlobalStoreSpec>();
  private readonly copartitionNodeGroups: string[][] = [];

  addSource(source: Omit<SourceNode, "kind">): void {
    for (const topic of source.topics) checkTopic(topic, `source "${source.name}"`);
    this.add({ kind: "source", ...source });
  }

  addProcessor(
    name: string,
    // `never` inputs accept a processor of any input types; the graph cannot check them.
    supplier: () => Processor<never, never, unknown, unknown>,
    parents: readonly string[],
    options: { stores?: readonly string[]; keyChanging?: boolean } = {},
  ): void {
    const node: ProcessorNode = {
      kind: "processor",
      name,
      parents: [...parents],
      supplier: supplier as ProcessorSupplier<unknown, unknown, unknown, unknown>,
      stores: [...(options.stores ?? [])],
      keyChanging: options.keyChanging ?? false,
    };
    this.add(node);
  }

  addSink(sink: Omit<SinkNode, "kind">): void {
    if (sink.topic !== null) checkTopic(sink.topic, `sink "${sink.name}"`);
    this.add({ kind: "sink", ...sink, parents: [...sink.parents] });
  }

  /** Registers a store; processors name it in `addProcessor(.., { stores })` to use it. */
  addStateStore(store: StoreSpec): void {
    if (this.stores.has(store.name)) {
      throw new TopologyError(`State store "${store.name}" is already added; give each store a unique name.`);
    }
    this.stores.set(store.name, store);
  }

  /** Declares a repartition topic (name without application id, ending in -repartition). */
  addRepartitionTopic(name: string, numberOfPartitions: number | null): void {
    checkTopic(name, "repartition()");
    if (this.repartitionTopics.has(name)) {
      throw new TopologyError(`Repartition topic "${name}" is already used; give each repartition a unique name.`);
    }
    this.repartitionTopics.set(name, repartitionTopicSpec(name, numberOfPartitions));
  }

  /** A store every task can read (a GlobalKTable's), filled from `spec.topic`; in no sub-topology. */
  addGlobalStore(spec: GlobalStoreSpec): void {
    checkTopic(spec.topic, `global store "${spec.storeName}"`);
    if (this.stores.has(spec.storeName) || this.globalStores.has(spec.storeName)) {
      throw new TopologyError(`State store "${spec.storeName}" is already added; give each store a unique name.`);
    }
    this.globalStores.set(spec.storeName, spec);
  }

  /** The inputs of these nodes (join inputs) must be co-partitioned: their source topics form one group. */
  copartition(nodeNames: readonly string[]): void {
    this.copartitionNodeGroups.push([...nodeNames]);
  }

  /** Whether a node name is taken, so the DSL can report a clash with the user's own name. */
  hasNode(name: string): boolean {
    return this.nodes.has(name);
  }

  build(): Topology {
    const nodes = [...this.nodes.values()];
    const globals = [...this.globalStores.values()];
    validateGraph(nodes, new Map([...this.stores, ...globals.map((g) => [g.storeName, g.storeSpec] as const)]), this.repartitionTopics);
    const subtopologies = splitIntoSubtopologies(nodes, this.stores, new Set(this.globalStores.keys()));
    validateSubtopologies(subtopologies);
    const changelogs = [...this.stores.values()].filter((s) => s.changelog).map((s) => changelogTopicSpec(s.name, s.changelogConfig));
    return new Topology(subtopologies, [...this.repartitionTopics.values(), ...changelogs], [...this.stores.values()], {
      globalStores: globals,
      copartitionGroups: copartitionTopicGroups(nodes, this.copartitionNodeGroups),
    });
  }

  private add(node: TopologyNode): void {
    if (node.name.length === 0) throw new TopologyError("A processor name must not be empty.");
    if (this.nodes.has(node.name)) {
      throw new TopologyError(
        `Processor name "${node.name}" is used twice; names must be unique within a topology (check your Named.as(..) calls).`,
      );
    }
    this.nodes.set(node.name, node);
  }
}

function checkTopic(topic: string, user: string): void {
  const problem = topicNameProblem(topic);
  if (problem !== null) throw new TopologyError(`Topic name "${topic}" of ${user} is not valid: ${problem}.`);
}
