import type { ExceptionHandler } from "../errors/index.ts";
import type { GroupConsumer, GroupMetadata, KafkaProducer, TopicPartition, TopicPartitionOffset } from "../kafka/index.ts";
import type { Logger, StreamsTracing } from "../observability/index.ts";
import type { EngineTask } from "./engine-task.ts";
import { faultPoint } from "./fault-points.ts";
import { sendWithProductionHandler } from "./production-failures.ts";
import { SendsInFlight } from "./sends-in-flight.ts";

/** What one commit achieved: the input offsets committed, and the tasks whose own commit failed. */
export interface CommitOutcome {
  committed: TopicPartitionOffset[];
  /** Tasks that committed nothing, each with a non-fatal error of its own (its producer fenced, its transaction failed); they were rewound. */
  failed: Array<{ taskId: string; error: Error }>;
}

/** Makes a commit interval durable for a set of tasks. */
export interface Committer {
  /** Prepares a newly assigned task, or one recovering (exactly-once: fences the previous owner, or its own failed producer). */
  prepare(task: { id: string }): Promise<void>;
  /**
   * Commits the tasks. Throws when the commit failed for the instance as a whole (the
   * group's offsets, a fatal error); a failure of one task's own commit is in `failed`.
   */
  commit(tasks: EngineTask[]): Promise<CommitOutcome>;
  /**
   * Starts sending the output buffered so far without flushing caches or committing, where
   * output may leave before its commit (at-least-once): it then waits `lingerMs`, not a
   * commit interval. Processing goes on while it is acknowledged; `commit` waits for it,
   * and a send that failed fails the next call. `waitForSends`: a task whose send is in
   * flight waits for it and then sends the rest (bounded output) instead of keeping it.
   */
  sendOutput?(tasks: EngineTask[], options?: { waitForSends: boolean }): Promise<void>;
  release(taskId: string): Promise<void>;
  /**
   * Throws away output that was sent but belongs to no commit yet, where output leaves
   * inside an open transaction (exactly-once): aborts it, before the tasks rewind to their
   * committed offsets or an assignment changes them. Never throws.
   */
  abandon?(): Promise<void>;
  /**
   * Whether starting positions must wait out offsets pending in another member's open
   * transaction (true where no transactional id per task fences the previous owner first).
   */
  readonly requiresStableOffsets?: boolean;
  /** A new assignment arrived, before its tasks are prepared; `member`: the generation it belongs to, where the client tells it. */
  afterAssignment?(partitions: TopicPartition[], member: GroupMetadata | null): Promise<void>;
  close(): Promise<void>;
}

/**
 * At-least-once: output (and changelog records) are flushed and acknowledged before the
 * input offsets are committed, so a crash can repeat records but never lose them.
 *
 * Between commits output is sent as it becomes due and processing goes on while it is
 * acknowledged (waiting stalled the loop for a round trip per send). One send per task is
 * in flight at a time, so a task's output stays in order and what waits for acknowledgement
 * is bounded; a commit waits for it. Local state commits only with the offsets, so the
 * changelog ends that acknowledgements report are kept until then (SendsInFlight).
 */
export class AtLeastOnceCommitter implements Committer {
  readonly #producer: KafkaProducer;
  readonly #consumer: GroupConsumer;
  readonly #productionHandler: ExceptionHandler;
  readonly #tracing: StreamsTracing | undefined;
  // Records handed to the producer so far: what a commit span reports it sent.
  #sentRecords = 0;
  readonly #logger: Logger | null;
  // Offsets whose records' output is acknowledged but whose commit failed (a rebalance
  // under way): committed again, for the partitions this member keeps, once it has its
  // new assignment, so their tasks do not repeat what was already delivered.
  readonly #flushedNotCommitted = new Map<string, TopicPartitionOffset>();
  readonly #sends = new SendsInFlight();

  constructor(producer: KafkaProducer, consumer: GroupConsumer, productionHandler: ExceptionHandler, tracing?: StreamsTracing, logger: Logger | null = null) {
    this.#producer = producer;
    this.#consumer = consumer;
    this.#productionHandler = productionHandler;
    this.#tracing = tracing;
    this.#logger = logger;
  }

