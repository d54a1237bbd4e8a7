import type { Headers } from "../processor/index.ts";

/** A record as a test writes or reads it. */
export interface TestRecord<K, V> {
  readonly key: K | null;
  readonly value: V | null;
  readonly timestamp: number;
  readonly headers: Headers;
  /** The partition a custom partitioner chose; undefined when the producer would choose. */
  readonly partition?: number | undefined;
}

/** What a test pipes in; missing fields get defaults (timestamp: the driver's wall clock). */
export interface TestInput<K, V> {
  readonly key?: K | null;
  readonly value: V | null;
  readonly timestamp?: number;
  readonly headers?: Headers;
}

/** A record a task sent, still in bytes. */
export interface CapturedRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly timestamp: number;
  readonly headers: Headers;
  readonly partition: number | undefined;
}
