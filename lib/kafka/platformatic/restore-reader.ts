import type { Consumer } from "@platformatic/kafka";
import { platformatic, EARLIEST, LATEST, READ_COMMITTED, READ_UNCOMMITTED } from "./library.ts";
import type { Logger } from "../../observability/index.ts";
import type { BoundedRange, PartitionBounds } from "../changelog-reader.ts";
import type { KafkaConnection } from "../config.ts";
import type { FetchedRecord, TopicPartition } from "../types.ts";
import { guard } from "./errors.ts";
import { LeaderFetcher } from "./fetcher.ts";
import { RangeProgress, type RangeState } from "../range-progress.ts";
import { baseOptions } from "./options.ts";
import { decodePartition } from "./records.ts";

// Fetch answers as soon as there is data; only a partition at its end would wait this long.
const FETCH_WAIT_MS = 100;
const PARTITION_FETCH_BYTES = 4 * 1_048_576;
// Rounds without records from any partition after which one still below its end is taken as
// read: the rest of its log holds batches emptied by compaction (range-progress.ts).
const EMPTY_ROUNDS_BEFORE_GIVING_UP = 3;

/**
 * Reads partitions by offset without a consumer group (changelogs, global topics): a
 * Consumer that never joins its group, used only for ListOffsets and Fetch, so a read
 * costs no group join. Reads may run side by side; each keeps its own positions.
 */
export class RestoreReader {
  readonly #consumer: Consumer;
  readonly #logger: Logger;
  readonly #fetcher: LeaderFetcher;

  constructor(connection: KafkaConnection, logger: Logger) {
    // The group id is never joined: the client requires one for every Consumer.
    this.#consumer = new (platformatic().Consumer)({ ...baseOptions(connection, "-restore"), groupId: `${connection.clientId}-restore-reader` });
    this.#logger = logger;
    this.#fetcher = new LeaderFetcher(this.#consumer, { maxWaitMs: FETCH_WAIT_MS, partitionMaxBytes: PARTITION_FETCH_BYTES });
  }

  async bounds(partitions: readonly TopicPartition[], readCommitted: boolean): Promise<Map<string, PartitionBounds>> {
    const result = new Map<string, PartitionBounds>();
    if (partitions.length === 0) return result;
    const byTopic: Record<string, number[]> = {};
    for (const p of partitions) (byTopic[p.topic] ??= []).push(p.partition);
    const topics = Object.keys(byTopic);
    const ask = (timestamp: bigint, committed: boolean) =>
      this.#consumer.listOffsets({
        topics,
        partitions: byTopic,
        timestamp,
        isolationLevel: committed ? READ_COMMITTED : READ_UNCOMMITTED,
      });
    const [starts, ends, highs] = await guard(`list offsets of ${topics.join(", ")}`, () =>
      Promise.all([ask(EARLIEST, false), ask(LATEST, readCommitted), readCommitted ? ask(LATEST, false) : null]),
    );
    for (const p of partitions) {
      const end = Number(ends.get(p.topic)?.[p.partition] ?? 0n);
      const start = Number(starts.get(p.topic)?.[p.partition] ?? 0n);
      const high = highs ? Number(highs.get(p.topic)?.[p.partition] ?? BigInt(end)) : end;
      result.set(`${p.topic}:${p.partition}`, { start, end, highWatermark: high });
    }
    return result;
  }

  /**
   * Reads every range from `from` up to `to`, each partition's records in offset order
   * (under read_committed without aborted records and markers). Progress is by fetch
   * position, so a range ending in a transaction marker ends too. An error thrown by
   * `onRecords` stops the reading and rejects with it.
   */
  async read(ranges: readonly BoundedRange[], onRecords: (range: BoundedRange, records: FetchedRecord[]) => void, readCommitted: boolean): Promise<void> {
    const progress = new RangeProgress(ranges);
    while (!progress.done) {
      const asked = progress.round();
      const what = `fetch ${[...new Set(asked.map((p) => p.range.topic))].join(", ")}`;
      const answers = await guard(what, () => this.#fetcher.fetch(asked.map((p) => ({ topic: p.range.topic, partition: p.range.partition, offset: p.position })), readCommitted));
      for (const answer of answers) {
        const state = progress.get(answer.topic, answer.partition);
        if (!state || state.position !== answer.offset) continue;
        const { records, nextOffset } = decodePartition(answer.topic, answer.data, state.position, readCommitted);
        if (nextOffset === null || nextOffset <= state.position) continue;
        const within = records.filter((r) => r.offset < state.range.to);
        if (within.length > 0) onRecords(state.range, within);
        progress.advance(state, nextOffset);
      }
      // A partition an answer leaves out had nothing new (fetch sessions omit those); below
      // its end that lasts only while a leader moves, so only a long silence ends the range.
      const answered = (state: RangeState) => answers.some((a) => a.topic === state.range.topic && a.partition === state.range.partition);
      progress.endRound(asked, (state) => EMPTY_ROUNDS_BEFORE_GIVING_UP * (answered(state) ? 1 : 30), (state) =>
        this.#logger.debug("nothing more to read below the end", { topic: state.range.topic, partition: state.range.partition, position: state.position, end: state.range.to }),
      );
    }
  }

  async close(): Promise<void> {
    await this.#consumer.close(true).catch(() => undefined);
  }
}
