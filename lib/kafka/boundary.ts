/**
 * The shapes every client adapter implements. They are the public members of the kafkajs
 * adapter's classes, taken by type, so both adapters stay in step with one definition: a
 * member added to one and not the other fails the type check of the other.
 */
import type { KafkaAdmin as KafkajsAdmin } from "./admin.ts";
import type { GroupConsumer as KafkajsGroupConsumer } from "./consumer.ts";
import type { KafkaProducer as KafkajsProducer } from "./producer.ts";
import type { TransactionalProducer as KafkajsTransactionalProducer } from "./transactional-producer.ts";

type PublicShape<T> = { [K in keyof T]: T[K] };

/** Topic and group administration. */
export type KafkaAdmin = PublicShape<KafkajsAdmin>;
/** A consumer-group member with per-partition pause/resume, seek and manual commits. */
export type GroupConsumer = PublicShape<KafkajsGroupConsumer>;
/** A plain (non-transactional) producer. */
export type KafkaProducer = PublicShape<KafkajsProducer>;
/** One transactional producer, as a state machine that refuses illegal calls. */
export type TransactionalProducer = PublicShape<KafkajsTransactionalProducer>;

/** The client libraries behind the boundary: kafkajs, or @platformatic/kafka. */
export type KafkaClientName = "kafkajs" | "platformatic";
export const kafkaClientNames: readonly KafkaClientName[] = ["kafkajs", "platformatic"];
