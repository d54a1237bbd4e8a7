import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Consumed, Materialized, Serdes, SessionWindows, StoreQueryClient, StoreQueryError, StreamsBuilder, TimeWindows } from "../../../lib/index.ts";
import { HttpServer } from "../../../lib/observability/index.ts";
import { addQueryRoutes, LocalStores, partitionForKey, QueryMetadata, type ClusterView, type HostInfo } from "../../../lib/runtime/queries/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";

const WINDOW = 50;
const GAP = 5;

function topology() {
  const builder = new StreamsBuilder();
  const grouped = builder.stream("in", Consumed.with(Serdes.string(), Serdes.string())).groupByKey();
  grouped.count(Materialized.as("counts"));
  grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(WINDOW)).count(Materialized.as<string, bigint>("win").withRetention(10_000));
  grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(GAP)).count(Materialized.as<string, bigint>("sess").withRetention(10_000));
  return builder.build();
}

// Input in time order (nothing is late), so the brute-force counts below are what Kafka Streams computes.
const KEYS = Array.from({ length: 24 }, (_, i) => `user-${i}`);
const INPUT: { key: string; ts: number }[] = [];
for (let ts = 0, i = 0; ts < 400; ts += 1 + (i % 3), i++) INPUT.push({ key: KEYS[(i * 7) % KEYS.length]!, ts });
const partitionOf = (key: string) => partitionForKey(Buffer.from(key), 2);

