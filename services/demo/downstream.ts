/**
 * Downstream of the fraud service: a second, small Sluice application that reads what the
 * service committed (read_committed, under exactly-once), as any consumer of its output
 * topics would: the alerts, the dead letters and the late payments the velocity windows
 * dropped. Each record is counted once by its (topic, partition, offset), so a re-read
 * after a rewind of this application counts nothing twice.
 */
import { Consumed, DEAD_LETTER_HEADERS, Serdes, StreamsBuilder, type FixedKeyProcessorContext, type FixedKeyRecord, type Topology } from "../../lib/index.ts";
import type { Alert } from "../fraud/model.ts";

export interface DownstreamTopics {
  alerts: string;
  deadLetters: string;
  lateRecords: string;
}

export class Downstream {
  readonly byRule: Record<Alert["rule"], number> = { velocity: 0, "spend-spike": 0, "foreign-after-charge": 0 };
  /** Newest first, at most 8 of each rule, so that the frequent velocity alerts do not hide the rarer ones. */
  recentAlerts: Alert[] = [];
  recentDeadLetters: { partition: number; offset: number; error: string }[] = [];
  readonly #seen = new Map<string, Set<string>>();
  readonly #topics: DownstreamTopics;

  constructor(topics: DownstreamTopics) {
    this.#topics = topics;
    for (const topic of Object.values(topics)) this.#seen.set(topic, new Set());
  }

  get alerts(): number {
    return this.#seen.get(this.#topics.alerts)!.size;
  }
  get deadLetters(): number {
    return this.#seen.get(this.#topics.deadLetters)!.size;
  }
  get lateRecords(): number {
    return this.#seen.get(this.#topics.lateRecords)!.size;
  }

  topology(): Topology {
    const b = new StreamsBuilder();
    b.stream(this.#topics.alerts, Consumed.with(Serdes.string(), Serdes.json<Alert>())).processValues(this.#counting<Alert | null>((alert) => {
      if (alert === null) return;
      this.byRule[alert.rule]++;
      const recent = [alert, ...this.recentAlerts];
      this.recentAlerts = recent.filter((a, i) => recent.slice(0, i).filter((b) => b.rule === a.rule).length < 8);
    }));
    b.stream(this.#topics.deadLetters, Consumed.with(Serdes.bytes(), Serdes.bytes())).processValues(this.#counting<Buffer | null>((_, record) => {
      const header = (name: string) => String(record.headers[name] ?? "");
      const entry = { partition: Number(header(DEAD_LETTER_HEADERS.partition)), offset: Number(header(DEAD_LETTER_HEADERS.offset)), error: header(DEAD_LETTER_HEADERS.message) };
      this.recentDeadLetters = [entry, ...this.recentDeadLetters].slice(0, 5);
    }));
    b.stream(this.#topics.lateRecords, Consumed.with(Serdes.bytes(), Serdes.bytes())).processValues(this.#counting<Buffer | null>(() => undefined));
    return b.build();
  }

  /** A processor that counts each record once and hands new ones to `onNew`. */
  #counting<V>(onNew: (value: V, record: FixedKeyRecord<unknown, V>) => void) {
    return () => {
      let ctx!: FixedKeyProcessorContext<unknown, never>;
      return {
        init: (context: FixedKeyProcessorContext<unknown, never>) => {
          ctx = context;
        },
        process: (record: FixedKeyRecord<unknown, V>) => {
          const meta = ctx.recordMetadata();
          if (meta === null) return;
          const seen = this.#seen.get(meta.topic)!;
          const id = `${meta.partition}:${meta.offset}`;
          if (seen.has(id)) return;
          seen.add(id);
          onNew(record.value, record);
        },
      };
    };
  }
}
