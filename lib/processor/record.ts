/** Record headers. Values are bytes, or strings that travel as UTF-8. */
export type Headers = Readonly<Record<string, Buffer | string>>;

export const NO_HEADERS: Headers = Object.freeze({});

/** A key and a value as a tuple, as `map` and `flatMap` return them: `[key, value]`. */
export type KeyValuePair<K, V> = readonly [key: K, value: V];

/**
 * One record flowing through the processors. Immutable: the `with*` helpers return a new
 * record and leave this one alone, so a processor may forward one record to several
 * children safely.
 *
 * @example
 *   ctx.forward(record.withValue(record.value.toUpperCase()));
 */
export class StreamRecord<K, V> {
  readonly key: K;
  readonly value: V;
  /** Milliseconds since the epoch; the record's event time. */
  readonly timestamp: number;
  readonly headers: Headers;

  constructor(key: K, value: V, timestamp: number, headers: Headers = NO_HEADERS) {
    this.key = key;
    this.value = value;
    this.timestamp = timestamp;
    this.headers = headers;
  }

  withKey<KR>(key: KR): StreamRecord<KR, V> {
    return new StreamRecord(key, this.value, this.timestamp, this.headers);
  }

  withValue<VR>(value: VR): StreamRecord<K, VR> {
    return new StreamRecord(this.key, value, this.timestamp, this.headers);
  }

  /** Both at once, one allocation instead of two. */
  withKeyValue<KR, VR>(key: KR, value: VR): StreamRecord<KR, VR> {
    return new StreamRecord(key, value, this.timestamp, this.headers);
  }

  withTimestamp(timestamp: number): StreamRecord<K, V> {
    return new StreamRecord(this.key, this.value, timestamp, this.headers);
  }

  withHeaders(headers: Headers): StreamRecord<K, V> {
    return new StreamRecord(this.key, this.value, this.timestamp, headers);
  }
}

/**
 * The record a {@link FixedKeyProcessor} receives and forwards: like StreamRecord but with
 * no way to change the key, which is why `processValues` never needs a repartition.
 * (A StreamRecord satisfies it, so nothing is copied.)
 */
export interface FixedKeyRecord<K, V> {
  readonly key: K;
  readonly value: V;
  readonly timestamp: number;
  readonly headers: Headers;
  withValue<VR>(value: VR): FixedKeyRecord<K, VR>;
  withTimestamp(timestamp: number): FixedKeyRecord<K, V>;
  withHeaders(headers: Headers): FixedKeyRecord<K, V>;
}

/** Where the record being processed came from. */
export interface RecordMetadata {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/** What a topic-name extractor sees about the record being routed. */
export interface RecordContext extends RecordMetadata {
  readonly timestamp: number;
  readonly headers: Headers;
}
