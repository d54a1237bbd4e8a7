import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../lib/errors/index.ts";
import { checkConnection } from "../../../lib/kafka/index.ts";
import { connectionOf, resolveConfig } from "../../../lib/runtime/config.ts";

const base = { applicationId: "orders", bootstrapServers: "localhost:9092" };
const saved = process.env.SLUICE_KAFKA_CLIENT;

describe("the kafkaClient setting", () => {
  afterEach(() => {
    if (saved === undefined) delete process.env.SLUICE_KAFKA_CLIENT;
    else process.env.SLUICE_KAFKA_CLIENT = saved;
  });

  it("defaults to kafkajs, follows SLUICE_KAFKA_CLIENT, and the app's setting wins over both", () => {
    delete process.env.SLUICE_KAFKA_CLIENT;
    expect(resolveConfig(base).kafkaClient).toBe("kafkajs");
    process.env.SLUICE_KAFKA_CLIENT = "platformatic";
    expect(resolveConfig(base).kafkaClient).toBe("platformatic");
    expect(resolveConfig({ ...base, kafkaClient: "kafkajs" }).kafkaClient).toBe("kafkajs");
    expect(connectionOf(resolveConfig(base)).client).toBe("platformatic");
  });

  it("refuses a client it does not have, naming the setting and the choices", () => {
    delete process.env.SLUICE_KAFKA_CLIENT;
    expect(() => resolveConfig({ ...base, kafkaClient: "rdkafka" as never })).toThrow(ConfigError);
    expect(() => resolveConfig({ ...base, kafkaClient: "rdkafka" as never })).toThrow(/kafkaClient "rdkafka" is not a Kafka client Sluice has: use "kafkajs" or "platformatic"/);
    process.env.SLUICE_KAFKA_CLIENT = "java";
    expect(() => resolveConfig(base)).toThrow(/SLUICE_KAFKA_CLIENT "java" is not a Kafka client/);
    expect(() => checkConnection({ brokers: ["localhost:9092"], clientId: "tool" })).toThrow(/SLUICE_KAFKA_CLIENT "java"/);
  });
});
