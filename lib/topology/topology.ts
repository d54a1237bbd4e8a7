import { describeAsMermaid, describeAsText } from "./describe.ts";
import type { InternalTopicSpec } from "./internal-topics.ts";
import { copartitionedPartitionCounts, copartitionGroupNames, describeGlobalStores, type CopartitionedTopic, type GlobalStoreSpec } from "./joins.ts";
import type { StoreSpec } from "./nodes.ts";
import type { SubTopology } from "./subtopology.ts";

/**
 * What `StreamsBuilder.build()` returns: the checked graph, cut into sub-topologies at
 * repartition topics, with the internal topics and stores it needs. Immutable; run it with
 * StreamsApp or TopologyTestDriver.
 *
 * @example
 *   const topology = builder.build();
 *   console.log(topology.describe().toString());
 */
export class Topology {
  /** @internal */
  readonly subtopologies: readonly SubTopology[];
  /** @internal Repartition and changelog topics, named without the application id. */
  readonly internalTopics: readonly InternalTopicSpec[];
  readonly stores: readonly StoreSpec[];
  /** @internal GlobalKTable stores: in no sub-topology, filled from their topic on every instance (see GlobalStoreSpec). */
  readonly globalStores: readonly GlobalStoreSpec[];
  /** @internal Groups of source topics that must have equal partition counts (join inputs); internal ones unprefixed. */
  readonly copartitionTopicGroups: readonly (readonly CopartitionedTopic[])[];

  /** @internal Made by StreamsBuilder.build(). */
  constructor(
    subtopologies: readonly SubTopology[],
    internalTopics: readonly InternalTopicSpec[],
    stores: readonly StoreSpec[],
    joins: { globalStores?: readonly GlobalStoreSpec[]; copartitionGroups?: readonly (readonly CopartitionedTopic[])[] } = {},
  ) {
    this.subtopologies = subtopologies;
    this.internalTopics = internalTopics;
    this.stores = stores;
    this.globalStores = joins.globalStores ?? [];
    this.copartitionTopicGroups = joins.copartitionGroups ?? [];
  }

  /**
   * The co-partition groups with run-time topic names (internal ones `<applicationId>-<name>`),
   * as `checkCopartitioned(groups, counts)` takes them.
   */
  copartitionGroups(applicationId: string): string[][] {
    return this.copartitionTopicGroups.map((g) => copartitionGroupNames(g, applicationId));
  }

  /**
   * The partition counts co-partitioning forces on internal topics, given the counts known so
   * far (run-time names); throws a TopologyError naming the topics when user topics that must
   * be co-partitioned differ. See `copartitionedPartitionCounts` and docs/joins.md.
   */
  copartitionedPartitionCounts(applicationId: string, counts: ReadonlyMap<string, number>): Map<string, number> {
    return copartitionedPartitionCounts(this.copartitionTopicGroups, this.internalTopics, applicationId, counts);
  }

  /** Every exact input topic at run time, internal ones prefixed with `applicationId`. */
  sourceTopics(applicationId: string): string[] {
    return this.subtopologies.flatMap((s) => s.sourceTopics(applicationId));
  }

  describe(): TopologyDescription {
    return {
      toString: () => describeAsText(this.subtopologies) + describeGlobalStores(this.globalStores),
      toMermaid: () => describeAsMermaid(this.subtopologies),
    };
  }
}

export interface TopologyDescription {
  /** The Kafka Streams TopologyDescription layout: sub-topologies, nodes, `-->` children, `<--` parents. */
  toString(): string;
  /** A Mermaid flowchart: one subgraph per sub-topology, topics and stores as their own shapes. */
  toMermaid(): string;
}