  // A task (re)starting from its committed offsets: what an earlier incarnation sent is not its to acknowledge.
  async prepare(task: { id: string }): Promise<void> {
    this.#sends.forget(task.id);
  }

  async #flushOutput(tasks: EngineTask[]): Promise<void> {
    for (const task of tasks) task.prepareCommit();
    for (const task of tasks) await this.#sendAfterPrevious(task);
    for (const task of tasks) {
      await this.#sends.settle(task.id);
      const ends = this.#sends.takeAcknowledged(task.id);
      if (ends !== undefined) task.outputFlushed(ends);
    }
  }

  // A task whose previous send is still unacknowledged keeps its output until it is: it then
  // leaves in one batch, as a producer with one request in flight batches.
  async sendOutput(tasks: EngineTask[], options?: { waitForSends: boolean }): Promise<void> {
    const wait = options?.waitForSends === true;
    for (const task of tasks) {
      if (task.output.size > 0 && (wait || !this.#sends.busy(task.id))) await this.#sendAfterPrevious(task);
    }
  }

  /** Waits for the task's send in flight (its failure is thrown here), then sends what the task holds. */
  async #sendAfterPrevious(task: EngineTask): Promise<void> {
    await this.#sends.settle(task.id);
    const records = task.output.drain();
    if (records.length === 0) return;
    this.#sentRecords += records.length;
    this.#sends.start(task.id, sendWithProductionHandler(this.#producer, task.id, records, this.#productionHandler));
  }

  // One span for the whole commit: the offsets of all tasks go in one request.
  // The input offsets of all tasks go to the group in one request: it fails for all of them.
  async commit(tasks: EngineTask[]): Promise<CommitOutcome> {
    if (!this.#tracing) return { committed: await this.#commit(tasks), failed: [] };
    const before = this.#sentRecords;
    const committed = await this.#tracing.commit(tasks.map((t) => t.id), () => this.#commit(tasks), () => this.#sentRecords - before);
    return { committed, failed: [] };
  }

  async #commit(tasks: EngineTask[]): Promise<TopicPartitionOffset[]> {
    await this.#flushOutput(tasks);
    faultPoint("alos.after-flush");
    const offsets = tasks.map((t) => t.committableOffsets());
    try {
      await this.#consumer.commit(offsets.flat());
    } catch (error) {
      for (const o of offsets.flat()) this.#flushedNotCommitted.set(`${o.topic}:${o.partition}`, o);
      throw error;
    }
    for (const o of offsets.flat()) this.#flushedNotCommitted.delete(`${o.topic}:${o.partition}`);
    tasks.forEach((task, i) => task.offsetsCommitted(offsets[i]!));
    return offsets.flat();
  }

  async afterAssignment(partitions: TopicPartition[]): Promise<void> {
    if (this.#flushedNotCommitted.size === 0) return;
    const kept = new Set(partitions.map((tp) => `${tp.topic}:${tp.partition}`));
    // Partitions that moved are another member's now: their offsets are not ours to commit.
    for (const key of [...this.#flushedNotCommitted.keys()]) if (!kept.has(key)) this.#flushedNotCommitted.delete(key);
    const offsets = [...this.#flushedNotCommitted.values()];
    try {
      await this.#consumer.commit(offsets);
      this.#flushedNotCommitted.clear();
      this.#logger?.info("committed the offsets of delivered output that the rebalance interrupted", { partitions: offsets.length });
    } catch (error) {
      // An assignment already outdated (another rebalance): tried again with the next one.
      this.#logger?.warn("committing the offsets the rebalance interrupted failed; trying again after the next assignment", { error: (error as Error).message });
    }
  }

  async release(taskId: string): Promise<void> {
    this.#sends.forget(taskId);
  }

  async close(): Promise<void> {
    // Sends still in flight (a final commit that failed) end before the producer does.
    await this.#sends.drained();
    await this.#producer.disconnect();
  }
}
