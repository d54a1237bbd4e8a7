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
export type { FixedKeyRecord, Headers, KeyValuePair, RecordContext, RecordMetadata } from "./record.ts";
// The processors behind the stateless DSL operators: for the DSL layer, not re-exported by lib/index.ts.
export { BranchProcessor } from "./stateless/branch.ts";
export { FilterProcessor } from "./stateless/filter.ts";
export { FlatMapProcessor, FlatMapValuesProcessor } from "./stateless/flat-map.ts";
export { MapProcessor, MapValuesProcessor, SelectKeyProcessor } from "./stateless/map.ts";
export { PassThroughProcessor, PeekProcessor } from "./stateless/peek.ts";
