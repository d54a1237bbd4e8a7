import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { defaultSessionsConfig, sessionsTopology, type PageView, type Session } from "../../../services/sessions/topology.ts";
import { expectedSessions, pageViews } from "../../unit/services/sessions-oracle.ts";
import { bootstrap, uniqueName } from "../support.ts";

const MIN = 60_000;
const HOUR = 60 * MIN;

describe("the sessions service on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("writes each final session once under exactly-once, equal to the brute-force sessions", async () => {
    const topics = { pageViews: uniqueName("page-views"), sessions: uniqueName("sessions") };
    await kafka.createTopics([{ name: topics.pageViews, partitions: 3 }, { name: topics.sessions, partitions: 2 }]);
    const config = { ...defaultSessionsConfig(topics), inactivityGapMs: 5 * MIN, graceMs: 15 * MIN };
    const base = Math.floor(Date.now() / HOUR) * HOUR - 2 * 24 * HOUR;
    const views = pageViews(21, config, base, 9).map((d) => d.view);
    // flush users on every partition move each task's stream time past every session
    const flush: PageView[] = Array.from({ length: 12 }, (_, i) => ({ userId: `zz-flush-${i}`, page: "/", at: Math.max(...views.map((v) => v.at)) + 2 * HOUR }));
    // Stream time is per partition here, one task each; the views arrive at most grace - gap
    // late and the dropped ones an hour late, so the result is the one of a single task.
    const expected = expectedSessions([...views, ...flush], config);
    expect(expected.merges).toBeGreaterThan(0);
    const app = new StreamsApp(sessionsTopology(config), {
      applicationId: uniqueName("sessions"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-sessions-")),
      processingGuarantee: "exactly_once",
      commitIntervalMs: 200,
      logger: silentLogger,
    });
    try {
      await app.start({ handleSignals: false });
      // the record timestamp says nothing: the service takes event time from `at`
      await kafka.produce(topics.pageViews, [...views, ...flush].map((v) => ({ key: v.userId, value: JSON.stringify(v), timestamp: Date.now() })));
      const records = await kafka.read(topics.sessions, { readCommitted: true, count: expected.sessions.length, timeoutMs: 90_000 });
      const sessions = records.map((r) => JSON.parse(r.value!.toString()) as Session);
      for (const r of records) expect(r.key!.toString()).toBe(JSON.parse(r.value!.toString()).userId);
      const order = (a: Session, b: Session) => (a.userId < b.userId ? -1 : a.userId > b.userId ? 1 : a.startMs - b.startMs);
      expect(sessions.sort(order)).toEqual([...expected.sessions].sort(order));
      // nothing more arrives: every session exactly once
      expect(await kafka.read(topics.sessions, { readCommitted: true })).toHaveLength(expected.sessions.length);
    } finally {
      await app.close();
    }
  });
});
