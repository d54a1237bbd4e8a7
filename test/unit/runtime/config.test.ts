import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../lib/errors/index.ts";
import { resolveConfig } from "../../../lib/runtime/config.ts";

const base = { applicationId: "orders", bootstrapServers: "localhost:9092" };

describe("StreamsApp config", () => {
  it("fills defaults that depend on the guarantee", () => {
    expect(resolveConfig(base).commitIntervalMs).toBe(30_000);
    expect(resolveConfig({ ...base, processingGuarantee: "exactly_once" }).commitIntervalMs).toBe(100);
    expect(resolveConfig({ ...base, processingGuarantee: "exactly_once" }).exactlyOnceProducers).toBe("thread");
    expect(resolveConfig({ ...base, bootstrapServers: "a:1, b:2" }).bootstrapServers).toEqual(["a:1", "b:2"]);
    expect(resolveConfig(base).maxTaskIdleMs).toBe(0);
    expect(resolveConfig({ ...base, maxTaskIdleMs: -1 }).maxTaskIdleMs).toBe(-1);
    expect(resolveConfig({ ...base, maxTaskIdleMs: 5_000 }).maxTaskIdleMs).toBe(5_000);
    expect(resolveConfig(base).stateCleanupDelayMs).toBe(600_000);
    expect(resolveConfig({ ...base, stateCleanupDelayMs: 0 }).stateCleanupDelayMs).toBe(0);
    expect(resolveConfig(base).maxBufferedRecordsPerPartition).toBe(1_000);
    expect(resolveConfig(base).maxFetchBytesPerPartition).toBe(262_144);
  });

  it.each([
    [{ ...base, applicationId: "" }, /applicationId "" is invalid/],
    [{ ...base, applicationId: "has space" }, /letters, digits/],
    [{ ...base, bootstrapServers: "" }, /bootstrapServers is empty/],
    [{ ...base, bootstrapServers: "localhost" }, /is not "host:port"/],
    [{ ...base, commitIntervalMs: 0 }, /commitIntervalMs must be a positive number of milliseconds/],
    [{ ...base, maxTaskIdleMs: -2 }, /maxTaskIdleMs must be a whole number of milliseconds >= 0, or -1 to never wait/],
    [{ ...base, maxTaskIdleMs: 1.5 }, /maxTaskIdleMs must be a whole number/],
    [{ ...base, processingGuarantee: "twice" as never }, /processingGuarantee "twice" is invalid/],
    [{ ...base, exactlyOnceProducers: "thread_v2" as never }, /exactlyOnceProducers "thread_v2" is invalid: use "thread" .* or "task"/],
    [{ ...base, processingGuarantee: "exactly_once" as const, commitIntervalMs: 20_000 }, /transactionTimeoutMs \(10000\) must be at least commitIntervalMs \(20000\) \+ 1000/],
    [{ ...base, processingGuarantee: "exactly_once" as const, commitIntervalMs: 9_500 }, /transactionTimeoutMs \(10000\) must be at least commitIntervalMs \(9500\) \+ 1000/],
    [{ ...base, uncaughtExceptionHandler: "SHUTDOWN_CLIENT" as never }, /uncaughtExceptionHandler must be a function/],
    [{ ...base, stateCleanupDelayMs: -1 }, /stateCleanupDelayMs must be a number of milliseconds >= 0/],
    [{ ...base, maxFetchBytesPerPartition: 0 }, /maxFetchBytesPerPartition must be a positive number of bytes, got 0/],
    [{ ...base, maxBufferedRecordsPerPartition: -5 }, /maxBufferedRecordsPerPartition must be a positive number of records/],
  ])("rejects %j with a clear error", (config, message) => {
    expect(() => resolveConfig(config)).toThrow(ConfigError);
    expect(() => resolveConfig(config)).toThrow(message);
  });

  it("never puts a SASL password in an error", () => {
    const config = { ...base, sasl: { mechanism: "plain" as const, username: "u", password: "" } };
    expect(() => resolveConfig(config)).toThrow(/needs both username and password/);
    const withSecret = { ...base, bootstrapServers: "bad", sasl: { mechanism: "plain" as const, username: "u", password: "s3cret" } };
    try {
      resolveConfig(withSecret);
    } catch (error) {
      expect(String((error as Error).message)).not.toContain("s3cret");
    }
    expect.assertions(2);
  });
});
