export { StreamTask } from "./stream-task.ts";
export type { BufferedPartition, StreamTaskOptions, TaskMetrics, TaskState } from "./stream-task.ts";
export type { OperatorServices } from "./nodes.ts";
export { taskIdOf } from "./contracts.ts";
export type { RawRecord, RecordCollector, StoreProvider, TopicPartition } from "./contracts.ts";
