import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../../lib/errors/index.ts";
import { resolveConfig } from "../../../../lib/runtime/config.ts";

const base = { applicationId: "app", bootstrapServers: "localhost:9092" };

describe("assignment settings", () => {
  it("default to Kafka Streams' values", () => {
    const config = resolveConfig(base);
    expect(config.numStandbyReplicas).toBe(0);
    expect(config.acceptableRecoveryLag).toBe(10_000);
    expect(config.maxWarmupReplicas).toBe(2);
    expect(config.probingRebalanceIntervalMs).toBe(600_000);
  });

  it("refuse bad values, naming the setting and what it accepts", () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ numStandbyReplicas: -1 }, /numStandbyReplicas must be a whole number >= 0 .*got -1/],
      [{ numStandbyReplicas: 1.5 }, /numStandbyReplicas must be a whole number/],
      [{ acceptableRecoveryLag: "10" }, /acceptableRecoveryLag must be a whole number >= 0 .*got "10"/],
      [{ maxWarmupReplicas: 0 }, /maxWarmupReplicas must be a whole number >= 1 .*never move/],
      [{ probingRebalanceIntervalMs: 0 }, /probingRebalanceIntervalMs must be a whole number >= 1/],
    ];
    for (const [extra, message] of cases) {
      expect(() => resolveConfig({ ...base, ...extra })).toThrow(ConfigError);
      expect(() => resolveConfig({ ...base, ...extra })).toThrow(message);
    }
  });
});
