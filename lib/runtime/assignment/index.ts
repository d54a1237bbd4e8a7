/** Task assignment: the group protocol (subscription and assignment userData) and the high-availability assignor. */
export { assignHighAvailability, compareTaskIds, type ClientAssignment, type ClientTaskState, type HighAvailabilityAssignment, type HighAvailabilityConfig, type TaskToAssign } from "./high-availability.ts";
export { AssignmentInfoError, decodeAssignment, emptyAssignment, encodeAssignment, parseHostPort, type AssignmentInfo, type ClusterView } from "./assignment-info.ts";
export { decodeSubscription, encodeSubscription, SubscriptionInfoError, type SubscriptionInfo } from "./subscription-info.ts";
export { localOffsetSums } from "./local-state.ts";
export { loadProcessId } from "./process-id.ts";
export { StreamsAssignor, type StreamsAssignorOptions } from "./streams-assignor.ts";
export { GroupMembership, type GroupMembershipDeps } from "./group-membership.ts";
