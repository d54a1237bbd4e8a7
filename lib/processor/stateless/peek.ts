import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";
import { refuseAsync } from "../synchronous.ts";

/**
 * peek (forwards the record unchanged) and foreach (terminal, forwards nothing). The
 * action's side effects are outside any processing guarantee: on a retry they repeat.
 */
export class PeekProcessor<K, V> implements Processor<K, V, K, V> {
  private context!: ProcessorContext<K, V>;
  private readonly action: (key: K, value: V) => void;
  private readonly forwards: boolean;

  constructor(action: (key: K, value: V) => void, forwards: boolean) {
    this.action = action;
    this.forwards = forwards;
  }

  init(context: ProcessorContext<K, V>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    const result: unknown = this.action(record.key, record.value);
    if (result !== undefined) refuseAsync(result, this.forwards ? "A peek action" : "A foreach action");
    if (this.forwards) this.context.forward(record);
  }
}

/** merge and branch children: forward everything unchanged. */
export class PassThroughProcessor<K, V> implements Processor<K, V, K, V> {
  private context!: ProcessorContext<K, V>;

  init(context: ProcessorContext<K, V>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    this.context.forward(record);
  }
}
