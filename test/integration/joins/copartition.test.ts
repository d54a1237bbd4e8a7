import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, JoinWindows, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { TopologyError } from "../../../lib/errors/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, uniqueName } from "../support.ts";

describe("co-partitioning on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("refuses to start a join of topics with different partition counts, naming both", async () => {
    const left = uniqueName("left");
    const right = uniqueName("right");
    await kafka.createTopics([{ name: left, partitions: 3 }, { name: right, partitions: 2 }]);
    const strings = Consumed.with(Serdes.string(), Serdes.string());
    const b = new StreamsBuilder();
    b.stream(left, strings)
      .join(b.stream(right, strings), (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceWithNoGrace(1_000))
      .to(uniqueName("out"), Produced.with(Serdes.string(), Serdes.string()));
    const app = new StreamsApp(b.build(), {
      applicationId: uniqueName("copartition"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-joins-")),
      logger: silentLogger,
    });
    try {
      const error = await app.start({ handleSignals: false }).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(TopologyError);
      expect(String(error)).toContain(`${left} (3 partitions)`);
      expect(String(error)).toContain(`${right} (2 partitions)`);
      expect(app.state).toMatch(/ERROR/);
    } finally {
      await app.close();
    }
  });
});
