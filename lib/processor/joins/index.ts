// The processors behind the DSL's joins: for the DSL layer, not re-exported by lib/index.ts.
export { StreamStreamJoinProcessor, type StreamStreamJoinSpec } from "./stream-stream-join.ts";
export { PendingRecords, type JoinSerializer, type JoinSide, type PendingRecord } from "./pending-records.ts";
