import type { PipeStep, Step } from "./exchange.ts";
import { seededRandom } from "../../../lib/testing/seeded-random.ts";

/** Seeded, so every run (and both drivers) gets the same input. */
export const prng = seededRandom;

export function pipe(topic: string, key: string | null, value: string | null, timestamp: number, headers?: Record<string, string>): PipeStep {
  return headers ? { topic, key, value, timestamp, headers } : { topic, key, value, timestamp };
}

export function advance(ms: number): Step {
  return { advanceMs: ms };
}

export interface EventOptions {
  readonly seed: number;
  readonly topic: string;
  readonly count: number;
  readonly keys: readonly string[];
  /** Mean distance in ms between consecutive records' event times. */
  readonly stepMs: number;
  /** Each record's time is moved back by up to this much (out-of-order records). */
  readonly jitterMs?: number;
  /** About this share of records are stragglers, up to `lateByMs` behind stream time. */
  readonly lateShare?: number;
  readonly lateByMs?: number;
  /** Shares of records with a null key / a null value (tombstone). */
  readonly nullKeyShare?: number;
  readonly nullValueShare?: number;
  /** The value of record i; default a small number in decimal, so sums and parses work. */
  readonly value?: (i: number, random: () => number) => string;
  readonly startMs?: number;
  /** Give record i the headers {seq: "<topic>-<i>"}, to see which input record's headers an output carries. */
  readonly headers?: boolean;
}

/** Seeded out-of-order keyed events with stragglers, null keys and tombstones as asked. */
export function events(options: EventOptions): PipeStep[] {
  const random = prng(options.seed);
  const out: PipeStep[] = [];
  let clock = options.startMs ?? 0;
  let maxSeen = clock;
  for (let i = 0; i < options.count; i++) {
    clock += Math.floor(random() * 2 * options.stepMs);
    let time = clock - Math.floor(random() * (options.jitterMs ?? 0));
    if (options.lateShare && random() < options.lateShare) time = maxSeen - Math.floor(random() * (options.lateByMs ?? options.stepMs * 4));
    time = Math.max(0, time);
    maxSeen = Math.max(maxSeen, time);
    const key = options.nullKeyShare && random() < options.nullKeyShare ? null : options.keys[Math.floor(random() * options.keys.length)]!;
    const value = options.nullValueShare && random() < options.nullValueShare ? null : (options.value ?? ((_, r) => String(1 + Math.floor(r() * 9))))(i, random);
    out.push(pipe(options.topic, key, value, time, options.headers ? { seq: `${options.topic}-${i}` } : undefined));
  }
  return out;
}

/** Steps of several generators merged by a seeded shuffle that keeps each one's own order. */
export function interleave(seed: number, ...sources: readonly (readonly Step[])[]): Step[] {
  const random = prng(seed);
  const cursors = sources.map(() => 0);
  const out: Step[] = [];
  for (;;) {
    const open = sources.map((s, i) => i).filter((i) => cursors[i]! < sources[i]!.length);
    if (open.length === 0) return out;
    const pick = open[Math.floor(random() * open.length)]!;
    out.push(sources[pick]![cursors[pick]!++]!);
  }
}
