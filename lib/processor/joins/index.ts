// The processors behind the DSL's joins: for the DSL layer, not re-exported by lib/index.ts.
export { StreamStreamJoinProcessor, type StreamStreamJoinSpec } from "./stream-stream-join.ts";
export { PendingRecords, type JoinSerializer, type JoinSide, type PendingRecord } from "./pending-records.ts";
export { StreamTableJoinProcessor, type StreamTableJoinSpec } from "./stream-table-join.ts";
export {
  TableJoinMergeProcessor,
  TableTableJoinProcessor,
  joinRows,
  joinedValueGetter,
  type TableJoinKind,
  type TableTableJoinSpec,
} from "./table-table-join.ts";
export {
  ForeignTableChangeProcessor,
  SubscriptionReceiveProcessor,
  SubscriptionResolveProcessor,
  SubscriptionSendProcessor,
  resolveForeignKeyJoin,
  type ForeignKeyJoinResult,
  type ForeignKeyJoinSpec,
} from "./foreign-key-join.ts";
export { responseSerde, subscriptionSerde, valueHash, type Subscription, type SubscriptionResponse } from "./fk-wire.ts";
export { ForeignKeyOutputProcessor, foreignKeyResultGetter, type ForeignKeyOutputSpec } from "./fk-output.ts";
