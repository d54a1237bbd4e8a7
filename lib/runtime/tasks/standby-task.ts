import { FatalError } from "../../errors/index.ts";
import type { BoundedRange, KafkaClient } from "../../kafka/index.ts";
import type { Logger } from "../../observability/index.ts";
import type { StateDirectory } from "../../state/index.ts";
import type { Topology } from "../../topology/index.ts";
import { readsCommitted, type ResolvedConfig } from "../config.ts";
import { TaskStores } from "../task-stores.ts";

export interface StandbyEnvironment {
  topology: Topology;
  config: ResolvedConfig;
  logger: Logger;
  stateDirectory: StateDirectory;
  client: KafkaClient;
  /** Pause between two looks at the changelog ends once caught up. Default 200 ms. */
  idleMs?: number;
}

// Thrown from the record callback to stop a read in progress when the task closes.
class Closing extends Error {}

/**
 * A standby replica (or warm-up) of a stateful task: the task's stores, in the same
 * directory an active task of it would use, kept current by tailing their changelogs
 * through the instance's restore reader. It never processes input and never writes a
 * changelog. Every applied batch commits with its checkpoint, so a crash loses nothing
 * it applied, and the active task that may follow it here restores only the rest.
 * Under exactly-once it reads committed records only, like a restore.
 */
export class StandbyTask {
  readonly id: string;
  readonly #stores: TaskStores;
  readonly #environment: StandbyEnvironment;
  readonly #readCommitted: boolean;
  readonly #loop: Promise<void>;
  #closed = false;
  #wake: (() => void) | null = null;
  /** Changelog records applied since it opened. */
  appliedRecords = 0;

  constructor(environment: StandbyEnvironment, taskId: string) {
    const { topology, config } = environment;
    const [subtopologyId, partition] = taskId.split("_").map(Number) as [number, number];
    const subtopology = topology.subtopologies.find((s) => s.id === subtopologyId);
    if (!subtopology) throw new FatalError(`standby task ${taskId} names sub-topology ${subtopologyId}, which this topology does not have`);
    this.id = taskId;
    this.#environment = environment;
    this.#readCommitted = readsCommitted(config);
    this.#stores = new TaskStores({
      taskId,
      applicationId: config.applicationId,
      database: environment.stateDirectory.openTask(taskId),
      specs: subtopology.stores,
      partition,
      send: () => {
        throw new FatalError(`standby task ${taskId} tried to write a changelog record; standbys only read`);
      },
      recordTimestamp: () => -1,
      cacheMaxBytes: 0,
    });
    this.#loop = this.#follow();
  }

  /** A store of this replica, as current as its last applied batch. */
  store(name: string): unknown {
    return this.#stores.get(name);
  }

  /** The next changelog offset of every store, summed: the subscription reports it as this task's progress. */
  offsetSum(): number {
    const logged = new Set(this.#stores.changelogPartitions().map((tp) => tp.topic));
    return this.#stores.database.readCheckpoints().filter((c) => logged.has(c.topic)).reduce((sum, c) => sum + c.offset + 1, 0);
  }

  /** Stops following (a read in progress ends at its next batch) and closes the stores; their checkpoints are already written. */
  async close(): Promise<void> {
    if (this.#closed) return this.#loop;
    this.#closed = true;
    this.#wake?.();
    await this.#loop;
    this.#stores.close();
  }

  async #follow(): Promise<void> {
    const { client, logger } = this.#environment;
    const idleMs = this.#environment.idleMs ?? 200;
    let failures = 0;
    while (!this.#closed) {
      let read = 0;
      try {
        const bounds = await client.partitionBounds(this.#stores.changelogPartitions(), this.#readCommitted);
        if (this.#closed) break;
        const ranges = this.#stores.planRestore(bounds, this.#readCommitted, (store, reason) =>
          logger.warn("wiping a standby's state store to rebuild it from its changelog's start", { task: this.id, store, reason }),
        );
        if (ranges.some((r) => r.from < r.to)) {
          await client.readRanges(ranges, (range, records) => this.#apply(range, records.length, () => this.#stores.restore(range, records)), this.#readCommitted);
          read = 1;
        }
        failures = 0;
      } catch (error) {
        if (error instanceof Closing) break;
        failures = Math.min(failures + 1, 6);
        logger.warn("standby task could not read its changelogs; trying again", { task: this.id, error: (error as Error).message });
      }
      if (read === 0 || failures > 0) await this.#pause(failures > 0 ? 200 * 2 ** failures : idleMs);
    }
  }

  #apply(range: BoundedRange, count: number, apply: () => void): void {
    if (this.#closed) throw new Closing(`standby ${this.id} closed while reading ${range.topic}-${range.partition}`);
    apply();
    this.appliedRecords += count;
  }

  #pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}

/** The task manager's createStandby(): a standby of `taskId` that starts following at once. */
export function createStandbyTask(environment: StandbyEnvironment, taskId: string): StandbyTask {
  return new StandbyTask(environment, taskId);
}
