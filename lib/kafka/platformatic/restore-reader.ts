import type { Consumer } from "@platformatic/kafka";
import { platformatic, EARLIEST, LATEST, READ_COMMITTED, READ_UNCOMMITTED } from "./library.ts";
import type { Logger } from "../../observability/index.ts";
import type { BoundedRange, PartitionBounds } from "../changelog-reader.ts";
import type { KafkaConnection } from "../config.ts";
import type { FetchedRecord, TopicPartition } from "../types.ts";
import { guard } from "./errors.ts";
import { LeaderFetcher } from "./fetcher.ts";
import { baseOptions } from "./options.ts";
import { decodePartition } from "./records.ts";

// Fetch answers as soon as there is data; only a partition at its end would wait this long.
const FETCH_WAIT_MS = 100;
const PARTITION_FETCH_BYTES = 4 * 1_048_576;
// A fetch that brings nothing for a partition below its end, while no other partition of
// the read brought anything either, can only mean the rest holds batches emptied by
// compaction; after this many such rounds in a row the rest is empty. While others bring
// records an empty answer means nothing: the broker fills a response up to its size limit
// partition by partition, and those after the limit get no records that round.
const EMPTY_FETCHES_BEFORE_GIVING_UP = 3;

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
    const positions = new Map<string, { range: BoundedRange; position: number; empty: number; starved: boolean }>();
    for (const range of ranges) if (range.from < range.to) positions.set(`${range.topic}:${range.partition}`, { range, position: range.from, empty: 0, starved: false });
    while (positions.size > 0) {
      // Those left without records last round ask first, so no partition starves behind others.
      const pending = [...positions.values()].sort((a, b) => Number(b.starved) - Number(a.starved));
      const what = `fetch ${[...new Set(pending.map((p) => p.range.topic))].join(", ")}`;
      const answers = await guard(what, () => this.#fetcher.fetch(pending.map((p) => ({ topic: p.range.topic, partition: p.range.partition, offset: p.position })), readCommitted));
      const advanced = new Set<string>();
      for (const answer of answers) {
        const key = `${answer.topic}:${answer.partition}`;
        const state = positions.get(key);
        if (!state || state.position !== answer.offset) continue;
        const { records, nextOffset } = decodePartition(answer.topic, answer.data, state.position, readCommitted);
        if (nextOffset === null || nextOffset <= state.position) continue;
        advanced.add(key);
        state.empty = 0;
        state.starved = false;
        const within = records.filter((r) => r.offset < state.range.to);
        if (within.length > 0) onRecords(state.range, within);
        state.position = nextOffset;
        if (state.position >= state.range.to) positions.delete(key);
      }
      const emptied = pending.filter((state) => !advanced.has(`${state.range.topic}:${state.range.partition}`));
      for (const state of emptied) state.starved = true;
      if (advanced.size > 0) continue;
      for (const state of emptied) {
        // A partition an answer leaves out had nothing new (fetch sessions omit those); below
        // its end that lasts only while a leader moves, so only a long silence ends the range.
        const answered = answers.some((a) => a.topic === state.range.topic && a.partition === state.range.partition);
        if (++state.empty < EMPTY_FETCHES_BEFORE_GIVING_UP * (answered ? 1 : 30)) continue;
        this.#logger.debug("nothing more to read below the end", { topic: state.range.topic, partition: state.range.partition, position: state.position, end: state.range.to });
        positions.delete(`${state.range.topic}:${state.range.partition}`);
      }
    }
  }

  async close(): Promise<void> {
    await this.#consumer.close(true).catch(() => undefined);
  }
}