function expectedWindows(key: string) {
  const counts = new Map<number, number>();
  for (const r of INPUT.filter((r) => r.key === key)) counts.set(Math.floor(r.ts / WINDOW) * WINDOW, (counts.get(Math.floor(r.ts / WINDOW) * WINDOW) ?? 0) + 1);
  return [...counts].sort((a, b) => a[0] - b[0]).map(([start, n]) => ({ startMs: start, endMs: start + WINDOW, value: String(n) }));
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

interface Instance {
  server: HttpServer;
  driver: TopologyTestDriver;
  host: HostInfo;
  url: string;
}

describe("query routes on two instances", () => {
  const instances: Instance[] = [];
  let view: ClusterView;

  beforeAll(async () => {
    for (let partition = 0; partition < 2; partition++) {
      const server = new HttpServer();
      await server.listen(0, "127.0.0.1");
      const driver = new TopologyTestDriver(topology());
      const input = driver.createInputTopic("in", Serdes.string(), Serdes.string());
      for (const r of INPUT) if (partitionOf(r.key) === partition) input.pipeInput(r.key, "x", r.ts);
      const host = { host: "127.0.0.1", port: server.port! };
      instances.push({ server, driver, host, url: `http://127.0.0.1:${host.port}` });
    }
    view = { hosts: instances.map((i, p) => ({ ...i.host, active: [`0_${p}`], standby: [`0_${1 - p}`] })) };
    instances.forEach((instance, partition) => {
      const t = topology();
      const stores = new LocalStores({ topology: t, state: () => "RUNNING", taskStores: (name) => [instance.driver.getStateStore(name)], globalStore: () => undefined });
      const metadata = new QueryMetadata({
        topology: t,
        applicationId: "test-app",
        self: instance.host,
        partitionCounts: () => new Map([["in", 2]]),
        clusterView: () => view,
        localActiveTasks: () => [`0_${partition}`],
        localStandbyTasks: () => [`0_${1 - partition}`],
      });
      addQueryRoutes(instance.server.router, { stores, metadata, applicationId: "test-app", self: instance.host });
    });
  });

  afterAll(async () => {
    for (const i of instances) {
      await i.server.close();
      i.driver.close();
    }
  });

  const get = async (instance: Instance, path: string) => {
    const answer = await fetch(instance.url + path);
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown>, servedBy: answer.headers.get("x-sluice-served-by") };
  };

  it("answers every key's count from either instance, forwarding to the owner", async () => {
    expect(new Set(KEYS.map(partitionOf))).toEqual(new Set([0, 1])); // both instances own keys
    for (const instance of instances) {
      for (const key of [...KEYS, "nobody"]) {
        const { status, body, servedBy } = await get(instance, `/stores/key-value/get?store=counts&key=${encodeURIComponent(key)}`);
        expect(status).toBe(200);
        const count = INPUT.filter((r) => r.key === key).length;
        expect(body).toEqual({ store: "counts", key, value: count === 0 ? null : String(count) });
        expect(servedBy).toBe(`127.0.0.1:${instances[partitionOf(key)]!.host.port}`);
      }
    }
  });

  it("answers window and session fetches from either instance", async () => {
    for (const instance of instances) {
      for (const key of KEYS) {
        const windows = await get(instance, `/stores/window/fetch?store=win&key=${key}`);
        expect(windows.status).toBe(200);
        expect((windows.body.windows as Record<string, unknown>[]).map(({ startMs, endMs, value }) => ({ startMs, endMs, value }))).toEqual(expectedWindows(key));
        const bounded = await get(instance, `/stores/window/fetch?store=win&key=${key}&timeFrom=100&timeTo=200`);
        expect((bounded.body.windows as { startMs: number }[]).map((w) => w.startMs)).toEqual(expectedWindows(key).filter((w) => w.startMs >= 100 && w.startMs <= 200).map((w) => w.startMs));
        const one = await get(instance, `/stores/window/fetch?store=win&key=${key}&time=150`);
        expect(one.body.value).toBe(expectedWindows(key).find((w) => w.startMs === 150)?.value ?? null);
        const sessions = await get(instance, `/stores/session/fetch?store=sess&key=${key}`);
        expect(sessions.body.sessions).toEqual(expectedSessions(key));
        const found = await get(instance, `/stores/session/fetch?store=sess&key=${key}&earliestEnd=100&latestStart=200`);
        expect(found.body.sessions).toEqual(expectedSessions(key).filter((s) => s.endMs >= 100 && s.startMs <= 200));
      }
    }
  });

  it("gathers reads of every key from every instance", async () => {
    const counts = new Map<string, string>();
    for (const r of INPUT) counts.set(r.key, String(Number(counts.get(r.key) ?? 0) + 1));
    for (const instance of instances) {
      const all = await get(instance, "/stores/key-value/all?store=counts");
      expect(all.status).toBe(200);
      const entries = all.body.entries as { key: string; value: string }[];
      expect(new Map(entries.map((e) => [e.key, e.value]))).toEqual(counts);
      expect(entries).toHaveLength(counts.size);
      const range = await get(instance, "/stores/key-value/range?store=counts&from=user-1&to=user-2");
      const inRange = [...counts.keys()].filter((k) => Buffer.compare(Buffer.from(k), Buffer.from("user-1")) >= 0 && Buffer.compare(Buffer.from(k), Buffer.from("user-2")) <= 0);
      expect((range.body.entries as { key: string }[]).map((e) => e.key).sort()).toEqual(inRange.sort());
      const local = await get(instance, "/stores/key-value/all?store=counts&scope=local");
      expect((local.body.entries as { key: string }[]).every((e) => instances[partitionOf(e.key)] === instance)).toBe(true);
      const windows = await get(instance, "/stores/window/all?store=win&timeFrom=0&timeTo=49");
      expect((windows.body.windows as unknown[]).length).toBe(new Set(INPUT.filter((r) => r.ts < 50).map((r) => r.key)).size);
    }
  });

  it("names the owner and standbys of a key and the hosts of a store", async () => {
    const key = KEYS.find((k) => partitionOf(k) === 1)!;
    const { body } = await get(instances[0]!, `/stores/metadata?store=counts&key=${key}`);
    expect(body).toEqual({ store: "counts", active: instances[1]!.host, standbys: [instances[0]!.host], partition: 1, taskId: "0_1" });
    const hosts = await get(instances[0]!, "/stores/metadata?store=win");
    expect((hosts.body.hosts as { hostInfo: HostInfo; activeTasks: string[] }[]).map((h) => [h.hostInfo.port, h.activeTasks])).toEqual([
      [instances[0]!.host.port, ["0_0"]],
      [instances[1]!.host.port, ["0_1"]],
    ]);
  });

  it("refuses bad requests with a 4xx that says what is wrong", async () => {
    const a = instances[0]!;
    const owned = KEYS.find((k) => partitionOf(k) === 0)!;
    const remote = KEYS.find((k) => partitionOf(k) === 1)!;
    const cases: [string, number, RegExp][] = [
      ["/stores/key-value/get?key=a", 400, /give the store/],
      ["/stores/key-value/get?store=nope&key=a", 404, /no state store named "nope".*"counts"/],
      ["/stores/key-value/get?store=counts", 400, /give key=<key>/],
      [`/stores/window/fetch?store=counts&key=${owned}`, 400, /"counts" is a keyValue store, not a window store/],
      [`/stores/window/fetch?store=counts&key=${remote}`, 400, /"counts" is a keyValue store, not a window store/], // said by the owner
      [`/stores/window/fetch?store=win&key=${owned}&timeFrom=10&timeTo=5`, 400, /timeFrom 10 is after timeTo 5/],
      [`/stores/window/fetch?store=win&key=${owned}&timeFrom=soon`, 400, /timeFrom must be a time in epoch ms/],
      ["/stores/key-value/range?store=counts&from=b&to=a", 400, /from is after to/],
      ["/stores/key-value/get?store=counts&keyBase64=***", 400, /not base64/],
      ["/stores/key-value/get?store=counts&key=a&keyBase64=YQ==", 400, /either key or keyBase64/],
    ];
    for (const [path, status, message] of cases) {
      const answer = await get(a, path);
      expect([path, answer.status]).toEqual([path, status]);
      expect(answer.body.error).toMatch(message);
    }
    const base64 = await get(a, `/stores/key-value/get?store=counts&keyBase64=${Buffer.from(remote).toString("base64")}`);
    expect(base64.body.value).toBe(String(INPUT.filter((r) => r.key === remote).length));
  });

  it("says when the owner is unknown or cannot be reached", async () => {
    const saved = view;
    const remote = KEYS.find((k) => partitionOf(k) === 1)!;
    try {
      view = { hosts: [{ ...instances[0]!.host, active: ["0_0"], standby: [] }] };
      const unknown = await get(instances[0]!, `/stores/key-value/get?store=counts&key=${remote}`);
      expect(unknown.status).toBe(503);
      expect(unknown.body).toMatchObject({ owner: null, taskId: "0_1", partition: 1 });
      const gone = new HttpServer();
      await gone.listen(0, "127.0.0.1");
      const port = gone.port!;
      await gone.close(); // a port nobody listens on
      view = { hosts: [{ ...instances[0]!.host, active: ["0_0"], standby: [] }, { host: "127.0.0.1", port, active: ["0_1"], standby: [] }] };
      const unreachable = await get(instances[0]!, `/stores/key-value/get?store=counts&key=${remote}`);
      expect(unreachable.status).toBe(502);
      expect(unreachable.body).toMatchObject({ owner: `127.0.0.1:${port}` });
      expect(unreachable.body.error).toMatch(/could not be reached/);
      // A forwarded request that lands on a non-owner (views disagree mid-rebalance) is not forwarded again.
      view = saved;
      const owned = KEYS.find((k) => partitionOf(k) === 0)!;
      const answer = await fetch(`${instances[1]!.url}/stores/key-value/get?store=counts&key=${owned}`, { headers: { "x-sluice-forwarded-from": "elsewhere:1" } });
      expect(answer.status).toBe(503);
      expect(await answer.json()).toMatchObject({ owner: `127.0.0.1:${instances[0]!.host.port}`, taskId: "0_0" });
    } finally {
      view = saved;
    }
  });

  it("StoreQueryClient reads typed values through any instance", async () => {
    const client = new StoreQueryClient(instances[0]!.url, { decodeValue: (v) => BigInt(v as string) });
    for (const key of KEYS.slice(0, 6)) {
      expect(await client.get<bigint>("counts", key)).toBe(BigInt(INPUT.filter((r) => r.key === key).length));
      expect((await client.windowFetch<bigint>("win", key, 0, 1000)).map((w) => [w.startMs, w.value])).toEqual(expectedWindows(key).map((w) => [w.startMs, BigInt(w.value)]));
      expect((await client.sessionFetch<bigint>("sess", key)).map((s) => s.value)).toEqual(expectedSessions(key).map((s) => BigInt(s.value)));
    }
    expect(await client.get("counts", "nobody")).toBeNull();
    expect((await client.all<bigint>("counts")).length).toBe(new Set(INPUT.map((r) => r.key)).size);
    expect((await client.metadataForKey("counts", KEYS[0]!)).partition).toBe(partitionOf(KEYS[0]!));
    const byBytes = new StoreQueryClient(instances[1]!.host, { keySerde: Serdes.string() });
    expect(await byBytes.get("counts", KEYS[1]!)).toBe(String(INPUT.filter((r) => r.key === KEYS[1]).length));
    await expect(client.get("nope", "a")).rejects.toThrow(StoreQueryError);
    await expect(client.get("nope", "a")).rejects.toMatchObject({ status: 404 });
  });
});
