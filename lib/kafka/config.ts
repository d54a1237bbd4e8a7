import { ConfigError } from "../errors/index.ts";
import { kafkaClientNames, type KafkaClientName } from "./boundary.ts";

/** Connection settings passed through to the client; TLS and SASL are optional. */
export interface KafkaConnection {
  brokers: string[];
  clientId: string;
  ssl?: boolean | { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer; rejectUnauthorized?: boolean };
  sasl?: { mechanism: "plain" | "scram-sha-256" | "scram-sha-512"; username: string; password: string };
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Retries of a failed request or connection before it fails (default 8, ~34 s in all); tools that should fail fast lower it. */
  retries?: number;
  /** The client library behind the boundary; default: SLUICE_KAFKA_CLIENT, else "kafkajs". */
  client?: KafkaClientName;
}

/**
 * The client library to use, checked: `requested` (the app's kafkaClient setting), else
 * the SLUICE_KAFKA_CLIENT environment variable (how the test suites pick one), else kafkajs.
 */
export function resolveKafkaClient(requested: unknown): KafkaClientName {
  const fromEnvironment = process.env.SLUICE_KAFKA_CLIENT;
  const [name, source] = requested !== undefined ? [requested, "kafkaClient"] : fromEnvironment ? [fromEnvironment, "SLUICE_KAFKA_CLIENT"] : ["kafkajs", "kafkaClient"];
  if (typeof name !== "string" || !(kafkaClientNames as readonly string[]).includes(name)) {
    throw new ConfigError(`${source} ${JSON.stringify(name)} is not a Kafka client Sluice has: use ${kafkaClientNames.map((n) => JSON.stringify(n)).join(" or ")}`);
  }
  return name as KafkaClientName;
}

const hostPort = /^[^\s:]+:\d{1,5}$/;

/** Checks a connection and throws a ConfigError naming the bad setting (never its secret). */
export function checkConnection(connection: KafkaConnection): void {
  if (!Array.isArray(connection.brokers) || connection.brokers.length === 0) {
    throw new ConfigError('bootstrapServers is empty: give at least one "host:port", e.g. "localhost:9092"');
  }
  for (const broker of connection.brokers) {
    if (typeof broker !== "string" || !hostPort.test(broker)) {
      throw new ConfigError(`bootstrapServers entry ${JSON.stringify(broker)} is not "host:port", e.g. "localhost:9092"`);
    }
  }
  resolveKafkaClient(connection.client);
  const sasl = connection.sasl;
  if (sasl) {
    if (!["plain", "scram-sha-256", "scram-sha-512"].includes(sasl.mechanism)) {
      throw new ConfigError(`sasl.mechanism ${JSON.stringify(sasl.mechanism)} is not supported: use plain, scram-sha-256 or scram-sha-512`);
    }
    if (!sasl.username || !sasl.password) throw new ConfigError("sasl needs both username and password");
  }
}

/** A copy fit for logs and error messages: secrets replaced by "[redacted]". */
export function redactConnection(connection: KafkaConnection): Record<string, unknown> {
  const { sasl, ssl, ...rest } = connection;
  return {
    ...rest,
    ssl: ssl === undefined ? undefined : Boolean(ssl),
    sasl: sasl ? { mechanism: sasl.mechanism, username: sasl.username, password: "[redacted]" } : undefined,
  };
}
