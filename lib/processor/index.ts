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
export type { FixedKeyRecord, Headers, KeyValue, RecordContext, RecordMetadata } from "./record.ts";
