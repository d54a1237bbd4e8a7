import type { RecordQueue } from "./record-queue.ts";

/** "ready": every partition has data or is not waited for; "enforced": ready after giving up waiting for an empty one. */
export type Readiness = "ready" | "enforced" | "waiting";

/**
 * Whether a task may pick its next record now (Kafka Streams' max.task.idle.ms, as in its
 * PartitionGroup): a partition with nothing buffered holds the task back while it may
 * still have records on the broker (lag unknown or positive); once it is known to be
 * caught up, for `maxTaskIdleMs` of wall-clock time more, after which the others are
 * processed without it ("enforced"). -1 never waits. Without this, a join whose input is
 * all on the broker would process whichever side the client happened to fetch first.
 */
export function readiness(queues: readonly RecordQueue[], maxTaskIdleMs: number, clock: () => number): Readiness {
  if (maxTaskIdleMs < 0 || queues.length < 2) return "ready";
  let buffered = false;
  let enforced = false;
  let now: number | undefined;
  for (const queue of queues) {
    if (queue.size > 0) {
      queue.idleDeadline = -1;
      buffered = true;
      continue;
    }
    if (queue.lag !== 0) {
      queue.idleDeadline = -1;
      return "waiting";
    }
    now ??= clock();
    if (queue.idleDeadline < 0) queue.idleDeadline = now + maxTaskIdleMs;
    if (now < queue.idleDeadline) return "waiting";
    enforced = true;
  }
  if (!enforced) return "ready";
  return buffered ? "enforced" : "waiting";
}
