import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Produced, StreamsBuilder } from "../../../lib/dsl/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { bootstrap, readTopic, uniqueName, waitFor } from "../support.ts";

const USERS = Array.from({ length: 10 }, (_, i) => `user-${i}`);

describe("stream-table enrichment on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("enriches every click with the user row current when it is processed, while user updates arrive", async () => {
    const clicks = uniqueName("clicks");
    const users = uniqueName("users");
    const output = uniqueName("enriched");
    await kafka.createTopics([{ name: clicks, partitions: 3 }, { name: users, partitions: 3 }, { name: output, partitions: 3 }]);
    const strings = Consumed.with(Serdes.string(), Serdes.string());
    const b = new StreamsBuilder();
    const table = b.table(users, strings, Materialized.as("users"));
    b.stream(clicks, strings)
      .join(table, (click, user) => `${click}|${user}`)
      .to(output, Produced.with(Serdes.string(), Serdes.string()));
    const topology = b.build();
    expect(topology.copartitionGroups("enrich")).toEqual([[clicks, users]]);
    const app = new StreamsApp(topology, {
      applicationId: uniqueName("enrich"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-joins-")),
      commitIntervalMs: 100,
      logger: silentLogger,
    });
    let now = Date.now() - 60_000;
    const sendUsers = (version: number) => kafka.produce(users, USERS.map((u) => ({ key: u, value: `${u}@v${version}`, timestamp: now++ })));
    let clickNo = 0;
    const sendClicks = (n: number) => kafka.produce(clicks, Array.from({ length: n }, () => ({ key: USERS[clickNo % USERS.length]!, value: `click-${clickNo++}`, timestamp: now++ })));
    const tableAt = (version: number) => async () => {
      const store = app.store<string, string>("users");
      try {
        return USERS.every((u) => store.get(u) === `${u}@v${version}`);
      } catch {
        return false; // restoring or rebalancing: ask again
      }
    };
    try {
      await sendUsers(1);
      await app.start({ handleSignals: false });
      await waitFor("the table at v1", tableAt(1), 60_000);
      await sendClicks(100);
      await waitFor("100 enriched clicks", async () => (await readTopic(output, { count: 100 })).length >= 100, 60_000);
      // Updates and clicks interleaved: each click sees v1 or v2, and per user never v1 after v2.
      await sendUsers(2);
      await sendClicks(100);
      await waitFor("the table at v2", tableAt(2), 60_000);
      await sendClicks(100);
      const records = await waitFor("300 enriched clicks", async () => {
        const r = await readTopic(output, { count: 300 });
        return r.length >= 300 ? r : null;
      }, 60_000);
      expect(records).toHaveLength(300);
      const byClick = new Map(records.map((r) => [Number(r.value!.toString().split("|")[0]!.slice("click-".length)), r.value!.toString()]));
      expect(byClick.size).toBe(300);
      for (const [n, value] of byClick) {
        const user = USERS[n % USERS.length]!;
        expect(value).toMatch(new RegExp(`^click-${n}\\|${user}@v[12]$`));
        if (n < 100) expect(value.endsWith("@v1"), value).toBe(true);
        if (n >= 200) expect(value.endsWith("@v2"), value).toBe(true);
      }
      for (const user of USERS) {
        const versions = [...byClick].filter(([n]) => USERS[n % USERS.length] === user).sort(([a], [b]) => a - b).map(([, v]) => v.slice(-1));
        expect(versions.join(""), user).toMatch(/^1*2*$/);
      }
    } finally {
      await app.close();
    }
  });
});
