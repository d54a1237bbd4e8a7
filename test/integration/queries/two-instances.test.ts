import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Serdes, SessionWindows, StoreQueryClient, StreamsApp, StreamsBuilder, TimeWindows } from "../../../lib/index.ts";
import { silentLogger } from "../../../lib/observability/index.ts";
import { TestKafka } from "../../../lib/testing/test-kafka.ts";
import { freePort } from "../observability/http-support.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";

const WINDOW = 1_000;
const GAP = 300;
const KEYS = Array.from({ length: 40 }, (_, i) => `user-${i}`);
// Event times in order per key (nothing late), far enough back from any other test's stream time to be independent.
const INPUT = Array.from({ length: 600 }, (_, i) => ({ key: KEYS[(i * 13) % KEYS.length]!, ts: 1_000_000 + i * 37 }));

function topology(input: string) {
  const builder = new StreamsBuilder();
  const stream = builder.stream(input, Consumed.with(Serdes.string(), Serdes.string()));
  const byKey = stream.groupByKey();
  byKey.count(Materialized.as("per-user"));
  byKey.windowedBy(TimeWindows.ofSizeWithNoGrace(WINDOW)).count(Materialized.as<string, bigint>("per-user-second").withRetention(10_000_000));
  byKey.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(GAP)).count(Materialized.as<string, bigint>("user-sessions").withRetention(10_000_000));
  return builder.build();
}

const countBy = <T>(rows: T[], key: (r: T) => string) => {
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(key(r), (counts.get(key(r)) ?? 0) + 1);
  return counts;
};

function expectedWindows(key: string) {
  return [...countBy(INPUT.filter((r) => r.key === key), (r) => String(Math.floor(r.ts / WINDOW) * WINDOW))]
    .map(([start, n]) => ({ startMs: Number(start), endMs: Number(start) + WINDOW, value: String(n) }))
    .sort((a, b) => a.startMs - b.startMs);
}

function expectedSessions(key: string) {
  const sessions: { startMs: number; endMs: number; value: number }[] = [];
  for (const { ts } of INPUT.filter((r) => r.key === key)) {
    const last = sessions[sessions.length - 1];
    if (last && ts - last.endMs <= GAP) {
      last.endMs = ts;
      last.value++;
    } else sessions.push({ startMs: ts, endMs: ts, value: 1 });
  }
  return sessions.map((s) => ({ ...s, value: String(s.value) }));
}

describe("interactive queries across two instances on the broker", () => {
  const apps: StreamsApp[] = [];
  const ports: number[] = [];
  let kafka: TestKafka;

  beforeAll(async () => {
    kafka = new TestKafka(bootstrap());
    const input = uniqueName("iq-in");
    await kafka.createTopics([{ name: input, partitions: 4 }]);
    const applicationId = uniqueName("iq");
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      ports.push(port);
      apps.push(
        new StreamsApp(topology(input), {
          applicationId,
          bootstrapServers: bootstrap(),
          stateDir: mkdtempSync(join(tmpdir(), `sluice-iq-${i}-`)),
          applicationServer: `127.0.0.1:${port}`,
          commitIntervalMs: 200,
          logger: silentLogger,
        }),
      );
    }
    await Promise.all(apps.map((app) => app.start({ handleSignals: false })));
    // Produced with the client's default partitioner, as any producer of the input would.
    await kafka.produce(input, INPUT.map((r) => ({ key: r.key, value: "click", timestamp: r.ts })));
    await waitFor(
      "both instances running their share of the tasks",
      () => apps.every((a) => a.state === "RUNNING" && a.activeTasks().length === 2) && apps.flatMap((a) => a.activeTasks()).length === 4,
      120_000,
    );
    // Settled once every count is in place on its owner (read locally on each instance).
    const localTotal = (store: string) =>
      apps.reduce((sum, app) => {
        try {
          return sum + app.store<string, bigint>(store).all().reduce((n, e) => n + Number(e.value), 0);
        } catch {
          return Number.NaN; // a rebalance in flight: not settled
        }
      }, 0);
    await waitFor("every count in place", () => localTotal("per-user") === INPUT.length, 120_000);
  }, 300_000);

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
    await kafka?.close();
  });

  it("places each key on the instance whose task holds it", () => {
    const owners = new Set<number>();
    for (const key of KEYS) {
      const where = apps.map((a) => a.queryMetadataForKey("per-user", key));
      expect(where[0]).toEqual(where[1]);
      const owner = apps.findIndex((a) => a.activeTasks().includes(where[0]!.taskId!));
      expect(where[0]!.active).toEqual({ host: "127.0.0.1", port: ports[owner] });
      owners.add(owner);
      // The owner's local store has the key: the partition computed is the one the producer chose.
      expect(apps[owner]!.store<string, bigint>("per-user").get(key)).toBe(BigInt(INPUT.filter((r) => r.key === key).length));
    }
    expect(owners.size).toBe(2); // each instance owns keys, so half the reads below are routed
    for (const app of apps) {
      const hosts = app.streamsMetadataForStore("per-user-second");
      expect(hosts.map((h) => h.hostInfo.port).sort()).toEqual([...ports].sort());
      expect(hosts.flatMap((h) => h.activeTasks).sort()).toEqual(["0_0", "0_1", "0_2", "0_3"]);
      expect(hosts.every((h) => h.stateStoreNames.join() === "per-user,per-user-second,user-sessions")).toBe(true);
    }
  });

  it("answers every key from every instance, routing to the owner", async () => {
    const perUser = countBy(INPUT, (r) => r.key);
    for (const port of ports) {
      const client = new StoreQueryClient<string>(`http://127.0.0.1:${port}`);
      for (const key of KEYS) {
        expect([key, await client.get("per-user", key)]).toEqual([key, String(perUser.get(key))]);
        const windows = await client.windowFetch<string>("per-user-second", key);
        expect(windows.map(({ startMs, endMs, value }) => ({ startMs, endMs, value }))).toEqual(expectedWindows(key));
        expect(await client.sessionFetch("user-sessions", key)).toEqual(expectedSessions(key));
      }
      const all = await client.all<string>("per-user");
      expect(new Map(all.map((e) => [e.key, Number(e.value)]))).toEqual(perUser);
    }
  });

  it("lets each instance read its own window and session stores through app.store()", () => {
    let found = 0;
    for (const app of apps) {
      const windows = app.store<string, bigint>("per-user-second", "window");
      const sessions = app.store<string, bigint>("user-sessions", "session");
      for (const key of KEYS) {
        const local = windows.fetch(key, 0, Number.MAX_SAFE_INTEGER);
        if (local.length === 0) continue; // owned by the other instance
        found++;
        expect(local.map((w) => [w.windowStartMs, String(w.value)])).toEqual(expectedWindows(key).map((w) => [w.startMs, w.value]));
        expect(sessions.fetch(key).map((s) => [s.key.window.startMs, s.key.window.endMs, String(s.value)])).toEqual(expectedSessions(key).map((s) => [s.startMs, s.endMs, s.value]));
      }
      expect(() => app.store("per-user", "window").fetch("user-0", 0)).toThrow(/"per-user" is a keyValue store, not a window store/);
    }
    expect(found).toBe(KEYS.length);
  });
});
