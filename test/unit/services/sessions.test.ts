import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { defaultSessionsConfig, sessionsTopology, type PageView, type Session, type SessionsConfig } from "../../../services/sessions/topology.ts";
import { expectedSessions, pageViews } from "./sessions-oracle.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

const MIN = 60_000;
const BASE = Date.UTC(2026, 0, 5, 8);
const config: SessionsConfig = { ...defaultSessionsConfig(), inactivityGapMs: 5 * MIN, graceMs: 15 * MIN };

function run(views: readonly PageView[]): Session[] {
  driver = new TopologyTestDriver(sessionsTopology(config));
  const input = driver.createInputTopic(config.topics.pageViews, Serdes.string(), Serdes.json<PageView>());
  // the record timestamp is not the event time: the service reads `at`
  for (const v of views) input.pipeInput(v.userId, v, 0);
  const out = driver.createOutputTopic(config.topics.sessions, Serdes.string(), Serdes.json<Session>()).readKeyValuesToList();
  for (const [key, s] of out) expect(key).toBe(s!.userId);
  return out.map(([, s]) => s!);
}

const order = (a: Session, b: Session) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.startMs - b.startMs);
const flush = (atMs: number): PageView => ({ userId: "zz-flush", page: "/", at: atMs });

describe("the sessions service's topology", { timeout: 60_000 }, () => {
  it.each([1, 2, 3])("emits each final session once, equal to the brute-force sessions, with stragglers that merge sessions (seed %i)", (seed) => {
    const deliveries = pageViews(seed, config, BASE);
    const views = [...deliveries.map((d) => d.view), flush(BASE + 24 * 60 * MIN)];
    const expected = expectedSessions(views, config);
    expect(expected.merges).toBeGreaterThan(0);
    expect(expected.dropped).toBe(deliveries.filter((d) => d.kind === "too-late").length);
    expect(expected.dropped).toBeGreaterThan(0);
    expect(expected.sessions.some((s) => s.pageCount > 3)).toBe(true);

    const sessions = run(views);
    expect(sessions.sort(order)).toEqual([...expected.sessions].sort(order));
    expect(driver!.droppedRecords).toBe(expected.dropped);
    // every user but the flush one has all its sessions closed
    expect(new Set(sessions.map((s) => s.userId)).has("zz-flush")).toBe(false);
  });

  it("emits nothing for a session before it closes, and what it emits is final", () => {
    const views = pageViews(7, config, BASE).map((d) => d.view);
    const final = expectedSessions([...views, flush(BASE + 24 * 60 * MIN)], config).sessions;
    const early = run(views);
    const newest = Math.max(...views.map((v) => v.at));
    const { inactivityGapMs: gap, graceMs: grace } = config;
    // never revised later: each is one of the final sessions
    for (const s of early) expect(final).toContainEqual(s);
    // every session that ended gap + grace before the newest view is out; none that ended within grace of it
    // (between the two, whether it is out yet is what closing at end + gap + grace decides: see the next test)
    expect(early.filter((s) => s.endMs + gap + grace <= newest).sort(order)).toEqual(final.filter((s) => s.endMs + gap + grace <= newest).sort(order));
    expect(early.filter((s) => s.endMs + grace >= newest)).toEqual([]);
    expect(early.length).toBeGreaterThan(10);
  });

  // Kafka Streams closes a session at end + gap + grace (stream time), both for late records
  // and for suppress; Sluice closes it at end + grace + 1 until the windows work lands.
  it("keeps a session open until end + gap + grace, as Kafka Streams: a straggler after end + grace still joins and bridges it", () => {
    const at = (h: number, m: number, s = 0) => Date.UTC(2026, 0, 5, h, m, s);
    const views: PageView[] = [
      { userId: "ann", page: "/a1", at: at(10, 0) },
      { userId: "dan", page: "/d1", at: at(10, 0) },
      { userId: "ann", page: "/a3", at: at(10, 9) }, // 9 min later: a second session
      { userId: "bob", page: "/b1", at: at(10, 18) }, // stream time 10:18, past 10:00 + grace, before 10:00 + gap + grace
      { userId: "ann", page: "/a2", at: at(10, 4, 30) }, // bridges ann's two sessions
      { userId: "dan", page: "/d2", at: at(10, 1) }, // joins dan's session
      flush(at(12, 0)),
    ];
    const expected = expectedSessions(views, config);
    expect(expected.sessions.filter((s) => s.userId === "ann")).toEqual([
      { userId: "ann", startMs: at(10, 0), endMs: at(10, 9), durationMs: 9 * MIN, pageCount: 3, path: ["/a1", "/a2", "/a3"] },
    ]);
    expect(expected.sessions.find((s) => s.userId === "dan")?.path).toEqual(["/d1", "/d2"]);
    expect(run(views).sort(order)).toEqual([...expected.sessions].sort(order));
  });
});
