/**
 * The group-membership settings every service reads from its environment, as the Helm chart
 * sets them (docs/deploy.md): SLUICE_GROUP_INSTANCE_ID (the pod name, with
 * kafka.staticMembership) -> groupInstanceId, SESSION_TIMEOUT_MS -> sessionTimeoutMs.
 * Unset variables leave the library defaults; StreamsApp checks the values.
 */
export function groupMembershipFromEnv(env: NodeJS.ProcessEnv = process.env): { groupInstanceId?: string; sessionTimeoutMs?: number } {
  const settings: { groupInstanceId?: string; sessionTimeoutMs?: number } = {};
  const instanceId = env["SLUICE_GROUP_INSTANCE_ID"];
  if (instanceId) settings.groupInstanceId = instanceId;
  const timeout = env["SESSION_TIMEOUT_MS"];
  if (timeout) {
    if (!/^\d+$/.test(timeout)) throw new Error(`SESSION_TIMEOUT_MS must be a whole number of milliseconds, e.g. 45000, got ${JSON.stringify(timeout)}`);
    settings.sessionTimeoutMs = Number(timeout);
  }
  return settings;
}
