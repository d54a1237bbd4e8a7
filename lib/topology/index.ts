export { TopologyBuilder } from "./builder.ts";
export { Topology } from "./topology.ts";
export type { TopologyDescription } from "./topology.ts";
export { SubTopology } from "./subtopology.ts";
export { NameGenerator, decorateTopic, repartitionTopicName, REPARTITION_SUFFIX, CHANGELOG_SUFFIX } from "./naming.ts";
export { wholeTopicPattern, patternSource, excludingInternalTopics } from "./patterns.ts";
export type { InternalTopicSpec } from "./internal-topics.ts";
export { copartitionedPartitionCounts, type CopartitionedTopic, type GlobalStoreSpec } from "./joins.ts";
export type {
  ConsumedRecord,
  OffsetReset,
  ProcessorNode,
  SinkNode,
  SourceNode,
  StoreSpec,
  StreamPartitioner,
  TimestampExtractor,
  TopicNameExtractor,
  TopologyNode,
} from "./nodes.ts";
