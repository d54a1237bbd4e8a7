import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Consumed, IDEMPOTENCY_KEY_HEADER, Materialized, Produced, Serdes, StreamsBuilder, withIdempotencyKey } from "../../../lib/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

/**
 * Records leave a cached count only when the cache flushes at commit, long after the input
 * record that wrote them was processed. They must still carry that record's context
 * (invariant 9): its headers, and its topic/partition/offset for withIdempotencyKey, and an
 * error they cause downstream goes to the processing handler like any other.
 */
describe("records forwarded by a cache flush on the real broker", () => {
  it("carry the context of the write that made them, and their errors reach the processing handler", async () => {
    const admin = testClient().admin();
    await admin.connect();
    const input = uniqueName("clicks");
    const output = uniqueName("click-counts");
    const dlq = uniqueName("click-counts-dlq");
    await admin.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }, { name: dlq, partitions: 1 }]);
    const sent = [
      { key: "a", trace: "t0" },
      { key: "bad", trace: "t1" },
      { key: "a", trace: "t2" },
      { key: "a", trace: "t3" },
      { key: "bad", trace: "t4" },
    ];
    const producer = testClient().producer({ idempotent: true });
    await producer.connect();
    await producer.send(sent.map((r) => ({ topic: input, key: Buffer.from(r.key), value: Buffer.from("click"), headers: { trace: Buffer.from(r.trace) } })));
    await producer.disconnect();

    const builder = new StreamsBuilder();
    builder
      .stream(input, Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("clicks-per-key"))
      .toStream()
      .mapValues((n, key) => {
        if (key === "bad") throw new Error(`refusing the count of ${key}`);
        return n;
      })
      .processValues(withIdempotencyKey<string | null, bigint | null>("counts"))
      .to(output, Produced.with(Serdes.string(), Serdes.int64()));
    const app = new StreamsApp(builder.build(), {
      applicationId: uniqueName("cache-context"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-")),
      commitIntervalMs: 200,
      logger: silentLogger,
      exceptionHandlers: { processing: { deadLetterTopic: dlq }, logger: { warn() {}, error() {} } },
    });
    await app.start({ handleSignals: false });
    const counts = await waitFor("the count of a reaching 3", async () => {
      const r = await readTopic(output, { count: 1 });
      return r.some((x) => x.value?.readBigInt64BE(0) === 3n) ? r : null;
    }, 60_000);
    const letters = await waitFor("a dead letter for the last count of bad", async () => {
      const r = await readTopic(dlq, { count: 1 });
      return r.some((x) => x.headers["__streams.errors.offset"]?.toString() === "4") ? r : null;
    }, 60_000);
    const state = app.state;
    await app.close();
    await admin.disconnect();

    expect(state).toBe("RUNNING"); // the failing flushed records did not stop the app
    // Offsets of the records of "a": the n-th one made the count n.
    const offsetsOfA = sent.flatMap((r, offset) => (r.key === "a" ? [offset] : []));
    for (const record of counts) {
      const count = Number(record.value!.readBigInt64BE(0));
      const origin = offsetsOfA[count - 1]!;
      expect(record.key?.toString()).toBe("a");
      expect(record.headers.trace?.toString()).toBe(sent[origin]!.trace);
      expect(record.headers[IDEMPOTENCY_KEY_HEADER]?.toString()).toBe(`${input}/0/${origin}/counts`);
    }
    for (const letter of letters) {
      const offset = Number(letter.headers["__streams.errors.offset"]?.toString());
      expect(sent[offset]!.key).toBe("bad");
      expect(letter.headers["__streams.errors.topic"]?.toString()).toBe(input);
      expect(letter.headers["__streams.errors.message"]?.toString()).toBe("refusing the count of bad");
      expect(letter.headers.trace?.toString()).toBe(sent[offset]!.trace);
    }
  });
});
