/** lib/kafka: the only module that talks to the Kafka client library. */
export { createKafkaClient, type KafkaClient } from "./client.ts";
export { KafkaAdmin } from "./admin.ts";
export { GroupConsumer, type GroupConsumerHandlers, type GroupConsumerOptions } from "./consumer.ts";
export { KafkaProducer, type ProducerOptions } from "./producer.ts";
export { TransactionalProducer, type TransactionState, type TransactionalProducerOptions } from "./transactional-producer.ts";
export { checkConnection, redactConnection, type KafkaConnection } from "./config.ts";
export { translateError } from "./errors.ts";
export { invalidGroupInstanceId } from "./static-membership.ts";
export { readGroupLag, type GroupLag, type GroupLagConnection, type PartitionLag } from "./group-lag.ts";
export type { BoundedRange, PartitionBounds, ReadRange } from "./changelog-reader.ts";
export type * from "./types.ts";
