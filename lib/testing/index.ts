/**
 * Testing a topology: TopologyTestDriver runs it in-process with no broker (docs/testing.md);
 * startKafka() starts a real throw-away broker; TestKafka creates topics, produces and reads
 * back on it (or any broker).
 *
 * @module sluice/testing
 */
export { TopologyTestDriver } from "./topology-test-driver.ts";
export type { TestStoreContext, TopologyTestDriverOptions } from "./topology-test-driver.ts";
export { TestInputTopic, TestOutputTopic } from "./test-topics.ts";
export type { TestInput, TestRecord } from "./test-record.ts";
export { TestKafka } from "./test-kafka.ts";
export type { FetchedRecord, TestKafkaConnection, TestKafkaReadOptions, TestKafkaRecord, TopicSpec } from "./test-kafka.ts";
export { seededRandom } from "./seeded-random.ts";
export { startKafka } from "./broker/start-kafka.ts";
export type { KafkaProvider, StartedKafka, StartKafkaOptions } from "./broker/start-kafka.ts";
export type { ContainerNetwork, KafkaLine } from "./broker/broker-config.ts";
export type { Headers } from "../kafka/index.ts";
