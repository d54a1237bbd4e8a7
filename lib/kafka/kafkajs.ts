// kafkajs is CommonJS and Node's ESM loader cannot see its named exports, so the values
// are taken from the default export once, here.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

// kafkajs 2.2.4 groups a batch's messages by partition by copying the partition's array
// for every message, which is quadratic in the batch size and took most of the CPU of a
// pass-through app. The module is replaced, before kafkajs loads it, by a linear version
// with the same contract: { [partition]: messages in their original order }.
type Message = { partition?: number };
type Partitioner = (args: { topic: string; partitionMetadata: unknown[]; message: Message }) => number;
const groupingModule = require.resolve("kafkajs/src/producer/groupMessagesPerPartition.js");
require.cache[groupingModule] = {
  id: groupingModule,
  filename: groupingModule,
  loaded: true,
  exports: ({ topic, partitionMetadata, messages, partitioner }: { topic: string; partitionMetadata: unknown[]; messages: Message[]; partitioner: Partitioner }) => {
    const grouped: Record<number, Message[]> = {};
    if (partitionMetadata.length === 0) return grouped;
    for (const message of messages) {
      const partition = partitioner({ topic, partitionMetadata, message });
      (grouped[partition] ??= []).push(message);
    }
    return grouped;
  },
} as unknown as NodeJS.Module;

const kafkajs = require("kafkajs") as typeof import("kafkajs");

export const { Kafka, Partitioners, AssignerProtocol, ConfigResourceTypes, logLevel } = kafkajs;
