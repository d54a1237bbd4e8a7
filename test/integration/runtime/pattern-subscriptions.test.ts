import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

describe("pattern subscriptions on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("read whole matching topic names only, never the application's own changelog", async () => {
    // The application id starts like the pattern, so its changelog
    // `<prefix>-app-events-count-changelog` matches it as a whole name too.
    const prefix = uniqueName("events");
    const matching = [`${prefix}-eu`, `${prefix}-us`];
    const nonMatching = `old-${prefix}-eu`;
    const output = uniqueName("event-counts");
    await kafka.createTopics([...matching, nonMatching, output].map((name) => ({ name, partitions: 2 })));
    const keys = ["a", "b", "c"];
    const sent = new Map<string, number>();
    for (const [i, topic] of [...matching, nonMatching].entries()) {
      const records = Array.from({ length: 30 + i * 7 }, (_, n) => ({ key: keys[(n + i) % keys.length]!, value: `${topic}:${n}` }));
      await kafka.produce(topic, records);
      if (topic !== nonMatching) for (const r of records) sent.set(r.key, (sent.get(r.key) ?? 0) + 1);
    }

    const b = new StreamsBuilder();
    b.stream(new RegExp(`${prefix}-.*`, "g"), Consumed.with(Serdes.string(), Serdes.string()))
      .groupByKey()
      .count(Materialized.as("events-count"))
      .toStream()
      .to(output, Produced.with(Serdes.string(), Serdes.int64()));
    const applicationId = `${prefix}-app`;
    const app = new StreamsApp(b.build(), { applicationId, bootstrapServers: bootstrap(), stateDir: mkdtempSync(join(tmpdir(), "sluice-patterns-")), commitIntervalMs: 200, logger: silentLogger });
    const latest = async () => {
      const counts = new Map<string, bigint>();
      for (const r of await readTopic(output)) counts.set(r.key!.toString(), r.value!.readBigInt64BE());
      return counts;
    };
    const changelog = `${applicationId}-events-count-changelog`;
    try {
      await app.start({ handleSignals: false });
      await waitFor("every matching record counted", async () => {
        const counts = await latest();
        return keys.every((k) => (counts.get(k) ?? 0n) >= BigInt(sent.get(k)!));
      }, 60_000);
      expect(app.activeTasks()).toEqual(["0_0", "0_1"]);
    } finally {
      await app.close();
    }
    expect(Object.fromEntries(await latest())).toEqual(Object.fromEntries([...sent].map(([k, n]) => [k, BigInt(n)])));
    expect(await kafka.size(changelog)).toBeGreaterThan(0);
    // Had the pattern matched the changelog, the group would have consumed and committed it.
    const admin = testClient().admin();
    await admin.connect();
    try {
      const committed = await admin.committedOffsets(applicationId, [...matching, nonMatching, changelog]);
      expect([...new Set(committed.map((o) => o.topic))].sort()).toEqual([...matching].sort());
    } finally {
      await admin.disconnect();
    }
  });
});
