import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { bootstrap, uniqueName } from "../support.ts";

const kafkaBoundary = fileURLToPath(new URL("../../../lib/kafka/index.ts", import.meta.url));

// An application's process has no flags that silence warnings: neither has this one.
function withoutNodeOptions(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _ignored, ...rest } = env;
  return rest;
}

describe("the Kafka client in an application's process", () => {
  it("produces and reads without Node warnings on stderr (kafkajs' request queue set negative timers)", () => {
    const topic = uniqueName("warnings");
    const script = `
      import { createKafkaClient } from ${JSON.stringify(kafkaBoundary)};
      const client = createKafkaClient({ clientId: "warnings", brokers: [${JSON.stringify(bootstrap())}] });
      const admin = client.admin();
      await admin.connect();
      await admin.createTopics([{ name: ${JSON.stringify(topic)}, partitions: 1 }]);
      const producer = client.producer();
      await producer.connect();
      for (let i = 0; i < 5; i++) await producer.send([{ topic: ${JSON.stringify(topic)}, key: Buffer.from("k"), value: Buffer.from(String(i)) }]);
      const bounds = await client.partitionBounds([{ topic: ${JSON.stringify(topic)}, partition: 0 }], false);
      let read = 0;
      await client.readToEnd([{ topic: ${JSON.stringify(topic)}, partition: 0, from: 0 }], (_, records) => (read += records.length), false);
      await producer.disconnect();
      await admin.disconnect();
      await client.close();
      console.log(JSON.stringify({ end: bounds.get(${JSON.stringify(topic + ":0")}).end, read }));
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 60_000, env: { ...withoutNodeOptions(process.env), SLUICE_LOG_LEVEL: "error" } });
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim().split("\n").at(-1)!)).toEqual({ end: 5, read: 5 });
    expect(child.stderr).not.toMatch(/Warning/);
  });
});
