import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import type { KafkaAdmin } from "../../../lib/kafka/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamRecord, type ProcessorContext } from "../../../lib/processor/index.ts";
import { StreamsApp, type ProcessingGuarantee } from "../../../lib/runtime/index.ts";
import { decodePartitionTime } from "../../../lib/runtime/partition-time.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, testClient, uniqueName, waitFor } from "../support.ts";

// A stream-time punctuator every 10 ms writes the time it fired at. Kafka Streams commits
// each partition's time with its offset and resumes it on restart: the new task's schedule
// starts due at 0, so it fires once at the resumed stream time, then at the first record past
// the next multiple of 10. Before restart, records 5, 12, 25 fire it at 5 (due 0), 12 (due
// 10) and 25 (due 20). After restart at 25, records 27 and 33 give 25 and 33. A task that
// forgot the time would fire at 27 (its first record) instead of 25.

const BASE = Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3_600_000;
const INTERVAL = 10;

function punctuatingTopology(input: string, output: string) {
  const b = new StreamsBuilder();
  b.stream(input, Consumed.with(Serdes.string(), Serdes.string()))
    .process<string, string>(() => {
      let ctx!: ProcessorContext<string, string>;
      return {
        init: (c) => {
          ctx = c;
          c.schedule(INTERVAL, "stream_time", (t) => ctx.forward(new StreamRecord("punctuated", String(t - BASE), t)));
        },
        process: () => {},
      };
    })
    .to(output, Produced.with(Serdes.string(), Serdes.string()));
  return b.build();
}

describe("partition time survives a restart", () => {
  let kafka: TestKafka;
  let admin: KafkaAdmin;
  beforeAll(async () => {
    kafka = new TestKafka(bootstrap());
    admin = testClient().admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin.disconnect();
    await kafka.close();
  });

  for (const guarantee of ["at_least_once", "exactly_once"] as ProcessingGuarantee[]) {
    it(`${guarantee}: committed with the offsets, resumed by the next owner, so the stream-time punctuator fires as Kafka Streams'`, async () => {
      const input = uniqueName("ticks");
      const output = uniqueName("punctuations");
      await kafka.createTopics([{ name: input, partitions: 1 }, { name: output, partitions: 1 }]);
      const applicationId = uniqueName("partition-time");
      const stateDir = mkdtempSync(join(tmpdir(), "sluice-partition-time-"));
      const runApp = async (times: number[], committedOffset: number) => {
        await kafka.produce(input, times.map((t) => ({ key: "k", value: String(t), timestamp: BASE + t })));
        const app = new StreamsApp(punctuatingTopology(input, output), { applicationId, bootstrapServers: bootstrap(), stateDir, processingGuarantee: guarantee, commitIntervalMs: 100, logger: silentLogger });
        try {
          await app.start({ handleSignals: false });
          await waitFor(`offset ${committedOffset} committed`, async () => (await admin.committedOffsets(applicationId, [input]))[0]?.offset === committedOffset, 60_000);
        } finally {
          await app.close();
        }
      };
      const punctuations = async () => (await readTopic(output, { readCommitted: true })).map((r) => Number(r.value!.toString()));

      await runApp([5, 12, 25], 3);
      const [committed] = await admin.committedOffsets(applicationId, [input]);
      expect(decodePartitionTime(committed!.metadata)).toBe(BASE + 25);
      expect(await punctuations()).toEqual([5, 12, 25]);

      await runApp([27, 33], 5);
      expect(await punctuations()).toEqual([5, 12, 25, 25, 33]);
      expect(decodePartitionTime((await admin.committedOffsets(applicationId, [input]))[0]!.metadata)).toBe(BASE + 33);
    });
  }
});
