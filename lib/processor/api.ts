import type { FixedKeyRecord, Headers, RecordMetadata, StreamRecord } from "./record.ts";

/**
 * `stream_time` punctuators fire as records move the task's stream time past their due
 * time, and never without new records. `wall_clock_time` punctuators fire as the system
 * clock passes it, records or not.
 */
export type PunctuationType = "stream_time" | "wall_clock_time";

/** Called with the stream time or wall-clock time (ms) at which it fires. */
export type Punctuator = (timestampMs: number) => void;

export interface Cancellable {
  cancel(): void;
}

/** What every processor may ask of the task running it. */
export interface BaseProcessorContext {
  /** `<subtopology>_<partition>`, e.g. "0_3". */
  readonly taskId: string;
  readonly applicationId: string;
  /**
   * Headers of the record this processor is processing, as it was forwarded to it (after an
   * upstream `withHeaders`, the new ones). For a record a cache flush forwards, the headers
   * of the record whose write made it. Empty inside a punctuator until it forwards.
   */
  readonly headers: Headers;
  /**
   * Topic, partition and offset of the input record being processed; for a record a cache
   * flush forwards, those of the input record whose write made it. Null inside a punctuator.
   */
  recordMetadata(): RecordMetadata | null;
  /**
   * Calls `punctuator` every `intervalMs` of stream time or wall-clock time.
   *
   * @example
   *   init(ctx) { ctx.schedule(10_000, "stream_time", (t) => this.flushOlderThan(t)); }
   */
  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable;
  /** A store this processor declared (`process(supplier, "store-name")`); anything else throws. */
  getStateStore<S = unknown>(name: string): S;
  /** The largest record timestamp this task has seen, or -1 before the first record. */
  currentStreamTimeMs(): number;
  currentSystemTimeMs(): number;
}

export interface ProcessorContext<KOut, VOut> extends BaseProcessorContext {
  /** Sends a record to every child, or only to the child named `childName`. */
  forward<K extends KOut, V extends VOut>(record: StreamRecord<K, V>, childName?: string): void;
}

export interface FixedKeyProcessorContext<K, VOut> extends BaseProcessorContext {
  forward<V extends VOut>(record: FixedKeyRecord<K, V>, childName?: string): void;
}

/**
 * The low-level API every DSL operator compiles to. `process` runs synchronously, once per
 * record, depth-first: whatever it forwards has been fully processed downstream when
 * `forward` returns. It must not return a Promise.
 *
 * @example
 *   class Upper implements Processor<string, string, string, string> {
 *     private ctx!: ProcessorContext<string, string>;
 *     init(ctx: ProcessorContext<string, string>) { this.ctx = ctx; }
 *     process(r: StreamRecord<string, string>) { this.ctx.forward(r.withValue(r.value.toUpperCase())); }
 *   }
 */
export interface Processor<KIn, VIn, KOut, VOut> {
  init?(context: ProcessorContext<KOut, VOut>): void;
  // A property, not a method, so TypeScript checks the input types strictly: a processor
  // written for `Payment` is refused for a stream of `Payment | null`.
  readonly process: (record: StreamRecord<KIn, VIn>) => void;
  close?(): void;
}

/** A processor that cannot change keys, so the stream keeps its partitioning. */
export interface FixedKeyProcessor<K, VIn, VOut> {
  init?(context: FixedKeyProcessorContext<K, VOut>): void;
  readonly process: (record: FixedKeyRecord<K, VIn>) => void;
  close?(): void;
}

/** Each task gets fresh processors: a supplier must return a new instance per call. */
export type ProcessorSupplier<KIn, VIn, KOut, VOut> = () => Processor<KIn, VIn, KOut, VOut>;
export type FixedKeyProcessorSupplier<K, VIn, VOut> = () => FixedKeyProcessor<K, VIn, VOut>;
