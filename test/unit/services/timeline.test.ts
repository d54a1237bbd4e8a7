import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { consoleLogger, silentLogger } from "../../../lib/observability/index.ts";
import { setSkippedRecordLogger } from "../../../lib/processor/index.ts";
import { Serdes } from "../../../lib/serdes/index.ts";
import { TopologyTestDriver } from "../../../lib/testing/index.ts";
import { PER_AUTHOR, TIMELINE_LENGTH, TIMELINE_STORE, timelineTopology, type Follow, type TimelineEntry, type Tweet } from "../../../services/timeline/topology.ts";
import { pick, rng } from "../joins/oracle-helpers.ts";

beforeAll(() => setSkippedRecordLogger(silentLogger));
afterAll(() => setSkippedRecordLogger(consoleLogger("sluice.dsl")));

let driver: TopologyTestDriver | undefined;
afterEach(() => {
  driver?.close();
  driver = undefined;
});

/** The timeline of every user, computed from scratch from the current tweets and follows. */
function bruteForce(tweets: Map<string, Tweet>, follows: Map<string, Follow>): Map<string, TimelineEntry[]> {
  const newest = (a: TimelineEntry, b: TimelineEntry) => b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const byAuthor = new Map<string, TimelineEntry[]>();
  for (const [id, t] of tweets) byAuthor.set(t.author, [...(byAuthor.get(t.author) ?? []), { id, ...t }]);
  for (const [author, list] of byAuthor) byAuthor.set(author, list.sort(newest).slice(0, PER_AUTHOR));
  const timelines = new Map<string, TimelineEntry[]>();
  for (const f of follows.values()) {
    const list = byAuthor.get(f.followee);
    if (list === undefined) continue; // an author who never tweeted: no row to join yet
    timelines.set(f.follower, [...(timelines.get(f.follower) ?? []), ...list]);
  }
  for (const [user, list] of timelines) timelines.set(user, list.sort(newest).slice(0, TIMELINE_LENGTH));
  return timelines;
}

describe("the timeline service's topology", () => {
  it("keeps every user's timeline equal to the one computed from scratch, through tweets, deletes, follows and unfollows", () => {
    driver = new TopologyTestDriver(timelineTopology());
    const tweetsIn = driver.createInputTopic("tweets", Serdes.string(), Serdes.json<Tweet>());
    const followsIn = driver.createInputTopic("follows", Serdes.string(), Serdes.json<Follow>());
    const users = ["ann", "bob", "cem", "dia", "eve"];
    const tweets = new Map<string, Tweet>();
    const follows = new Map<string, Follow>();
    const everAuthored = new Set<string>();
    const random = rng(77);
    for (let i = 0; i < 400; i++) {
      const roll = random();
      if (roll < 0.45) {
        const author = pick(random, users);
        const t = { author, text: `t${i}`, at: 1_000 + i };
        tweetsIn.pipeInput(`tw${i}`, t, t.at);
        tweets.set(`tw${i}`, t);
        everAuthored.add(author);
      } else if (roll < 0.6 && tweets.size > 0) {
        const id = pick(random, [...tweets.keys()]);
        tweetsIn.pipeInput(id, null, 1_000 + i);
        tweets.delete(id);
      } else {
        const follower = pick(random, users);
        const followee = pick(random, users.filter((u) => u !== follower));
        const key = `${follower}->${followee}`;
        if (random() < 0.3) {
          followsIn.pipeInput(key, null, 1_000 + i);
          follows.delete(key);
        } else {
          followsIn.pipeInput(key, { follower, followee }, 1_000 + i);
          follows.set(key, { follower, followee });
        }
      }
      const store = driver.getKeyValueStore<string, TimelineEntry[]>(TIMELINE_STORE);
      const actual = new Map(store.all().filter((e) => e.value.length > 0).map((e) => [e.key, e.value] as const));
      const expected = new Map([...bruteForce(tweets, follows)].filter(([, v]) => v.length > 0));
      expect(actual, `step ${i}`).toEqual(expected);
    }
    expect(everAuthored.size).toBe(users.length);
  });
});
