import type { Processor, ProcessorContext } from "../api.ts";
import type { StreamRecord } from "../record.ts";

/**
 * split(): each record goes to the child of the first predicate it matches, else to the
 * default child, else nowhere. Predicates after the first match are not evaluated.
 */
export class BranchProcessor<K, V> implements Processor<K, V, K, V> {
  private context!: ProcessorContext<K, V>;
  private readonly predicates: ReadonlyArray<(key: K, value: V) => boolean>;
  private readonly childNames: readonly string[];
  private readonly defaultChild: string | null;

  constructor(
    predicates: ReadonlyArray<(key: K, value: V) => boolean>,
    childNames: readonly string[],
    defaultChild: string | null,
  ) {
    this.predicates = predicates;
    this.childNames = childNames;
    this.defaultChild = defaultChild;
  }

  init(context: ProcessorContext<K, V>): void {
    this.context = context;
  }

  process(record: StreamRecord<K, V>): void {
    for (let i = 0; i < this.predicates.length; i++) {
      if (this.predicates[i]!(record.key, record.value)) {
        this.context.forward(record, this.childNames[i]);
        return;
      }
    }
    if (this.defaultChild !== null) this.context.forward(record, this.defaultChild);
  }
}
