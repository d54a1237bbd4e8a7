/**
 * TestKafka takes what a StreamsApp takes to connect, so a test can hand it the app's
 * settings (TLS and SASL included), and checks them the same way.
 */
import { describe, expect, it } from "vitest";
import type { StreamsConfig } from "../../../lib/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, uniqueName } from "../support.ts";

describe("TestKafka connection settings", () => {
  it("connects with a StreamsApp's config object as with an address", async () => {
    const config: StreamsConfig = { applicationId: uniqueName("app"), bootstrapServers: [bootstrap()], clientId: uniqueName("client") };
    const topic = uniqueName("connection");
    const byConfig = new TestKafka(config);
    const byAddress = new TestKafka(bootstrap());
    try {
      await byConfig.createTopics([{ name: topic, partitions: 1 }]);
      await byConfig.produce(topic, [{ key: "k", value: "from the config object" }]);
      const [record] = await byAddress.read(topic, { count: 1 });
      expect(String(record?.value)).toBe("from the config object");
    } finally {
      await byConfig.close();
      await byAddress.close();
    }
  });

  it("rejects bad settings with the StreamsApp's messages", () => {
    expect(() => new TestKafka({ bootstrapServers: "localhost" })).toThrow('bootstrapServers entry "localhost" is not "host:port"');
    expect(() => new TestKafka({ bootstrapServers: "", sasl: undefined })).toThrow("bootstrapServers is empty");
    expect(
      () => new TestKafka({ bootstrapServers: "localhost:9092", sasl: { mechanism: "plain", username: "u", password: "" } }),
    ).toThrow("sasl needs both username and password");
  });
});
