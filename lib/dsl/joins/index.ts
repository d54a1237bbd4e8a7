export { JoinWindows } from "./join-windows.ts";
export { StreamJoined } from "./stream-joined.ts";
export { joinStreams, repartitionForJoin, type StreamJoinKind } from "./stream-stream.ts";
