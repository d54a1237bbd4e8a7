import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";

/** Forwards the records for which `predicate` equals `keep` (filter: true, filterNot: false). */
export class FilterProcessor<K, V> implements Processor<K, V, K, V> {
  private context!: ProcessorContext<K, V>;
  private readonly predicate: (key: K, value: V) => boolean;
  private readonly keep: boolean;

  constructor(predicate: (key: K, value: V) => boolean, keep: boolean) {
    this.predicate = predicate;
    this.keep = keep;
  }

  init(context: ProcessorContext<K, V>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    const verdict = this.predicate(record.key, record.value);
    if (typeof verdict !== "boolean") refuseAsync(verdict, "A filter predicate");
    if (Boolean(verdict) === this.keep) this.context.forward(record);
  }
}
