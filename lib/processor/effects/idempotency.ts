import type { FixedKeyProcessor, FixedKeyProcessorContext, FixedKeyProcessorSupplier } from "../api.ts";
import type { FixedKeyRecord, RecordMetadata } from "../record.ts";

/** The header `withIdempotencyKey()` writes: the key an external write should be deduplicated by. */
export const IDEMPOTENCY_KEY_HEADER = "sluice.idempotency.key";

/**
 * A key that names one input record for good: `<topic>/<partition>/<offset>`. Reprocessing
 * the record (after a crash, a rebalance, an at-least-once retry) yields the same key, so an
 * external system that refuses a second write with the same key applies the effect once.
 * `suffix` tells several effects of one record apart.
 *
 * @example
 *   // in a processor (or foreach via process): one row per input record, written once
 *   const id = idempotencyKey(ctx.recordMetadata()!, "ledger");
 *   outbox.push({ id, amount });   // later: INSERT ... ON CONFLICT (id) DO NOTHING
 */
export function idempotencyKey(origin: RecordMetadata, suffix?: string): string {
  if (origin.offset < 0) throw new Error(`idempotencyKey needs a record read from a topic; ${origin.topic} gave offset ${origin.offset}`);
  const base = `${origin.topic}/${origin.partition}/${origin.offset}`;
  return suffix === undefined ? base : `${base}/${suffix}`;
}

/**
 * A dedupe id from business fields (an order id, a payment reference) for effects whose
 * natural identity is not the input position, e.g. when the same order arrives twice.
 * Parts are length-prefixed so ("ab","c") and ("a","bc") differ.
 */
export function dedupeId(...parts: (string | number | bigint)[]): string {
  return parts.map((p) => `${String(p).length}:${String(p)}`).join("|");
}

/**
 * `stream.processValues(withIdempotencyKey())` stamps each record with the
 * `sluice.idempotency.key` header (its input position), so a topic that feeds an external
 * system (an outbox) carries, on every record, the key its consumer deduplicates by. With
 * exactly-once the outbox holds each record once; its consumer is at-least-once, and the
 * key makes its writes idempotent.
 */
export function withIdempotencyKey<K, V>(suffix?: string): FixedKeyProcessorSupplier<K, V, V> {
  return () => new StampIdempotencyKey<K, V>(suffix);
}

class StampIdempotencyKey<K, V> implements FixedKeyProcessor<K, V, V> {
  #context!: FixedKeyProcessorContext<K, V>;
  readonly #suffix: string | undefined;

  constructor(suffix: string | undefined) {
    this.#suffix = suffix;
  }

  init(context: FixedKeyProcessorContext<K, V>): void {
    this.#context = context;
  }

  process(record: FixedKeyRecord<K, V>): void {
    const origin = this.#context.recordMetadata();
    if (origin === null) {
      this.#context.forward(record);
      return;
    }
    const key = idempotencyKey(origin, this.#suffix);
    this.#context.forward(record.withHeaders({ ...record.headers, [IDEMPOTENCY_KEY_HEADER]: key }));
  }
}
