import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../../lib/observability/index.ts";
import { StreamsApp } from "../../../lib/runtime/index.ts";
import { TestKafka } from "../../../lib/testing/index.ts";
import { PER_AUTHOR, TIMELINE_LENGTH, TIMELINE_STORE, timelineTopology, type Follow, type TimelineEntry, type Tweet } from "../../../services/timeline/topology.ts";
import { bootstrap, uniqueName, waitFor } from "../support.ts";

const USERS = ["ann", "bob", "cem", "dia", "eve", "fay"];

function expectedTimelines(tweets: Map<string, Tweet>, follows: Map<string, Follow>): Map<string, TimelineEntry[]> {
  const newest = (a: TimelineEntry, b: TimelineEntry) => b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byAuthor = new Map<string, TimelineEntry[]>();
  for (const [id, t] of tweets) byAuthor.set(t.author, [...(byAuthor.get(t.author) ?? []), { id, ...t }]);
  const result = new Map<string, TimelineEntry[]>();
  for (const f of follows.values()) {
    const list = (byAuthor.get(f.followee) ?? []).sort(newest).slice(0, PER_AUTHOR);
    result.set(f.follower, [...(result.get(f.follower) ?? []), ...list]);
  }
  for (const [user, list] of result) result.set(user, list.sort(newest).slice(0, TIMELINE_LENGTH));
  return result;
}

describe("the timeline service on the real broker", () => {
  let kafka: TestKafka;
  beforeAll(() => {
    kafka = new TestKafka(bootstrap());
  });
  afterAll(() => kafka.close());

  it("serves every user's timeline through interactive queries as tweets, deletes and unfollows arrive", async () => {
    const topics = { tweets: uniqueName("tweets"), follows: uniqueName("follows") };
    await kafka.createTopics([{ name: topics.tweets, partitions: 3 }, { name: topics.follows, partitions: 2 }]);
    const app = new StreamsApp(timelineTopology(topics), {
      applicationId: uniqueName("timeline"),
      bootstrapServers: bootstrap(),
      stateDir: mkdtempSync(join(tmpdir(), "sluice-timeline-")),
      commitIntervalMs: 100,
      logger: silentLogger,
    });
    const tweets = new Map<string, Tweet>();
    const follows = new Map<string, Follow>();
    const base = Date.now() - 3_600_000;
    const sendTweets = async (from: number, to: number) => {
      const batch = Array.from({ length: to - from }, (_, i) => {
        const n = from + i;
        const t: Tweet = { author: USERS[n % USERS.length]!, text: `tweet ${n}`, at: base + n };
        tweets.set(`tw${n}`, t);
        return { key: `tw${n}`, value: JSON.stringify(t), timestamp: t.at };
      });
      await kafka.produce(topics.tweets, batch);
    };
    const converged = async () => {
      const expected = expectedTimelines(tweets, follows);
      try {
        const store = app.store<string, TimelineEntry[]>(TIMELINE_STORE);
        return USERS.every((u) => JSON.stringify(store.get(u) ?? []) === JSON.stringify(expected.get(u) ?? []));
      } catch {
        return false;
      }
    };
    try {
      await app.start({ handleSignals: false });
      const edges: Follow[] = USERS.flatMap((follower, i) => [USERS[(i + 1) % USERS.length]!, USERS[(i + 2) % USERS.length]!].map((followee) => ({ follower, followee })));
      await kafka.produce(topics.follows, edges.map((f) => ({ key: `${f.follower}->${f.followee}`, value: JSON.stringify(f), timestamp: base })));
      for (const f of edges) follows.set(`${f.follower}->${f.followee}`, f);
      await sendTweets(0, 200);
      await waitFor("timelines after 200 tweets", converged, 60_000);
      // Deletes let older tweets move up; unfollows drop an author; new tweets arrive meanwhile.
      const deleted = Array.from({ length: 30 }, (_, i) => `tw${199 - i * 3}`);
      await kafka.produce(topics.tweets, deleted.map((id) => ({ key: id, value: null, timestamp: base + 500 })));
      for (const id of deleted) tweets.delete(id);
      const unfollowed = ["ann->bob", "dia->fay"];
      await kafka.produce(topics.follows, unfollowed.map((k) => ({ key: k, value: null, timestamp: base + 500 })));
      for (const k of unfollowed) follows.delete(k);
      await sendTweets(200, 260);
      await waitFor("timelines after deletes, unfollows and more tweets", converged, 60_000);
      const ann = app.store<string, TimelineEntry[]>(TIMELINE_STORE).get("ann")!;
      expect(ann.every((e) => e.author === "cem")).toBe(true);
      expect(ann).toHaveLength(PER_AUTHOR);
    } finally {
      await app.close();
    }
  });
});
