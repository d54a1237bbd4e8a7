/**
 * Sluice's public API: the DSL, serdes, the Processor API, stores, errors and the app.
 * Everything else under lib/ is internal and may change without notice; the test driver
 * is the separate entry `sluice/testing`.
 *
 * @example
 *   import { StreamsBuilder, Consumed, Serdes, StreamsApp } from "sluice";
 *
 * @module sluice
 */

// DSL
export {
  Branched,
  BranchedKStream,
  CogroupedKStream,
  Consumed,
  GlobalKTable,
  Grouped,
  Joined,
  JoinWindows,
  KGroupedStream,
  KGroupedTable,
  KStream,
  KTable,
  Materialized,
  Named,
  Produced,
  Repartitioned,
  StreamJoined,
  StreamsBuilder,
  TableJoined,
  type LoggedStoreBuilder,
} from "./dsl/index.ts";

// Event time and windows (docs/windows.md)
export {
  BufferConfig,
  SessionWindowedKStream,
  Suppressed,
  TimeWindowedKStream,
  TimestampExtractors,
  type MissingTime,
  type TimeValue,
} from "./dsl/index.ts";
export {
  EmitStrategy,
  LATE_RECORD_HEADERS,
  SessionWindows,
  SlidingWindows,
  TimeWindows,
  WindowedMetrics,
  WindowedSerdes,
  type EmitStrategyType,
  type WindowedOperatorMetrics,
} from "./processor/index.ts";

// Topology
export {
  Topology,
  type ConsumedRecord,
  type OffsetReset,
  type StoreSpec,
  type StreamPartitioner,
  type TimestampExtractor,
  type TopicNameExtractor,
  type TopologyDescription,
} from "./topology/index.ts";

// Serdes
export { SerdeError, Serdes, serdeFrom, type Serde, type SerdeFunctions } from "./serdes/index.ts";

// Processor API
export {
  IDEMPOTENCY_KEY_HEADER,
  StreamRecord,
  dedupeId,
  idempotencyKey,
  withIdempotencyKey,
  type BaseProcessorContext,
  type Cancellable,
  type FixedKeyProcessor,
  type FixedKeyProcessorContext,
  type FixedKeyProcessorSupplier,
  type FixedKeyRecord,
  type Headers,
  type KeyValuePair,
  type Processor,
  type ProcessorContext,
  type ProcessorSupplier,
  type PunctuationType,
  type Punctuator,
  type RecordContext,
  type RecordMetadata,
} from "./processor/index.ts";

// Errors and exception handlers
export {
  CommitUncertainError,
  ConfigError,
  DEAD_LETTER_HEADERS,
  FatalError,
  FencedError,
  PoisonRecordError,
  RetriableError,
  SluiceError,
  TopologyError,
  type DeadLetterRecord,
  type ErrorLogger,
  type ExceptionHandler,
  type ExceptionHandlerConfig,
  type FailedRecord,
  type FailureContext,
  type FailureKind,
  type HandlerResponse,
  type HandlerSetting,
  type RecoveryAction,
} from "./errors/index.ts";

// State stores (the state layer's public part)
export {
  Stores,
  type KeyValue,
  type KeyValueStore,
  type ReadOnlyKeyValueStore,
  type ReadOnlySessionStore,
  type ReadOnlyWindowStore,
  type SessionStore,
  type StateStore,
  type ValueAndTimestamp,
  type Window,
  type WindowStore,
  type Windowed,
} from "./state/index.ts";

// Logging: pass your own Logger in the config to route Sluice's lines into your logs
export type { LogLevel, Logger } from "./observability/index.ts";

// Metrics (OpenTelemetry) and the instance's HTTP server: see docs/observability.md
export { METRICS, json, type InstanceStatus, type MetricDefinition, type MetricKind, type MetricsRecordingLevel, type RouteHandler, type Router } from "./observability/index.ts";

// Consumer-group lag (what an autoscaler reads; services/autoscaler)
export { readGroupLag, type GroupLag, type GroupLagConnection, type KafkaClientName, type PartitionLag } from "./kafka/index.ts";

// Running an application
export {
  StreamsApp,
  type AppState,
  type ExactlyOnceProducers,
  type ProcessingGuarantee,
  type StateListener,
  type StreamsConfig,
  type UncaughtExceptionHandler,
  type UncaughtExceptionResponse,
} from "./runtime/index.ts";

// Interactive queries: metadata, the HTTP endpoint's client (docs/api.md, "Interactive queries")
export {
  StoreQueryClient,
  StoreQueryError,
  type HostInfo,
  type KeyQueryMetadata,
  type QueryableStoreType,
  type SessionRead,
  type StoreQueryClientOptions,
  type StreamsMetadata,
  type WindowRead,
} from "./runtime/index.ts";
