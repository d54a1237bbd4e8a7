/** What startKafka() says when it cannot run a broker: each way that failed, and its fix. */
import { describe, expect, it } from "vitest";
import { startKafka } from "../../../lib/testing/index.ts";
import { loadTestcontainers } from "../../../lib/testing/broker/container-broker.ts";

describe("startKafka errors", () => {
  it("names both ways and what each lacks when neither can run a broker", async () => {
    // With an engine (the testcontainers tier) the image cannot be pulled; without one there
    // is no engine. Either way the container is out, and the jars folder does not exist.
    const attempt = startKafka({ image: "127.0.0.1:9/sluice/no-such-kafka:1", jars: "/nonexistent/kafka-jars", log: () => undefined });
    const error = await attempt.then(() => null, (e: unknown) => e as Error);
    expect(error?.message).toMatch(/^startKafka found no way to run a Kafka broker\.\n- In a container: .+\n- On the local JVM: /);
    expect(error?.message).toContain("/nonexistent/kafka-jars does not exist");
    expect(error?.message).toContain("SLUICE_BROKER_LIBS");
  });

  it("rejects an unknown provider", async () => {
    // @ts-expect-error: a JavaScript caller can pass anything.
    await expect(startKafka({ provider: "docker" })).rejects.toThrow('provider must be "testcontainers" or "local-jvm"');
  });

  it("says how to install testcontainers when it is missing", async () => {
    await expect(loadTestcontainers("testcontainers-that-is-not-installed")).rejects.toThrow(
      "npm install --save-dev testcontainers-that-is-not-installed",
    );
  });
});
