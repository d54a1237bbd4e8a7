export { JoinWindows } from "./join-windows.ts";
export { StreamJoined } from "./stream-joined.ts";
export { Joined, TableJoined } from "./joined.ts";
export { GlobalKTable, GLOBAL_TABLE_STATE, addGlobalTable, type GlobalTableState } from "./global-ktable.ts";
export { joinStreams, repartitionForJoin, type StreamJoinKind } from "./stream-stream.ts";
export { joinStreamGlobal, joinStreamTable } from "./stream-table.ts";
export { joinTables } from "./table-table.ts";
export { joinForeignKey } from "./foreign-key.ts";
export { dispatchStreamJoin, dispatchTableJoin } from "./dispatch.ts";
