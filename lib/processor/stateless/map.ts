import type { Processor, ProcessorContext } from "../api.ts";
import type { KeyValuePair, StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";

/** map: a new key and value per record. */
export class MapProcessor<K, V, KR, VR> implements Processor<K, V, KR, VR> {
  private context!: ProcessorContext<KR, VR>;
  private readonly mapper: (key: K, value: V) => KeyValuePair<KR, VR>;

  constructor(mapper: (key: K, value: V) => KeyValuePair<KR, VR>) {
    this.mapper = mapper;
  }

  init(context: ProcessorContext<KR, VR>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    const pair = this.mapper(record.key, record.value);
    refuseAsync(pair, "A map mapper");
    this.context.forward(record.withKeyValue(pair[0], pair[1]));
  }
}

/** mapValues: a new value, same key. The mapper also sees the key (read-only). */
export class MapValuesProcessor<K, V, VR> implements Processor<K, V, K, VR> {
  private context!: ProcessorContext<K, VR>;
  private readonly mapper: (value: V, key: K) => VR;

  constructor(mapper: (value: V, key: K) => VR) {
    this.mapper = mapper;
  }

  init(context: ProcessorContext<K, VR>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    const value = this.mapper(record.value, record.key);
    refuseAsync(value, "A mapValues mapper");
    this.context.forward(record.withValue(value));
  }
}

/** selectKey: a new key, same value. */
export class SelectKeyProcessor<K, V, KR> implements Processor<K, V, KR, V> {
  private context!: ProcessorContext<KR, V>;
  private readonly selector: (key: K, value: V) => KR;

  constructor(selector: (key: K, value: V) => KR) {
    this.selector = selector;
  }

  init(context: ProcessorContext<KR, V>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    this.context.forward(record.withKey(this.selector(record.key, record.value)));
  }
}
