import type { BaseOptions } from "@platformatic/kafka";
import type { KafkaConnection } from "../config.ts";

/** The client's base options from the boundary's connection settings. */
export function baseOptions(connection: KafkaConnection, clientIdSuffix = ""): BaseOptions {
  const options: BaseOptions = {
    clientId: connection.clientId + clientIdSuffix,
    bootstrapBrokers: connection.brokers,
    connectTimeout: connection.connectionTimeoutMs ?? 3_000,
    timeout: connection.requestTimeoutMs ?? 30_000,
    requestTimeout: connection.requestTimeoutMs ?? 30_000,
    // The same budget as the kafkajs adapter: bounded, so a commit cycle that runs out is
    // rewound or aborted by the engine instead of hanging.
    retries: connection.retries ?? 8,
    retryDelay: 250,
    autocreateTopics: false,
  };
  const ssl = connection.ssl;
  if (ssl === true) options.tls = {};
  else if (ssl && typeof ssl === "object") options.tls = { ...ssl };
  const sasl = connection.sasl;
  if (sasl) {
    const mechanism = ({ plain: "PLAIN", "scram-sha-256": "SCRAM-SHA-256", "scram-sha-512": "SCRAM-SHA-512" } as const)[sasl.mechanism];
    options.sasl = { mechanism, username: sasl.username, password: sasl.password };
  }
  return options;
}
