import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../lib/index.ts";
import { configFromEnv } from "../../../services/autoscaler/config.ts";

const base = { KAFKA_BOOTSTRAP_SERVERS: "kafka:9092", APPLICATION_ID: "orders", AUTOSCALER_STATEFULSET: "orders", POD_NAMESPACE: "streams", AUTOSCALER_MAX_REPLICAS: "6" };

describe("autoscaler configuration from the environment", () => {
  it("fills the defaults around the required variables", () => {
    expect(configFromEnv(base)).toEqual({
      connection: { bootstrapServers: "kafka:9092", clientId: "sluice-autoscaler" },
      groupId: "orders",
      topics: undefined,
      namespace: "streams",
      statefulSet: "orders",
      policy: { targetLagPerReplica: 1000, minReplicas: 1, maxReplicas: 6, tolerance: 0.1, scaleDownStabilizationMs: 600_000 },
      pollIntervalMs: 30_000,
      dryRun: false,
    });
  });

  it("reads every setting, SASL and TLS files included", () => {
    const dir = mkdtempSync(join(tmpdir(), "autoscaler-tls-"));
    writeFileSync(join(dir, "ca.crt"), "CA");
    const config = configFromEnv({
      ...base,
      AUTOSCALER_NAMESPACE: "other",
      AUTOSCALER_TOPICS: "orders, orders-repartition",
      AUTOSCALER_TARGET_LAG: "250",
      AUTOSCALER_MIN_REPLICAS: "0",
      AUTOSCALER_TOLERANCE: "0",
      AUTOSCALER_SCALE_DOWN_STABILIZATION_SECONDS: "120",
      AUTOSCALER_POLL_INTERVAL_SECONDS: "15",
      AUTOSCALER_DRY_RUN: "true",
      SLUICE_SASL_MECHANISM: "scram-sha-512",
      SLUICE_SASL_USERNAME: "app",
      SLUICE_SASL_PASSWORD: "secret",
      SLUICE_TLS: "true",
      SLUICE_TLS_CA_FILE: join(dir, "ca.crt"),
    });
    expect(config).toMatchObject({
      namespace: "other",
      topics: ["orders", "orders-repartition"],
      policy: { targetLagPerReplica: 250, minReplicas: 0, maxReplicas: 6, tolerance: 0, scaleDownStabilizationMs: 120_000 },
      pollIntervalMs: 15_000,
      dryRun: true,
      connection: { sasl: { mechanism: "scram-sha-512", username: "app", password: "secret" }, ssl: { ca: Buffer.from("CA") } },
    });
  });

  it.each([
    [{ KAFKA_BOOTSTRAP_SERVERS: "" }, "KAFKA_BOOTSTRAP_SERVERS is not set"],
    [{ AUTOSCALER_STATEFULSET: undefined }, "AUTOSCALER_STATEFULSET is not set"],
    [{ POD_NAMESPACE: undefined }, "AUTOSCALER_NAMESPACE is not set"],
    [{ AUTOSCALER_MAX_REPLICAS: undefined }, "AUTOSCALER_MAX_REPLICAS is not set"],
    [{ AUTOSCALER_MAX_REPLICAS: "2.5" }, 'AUTOSCALER_MAX_REPLICAS="2.5" is invalid'],
    [{ AUTOSCALER_MIN_REPLICAS: "7" }, "AUTOSCALER_MIN_REPLICAS (7) exceeds AUTOSCALER_MAX_REPLICAS (6)"],
    [{ AUTOSCALER_TARGET_LAG: "0" }, 'AUTOSCALER_TARGET_LAG="0" is invalid'],
    [{ AUTOSCALER_TOLERANCE: "1" }, 'AUTOSCALER_TOLERANCE="1" is invalid'],
    [{ AUTOSCALER_DRY_RUN: "yes" }, 'AUTOSCALER_DRY_RUN="yes" is invalid: give true or false'],
    [{ SLUICE_SASL_MECHANISM: "gssapi" }, 'SLUICE_SASL_MECHANISM="gssapi" is not supported'],
    [{ SLUICE_SASL_MECHANISM: "plain", SLUICE_SASL_USERNAME: "app" }, "SLUICE_SASL_USERNAME or SLUICE_SASL_PASSWORD is empty"],
  ])("refuses %o", (change, message) => {
    const env: Record<string, string | undefined> = { ...base, ...change };
    expect(() => configFromEnv(env)).toThrow(ConfigError);
    expect(() => configFromEnv(env)).toThrow(message);
  });
});
