import { describe, expect, it } from "vitest";
import { groupMembershipFromEnv } from "../../../services/group-membership-env.ts";

describe("the services' group-membership variables", () => {
  it("map SLUICE_GROUP_INSTANCE_ID and SESSION_TIMEOUT_MS to the options, and nothing when unset", () => {
    expect(groupMembershipFromEnv({})).toEqual({});
    expect(groupMembershipFromEnv({ SLUICE_GROUP_INSTANCE_ID: "orders-1", SESSION_TIMEOUT_MS: "45000" })).toEqual({ groupInstanceId: "orders-1", sessionTimeoutMs: 45_000 });
  });

  it.each([["45s"], ["-1"], ["4.5"]])("refuses SESSION_TIMEOUT_MS=%s, saying what it must be", (value) => {
    expect(() => groupMembershipFromEnv({ SESSION_TIMEOUT_MS: value })).toThrow(`SESSION_TIMEOUT_MS must be a whole number of milliseconds, e.g. 45000, got "${value}"`);
  });
});
