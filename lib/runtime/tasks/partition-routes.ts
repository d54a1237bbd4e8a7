import { partitionKey, type GroupConsumer, type TopicPartition, type TopicPartitionOffset } from "../../kafka/index.ts";
import type { EngineTask } from "../engine-task.ts";

/**
 * Which running task reads each fetched partition, and which partitions are paused. A
 * partition without a route is paused and its fetched records are ignored: its task is
 * not running (yet), and it is sought to the task's own position when it is.
 */
export class PartitionRoutes {
  readonly #consumer: GroupConsumer;
  readonly #routes = new Map<string, EngineTask>();
  readonly #paused = new Set<string>();

  constructor(consumer: GroupConsumer) {
    this.#consumer = consumer;
  }

  taskFor(key: string): EngineTask | undefined {
    return this.#routes.get(key);
  }

  get pausedCount(): number {
    return this.#paused.size;
  }

  /** Stops fetching these partitions and forgets every route (a new assignment is coming). */
  detachAll(assigned: readonly TopicPartition[]): void {
    this.pause(assigned);
    this.#routes.clear();
  }

  /** Stops routing and fetching the task's partitions. */
  detach(task: EngineTask): void {
    this.pause(task.partitions);
    for (const tp of task.partitions) if (this.#routes.get(partitionKey(tp)) === task) this.#routes.delete(partitionKey(tp));
  }

  /** Moves the fetch positions to where the task reads on, routes its partitions to it and fetches them again. */
  attach(task: EngineTask, positions: readonly TopicPartitionOffset[]): void {
    for (const position of positions) this.#consumer.seek(position);
    for (const tp of task.partitions) this.#routes.set(partitionKey(tp), task);
    this.resume(task.partitions);
  }

  pause(partitions: readonly TopicPartition[]): void {
    if (partitions.length === 0) return;
    this.#consumer.pause([...partitions]);
    for (const tp of partitions) this.#paused.add(partitionKey(tp));
  }

  /** Backpressure: a running task's partition whose buffer is full, fetched again by `resumeDrained`. */
  pauseUntilDrained(tp: TopicPartition): void {
    this.#consumer.pause([tp], { untilDrained: true });
    this.#paused.add(partitionKey(tp));
  }

  isPaused(key: string): boolean {
    return this.#paused.has(key);
  }

  resume(partitions: readonly TopicPartition[]): void {
    if (partitions.length === 0) return;
    for (const tp of partitions) this.#paused.delete(partitionKey(tp));
    this.#consumer.resume([...partitions]);
  }

  /** Backpressure: partitions of running tasks whose buffer drained to half are fetched again. */
  resumeDrained(maxBuffered: number): void {
    if (this.#paused.size === 0) return;
    const resume: TopicPartition[] = [];
    for (const key of this.#paused) {
      const task = this.#routes.get(key);
      if (!task) continue;
      const tp = task.partitions.find((p) => partitionKey(p) === key)!;
      if (task.buffered(tp) <= maxBuffered / 2) resume.push(tp);
    }
    this.resume(resume);
  }
}
