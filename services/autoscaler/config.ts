/**
 * The autoscaler's settings, all from the environment (the chart sets them; README.md lists
 * them). Every bad value is refused at start with the variable's name and the fix.
 */
import { readFileSync } from "node:fs";
import { ConfigError, type GroupLagConnection } from "../../lib/index.ts";
import type { ScalingPolicy } from "./decide.ts";

export interface AutoscalerConfig {
  connection: GroupLagConnection;
  /** The consumer group: the app's applicationId. */
  groupId: string;
  /** Topics whose lag counts; undefined: every topic the group has committed offsets for. */
  topics: string[] | undefined;
  namespace: string;
  statefulSet: string;
  policy: ScalingPolicy;
  pollIntervalMs: number;
  /** Log decisions without changing the StatefulSet. */
  dryRun: boolean;
}

type Env = Record<string, string | undefined>;

export function configFromEnv(env: Env = process.env): AutoscalerConfig {
  const required = (name: string, example: string): string => {
    const value = env[name]?.trim();
    if (!value) throw new ConfigError(`${name} is not set: give ${example}`);
    return value;
  };
  const number = (name: string, fallback: number, check: (n: number) => boolean, what: string): number => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || !check(value)) throw new ConfigError(`${name}=${JSON.stringify(raw)} is invalid: give ${what}`);
    return value;
  };
  const whole = (n: number) => Number.isInteger(n) && n >= 0;
  const positive = (n: number) => n > 0;

  const minReplicas = number("AUTOSCALER_MIN_REPLICAS", 1, whole, "a whole number >= 0");
  const maxReplicas = number("AUTOSCALER_MAX_REPLICAS", NaN, (n) => Number.isInteger(n) && n >= 1, "a whole number >= 1");
  if (Number.isNaN(maxReplicas)) throw new ConfigError("AUTOSCALER_MAX_REPLICAS is not set: give the most replicas to run, at most the app's task count, e.g. 6");
  if (minReplicas > maxReplicas) throw new ConfigError(`AUTOSCALER_MIN_REPLICAS (${minReplicas}) exceeds AUTOSCALER_MAX_REPLICAS (${maxReplicas}): lower the minimum or raise the maximum`);
  const policy: ScalingPolicy = {
    targetLagPerReplica: number("AUTOSCALER_TARGET_LAG", 1000, positive, "the lag one replica should carry, a number > 0, e.g. 1000"),
    minReplicas,
    maxReplicas,
    tolerance: number("AUTOSCALER_TOLERANCE", 0.1, (n) => n >= 0 && n < 1, "a fraction in [0, 1), e.g. 0.1"),
    scaleDownStabilizationMs: 1000 * number("AUTOSCALER_SCALE_DOWN_STABILIZATION_SECONDS", 600, (n) => n >= 0, "seconds >= 0, e.g. 600"),
  };
  const topics = env["AUTOSCALER_TOPICS"]?.split(",").map((t) => t.trim()).filter(Boolean);
  const dryRun = env["AUTOSCALER_DRY_RUN"]?.trim() ?? "false";
  if (dryRun !== "true" && dryRun !== "false") throw new ConfigError(`AUTOSCALER_DRY_RUN=${JSON.stringify(dryRun)} is invalid: give true or false`);
  const namespace = env["AUTOSCALER_NAMESPACE"]?.trim() || env["POD_NAMESPACE"]?.trim();
  if (!namespace) throw new ConfigError("AUTOSCALER_NAMESPACE is not set (nor POD_NAMESPACE): give the StatefulSet's namespace");

  return {
    connection: connectionFromEnv(env, required("KAFKA_BOOTSTRAP_SERVERS", 'the broker list, e.g. "kafka:9092"')),
    groupId: required("APPLICATION_ID", "the app's applicationId: its consumer group"),
    topics: topics && topics.length > 0 ? topics : undefined,
    namespace,
    statefulSet: required("AUTOSCALER_STATEFULSET", "the name of the app's StatefulSet"),
    policy,
    pollIntervalMs: 1000 * number("AUTOSCALER_POLL_INTERVAL_SECONDS", 30, positive, "seconds > 0, e.g. 30"),
    dryRun: dryRun === "true",
  };
}

/** The chart's SLUICE_SASL_* and SLUICE_TLS_* variables (docs/deploy.md section 1). */
function connectionFromEnv(env: Env, bootstrapServers: string): GroupLagConnection {
  const connection: GroupLagConnection = { bootstrapServers, clientId: "sluice-autoscaler" };
  const mechanism = env["SLUICE_SASL_MECHANISM"];
  if (mechanism) {
    if (mechanism !== "plain" && mechanism !== "scram-sha-256" && mechanism !== "scram-sha-512") {
      throw new ConfigError(`SLUICE_SASL_MECHANISM=${JSON.stringify(mechanism)} is not supported: give plain, scram-sha-256 or scram-sha-512`);
    }
    const username = env["SLUICE_SASL_USERNAME"];
    const password = env["SLUICE_SASL_PASSWORD"];
    if (!username || !password) throw new ConfigError("SLUICE_SASL_MECHANISM is set but SLUICE_SASL_USERNAME or SLUICE_SASL_PASSWORD is empty: give both");
    connection.sasl = { mechanism, username, password };
  }
  if (env["SLUICE_TLS"] === "true") {
    const file = (name: string) => (env[name] ? readFileSync(env[name]!) : undefined);
    const ca = file("SLUICE_TLS_CA_FILE");
    const cert = file("SLUICE_TLS_CERT_FILE");
    const key = file("SLUICE_TLS_KEY_FILE");
    connection.ssl = ca || cert || key ? { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) } : true;
  }
  return connection;
}
