import type { Processor, ProcessorContext } from "../api.ts";
import type { KeyValuePair, StreamRecord } from "../record.ts";

/** flatMap: zero or more new records per record, forwarded in the order the mapper yields them. */
export class FlatMapProcessor<K, V, KR, VR> implements Processor<K, V, KR, VR> {
  private context!: ProcessorContext<KR, VR>;
  private readonly mapper: (key: K, value: V) => Iterable<KeyValuePair<KR, VR>>;

  constructor(mapper: (key: K, value: V) => Iterable<KeyValuePair<KR, VR>>) {
    this.mapper = mapper;
  }

  init(context: ProcessorContext<KR, VR>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    for (const [key, value] of this.mapper(record.key, record.value)) {
      this.context.forward(record.withKeyValue(key, value));
    }
  }
}

/** flatMapValues: zero or more new values per record, each with the record's key. */
export class FlatMapValuesProcessor<K, V, VR> implements Processor<K, V, K, VR> {
  private context!: ProcessorContext<K, VR>;
  private readonly mapper: (value: V, key: K) => Iterable<VR>;

  constructor(mapper: (value: V, key: K) => Iterable<VR>) {
    this.mapper = mapper;
  }

  init(context: ProcessorContext<K, VR>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    for (const value of this.mapper(record.value, record.key)) {
      this.context.forward(record.withValue(value));
    }
  }
}
