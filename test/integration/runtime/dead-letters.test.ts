import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

describe("poison records on the real broker", () => {
  it("sends undecodable and failing records to the dead-letter topic with headers naming the error and origin", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const input = uniqueName("payments");
    const output = uniqueName("payments-ok");
    const dlq = uniqueName("payments-dlq");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }, { name: dlq, partitions: 1 }]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send([
      { topic: input, key: Buffer.from("a"), value: Buffer.from(JSON.stringify({ amount: 5 })) },
      { topic: input, key: Buffer.from("b"), value: Buffer.from("{not json"), headers: { origin: Buffer.from("till-7") } },
      { topic: input, key: Buffer.from("c"), value: Buffer.from(JSON.stringify({ amount: -1 })) },
      { topic: input, key: Buffer.from("d"), value: Buffer.from(JSON.stringify({ amount: 9 })) },
    ]);
    await producer.disconnect();

    const builder = new StreamsBuilder();
    builder
      .stream(input, Consumed.with(Serdes.string(), Serdes.json<{ amount: number }>()))
      .mapValues((p) => {
        if (p === null) return 0;
        if (p.amount < 0) throw new RangeError(`negative amount ${p.amount}`);
        return p.amount;
      })
      .to(output, Produced.with(Serdes.string(), Serdes.int32()));
    const app = new StreamsApp(builder.build(), {
      applicationId: uniqueName("dlq"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-")),
      commitIntervalMs: 100,
      logger: silentLogger,
      exceptionHandlers: { deserialization: { deadLetterTopic: dlq }, processing: { deadLetterTopic: dlq }, logger: { warn() {}, error() {} } },
    });
    await app.start({ handleSignals: false });
    const letters = await waitFor("2 dead letters", async () => {
      const r = await readTopic(dlq, { count: 2 });
      return r.length >= 2 ? r : null;
    }, 60_000);
    const good = await readTopic(output, { count: 2 });
    await app.close();
    await admin.disconnect();

    expect(good.map((r) => [r.key?.toString(), r.value!.readInt32BE(0)])).toEqual([["a", 5], ["d", 9]]);
    const [undecodable, failing] = letters;
    const h = (r: typeof undecodable, name: string) => r!.headers[`__streams.errors.${name}`]?.toString();
    expect(undecodable!.value?.toString()).toBe("{not json");
    expect(undecodable!.headers["origin"]?.toString()).toBe("till-7");
    expect(h(undecodable, "topic")).toBe(input);
    expect(h(undecodable, "partition")).toBe("0");
    expect(h(undecodable, "offset")).toBe("1");
    expect(h(undecodable, "exception")).toBe("SerdeError");
    expect(h(failing, "offset")).toBe("2");
    expect(h(failing, "exception")).toBe("RangeError");
    expect(h(failing, "message")).toContain("negative amount -1");
    expect(h(failing, "stacktrace")).toContain("RangeError");
  });
});

describe("records the broker refuses to accept", () => {
  it("are handed to the production handler one by one while the rest of the batch is written", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const input = uniqueName("in");
    const output = uniqueName("small-out");
    const dlq = uniqueName("out-dlq");
    await admin.createTopics([
      { name: input, partitions: 1 },
      { name: output, partitions: 1, configs: { "max.message.bytes": "2000" } },
      { name: dlq, partitions: 1 },
    ]);
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(["small-1", "x".repeat(5000), "small-2"].map((v, i) => ({ topic: input, key: Buffer.from(`k${i}`), value: Buffer.from(v) })));
    await producer.disconnect();

    const builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.string(), Serdes.string())).to(output, Produced.with(Serdes.string(), Serdes.string()));
    const app = new StreamsApp(builder.build(), {
      applicationId: uniqueName("too-large"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-")),
      commitIntervalMs: 100,
      logger: silentLogger,
      exceptionHandlers: { production: { deadLetterTopic: dlq }, logger: { warn() {}, error() {} } },
    });
    await app.start({ handleSignals: false });
    const letters = await waitFor("the refused record in the dead-letter topic", async () => {
      const r = await readTopic(dlq, { count: 1 });
      return r.length >= 1 ? r : null;
    }, 60_000);
    const written = await readTopic(output, { count: 2 });
    await app.close();
    await admin.disconnect();
    expect(written.map((r) => r.value?.toString())).toEqual(["small-1", "small-2"]);
    expect(letters[0]!.value?.toString()).toHaveLength(5000);
    expect(letters[0]!.headers["__streams.errors.topic"]?.toString()).toBe(output);
    expect(letters[0]!.headers["__streams.errors.message"]?.toString()).toMatch(/MESSAGE_TOO_LARGE|larger than/);
  });
});
