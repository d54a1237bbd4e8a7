/** lib/kafka: the only module that talks to the Kafka client libraries (kafkajs, @platformatic/kafka). */
export { createKafkaClient, type KafkaClient } from "./client.ts";
export type { GroupConsumer, KafkaAdmin, KafkaClientName, KafkaProducer, TransactionalProducer } from "./boundary.ts";
export { kafkaClientNames } from "./boundary.ts";
export type { GroupConsumerHandlers, GroupConsumerOptions } from "./consumer.ts";
export type { ProducerOptions } from "./producer.ts";
export type { TransactionState, TransactionalProducerOptions } from "./transactional-producer.ts";
export { checkConnection, redactConnection, resolveKafkaClient, type KafkaConnection } from "./config.ts";
export { refusesRecords, translateError } from "./errors.ts";
export { invalidGroupInstanceId } from "./static-membership.ts";
export { readGroupLag, type GroupLag, type GroupLagConnection, type PartitionLag } from "./group-lag.ts";
export type { BoundedRange, PartitionBounds, ReadRange } from "./changelog-reader.ts";
export type * from "./types.ts";
export { partitionKey } from "./partition-key.ts";
