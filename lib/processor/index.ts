export type {
  BaseProcessorContext,
  Cancellable,
  FixedKeyProcessor,
  FixedKeyProcessorContext,
  FixedKeyProcessorSupplier,
  Processor,
  ProcessorContext,
  ProcessorSupplier,
  PunctuationType,
  Punctuator,
} from "./api.ts";
export { NO_HEADERS, StreamRecord } from "./record.ts";
export { refuseAsync } from "./synchronous.ts";
export { IDEMPOTENCY_KEY_HEADER, dedupeId, idempotencyKey, withIdempotencyKey } from "./effects/idempotency.ts";
export type { FixedKeyRecord, Headers, KeyValuePair, RecordContext, RecordMetadata } from "./record.ts";
// The processors behind the stateless DSL operators: for the DSL layer, not re-exported by lib/index.ts.
export { BranchProcessor } from "./stateless/branch.ts";
export { FilterProcessor } from "./stateless/filter.ts";
export { FlatMapProcessor, FlatMapValuesProcessor } from "./stateless/flat-map.ts";
export { MapProcessor, MapValuesProcessor, SelectKeyProcessor } from "./stateless/map.ts";
export { PassThroughProcessor, PeekProcessor } from "./stateless/peek.ts";
// The processors behind joins (stream-stream, stream-table, table-table, foreign-key).
export * from "./joins/index.ts";
// The processors behind the stateful DSL operators (KTable, aggregations), and the pieces
// windowed aggregations and joins build on: Change, TableForwarder, value getters.
export { change, type Change } from "./stateful/change.ts";
export { recordSkipped, setSkippedRecordLogger } from "./stateful/skipped-records.ts";
export { TableForwarder, type TableStore } from "./stateful/table-forwarder.ts";
export { StreamAggregateProcessor, streamAggregations } from "./stateful/stream-aggregate.ts";
export { TableSourceProcessor } from "./stateful/table-source.ts";
export { TableFilterProcessor, TableMapValuesProcessor, TableToStreamProcessor } from "./stateful/table-operators.ts";
export {
  TableAggregateProcessor,
  TableRepartitionMapProcessor,
  tableAggregations,
  type TableAggregation,
} from "./stateful/table-aggregate.ts";
export {
  derivedValueGetter,
  storeValueGetter,
  type TableValueGetter,
  type TableValueGetterSupplier,
} from "./stateful/value-getter.ts";
// Windows, windowed aggregations, emit-on-close buffers and suppression.
export * from "./windowed/index.ts";
