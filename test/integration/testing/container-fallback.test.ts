/**
 * startKafka() on a machine whose container engine answers but cannot give it the image:
 * left to choose, it says so in one line and runs the broker on the local JVM instead of
 * failing; told to use a container, it fails naming the image. Runs in the testcontainers
 * tier (SLUICE_TESTCONTAINERS=1), which has an engine; a registry on a closed local port
 * refuses the pull at once, as an unreachable Docker Hub does.
 */
import { describe, expect, it } from "vitest";
import { startKafka, TestKafka } from "../../../lib/testing/index.ts";
import { uniqueName } from "../support.ts";

const unpullable = "127.0.0.1:9/sluice/no-such-kafka:1";

describe("startKafka when the image cannot be pulled", () => {
  it("falls back to the local JVM broker with a one-line notice", async () => {
    const lines: string[] = [];
    const kafka = await startKafka({ image: unpullable, log: (line) => lines.push(line) });
    try {
      expect(kafka.provider).toBe("local-jvm");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(unpullable);
      expect(lines[0]).toMatch(/could not pull it: .*; using the local JVM broker instead\.$/);
      expect(lines[0]).not.toContain("\n");
      // The broker it fell back to is a working one.
      const client = new TestKafka(kafka.bootstrapServers);
      const topic = uniqueName("fallback");
      await client.createTopics([{ name: topic, partitions: 1 }]);
      await client.produce(topic, [{ key: "k", value: "v" }]);
      expect(await client.size(topic)).toBe(1);
      await client.close();
    } finally {
      await kafka.stop();
    }
  });

  it("fails, naming the image, when a container was asked for", async () => {
    await expect(startKafka({ provider: "testcontainers", image: unpullable, log: () => undefined })).rejects.toThrow(
      `The container engine has no ${unpullable} image and could not pull it`,
    );
  });
});
