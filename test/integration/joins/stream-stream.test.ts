import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, JoinWindows, Produced, StreamJoined, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

const KEYS = Array.from({ length: 10 }, (_, i) => `k${i}`);

describe("stream-stream left join on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("keeps unmatched records across a restart on a new machine and emits their null results once, when stream time passes the window", async () => {
    const left = uniqueName("left");
    const right = uniqueName("right");
    const output = uniqueName("joined");
    await kafka.createTopics([{ name: left, partitions: 2 }, { name: right, partitions: 2 }, { name: output, partitions: 2 }]);
    const strings = Consumed.with(Serdes.string(), Serdes.string());
    const b = new StreamsBuilder();
    b.stream(left, strings)
      .leftJoin(b.stream(right, strings), (l, r) => `${l}+${r ?? "-"}`, JoinWindows.ofTimeDifferenceAndGrace(10_000, 1_000), StreamJoined.as("lr"))
      .to(output, Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    const config = {
      applicationId: uniqueName("stream-join"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-joins-")),
      commitIntervalMs: 100,
      logger: silentLogger,
    };
    const t = Date.now() - 3_600_000;
    const values = async (count: number) =>
      waitFor(`${count} outputs`, async () => {
        const r = await readTopic(output);
        return r.length >= count ? r.map((x) => `${x.key}=${x.value}@${x.timestamp}`).sort() : null;
      }, 60_000);

    const first = new StreamsApp(topology, config);
    await first.start({ handleSignals: false });
    await kafka.produce(left, KEYS.map((k) => ({ key: k, value: `L-${k}`, timestamp: t })));
    await kafka.produce(right, KEYS.slice(0, 5).map((k) => ({ key: k, value: `R-${k}`, timestamp: t + 5_000 })));
    expect(await values(5)).toEqual(KEYS.slice(0, 5).map((k) => `${k}=L-${k}+R-${k}@${t + 5_000}`).sort());
    await first.close();

    // A new instance on an empty state directory restores the window and pending stores
    // from their changelogs; moving stream time past t + 10 s + 1 s in every task emits each
    // unmatched left record once.
    const second = new StreamsApp(topology, { ...config, stateDir: mkdtempSync(join(tmpdir(), "sluice-joins-")) });
    await second.start({ handleSignals: false });
    await kafka.produce(right, KEYS.map((k) => ({ key: k, value: `tick-${k}`, timestamp: t + 60_000 })));
    const all = await values(10);
    await new Promise((r) => setTimeout(r, 1_000));
    await second.close();
    expect(await readTopic(output)).toHaveLength(10);
    expect(all).toEqual(
      [...KEYS.slice(0, 5).map((k) => `${k}=L-${k}+R-${k}@${t + 5_000}`), ...KEYS.slice(5).map((k) => `${k}=L-${k}+-@${t}`)].sort(),
    );
  });
});
