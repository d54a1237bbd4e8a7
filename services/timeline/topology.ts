import { Consumed, Grouped, Materialized, Serdes, StreamsBuilder, TableJoined, type Topology } from "../../lib/index.ts";

/** A tweet as the `tweets` changelog holds it, keyed by tweet id; a tombstone deletes it. */
export interface Tweet {
  author: string;
  text: string;
  at: number;
}

/** A follow edge as the `follows` changelog holds it, keyed by `<follower>-><followee>`; a tombstone unfollows. */
export interface Follow {
  follower: string;
  followee: string;
}

/** One line of a timeline. */
export interface TimelineEntry {
  id: string;
  author: string;
  text: string;
  at: number;
}

export interface TimelineTopics {
  tweets: string;
  follows: string;
}

/** The queryable store: user -> the newest tweets of everyone they follow, newest first. */
export const TIMELINE_STORE = "timelines";
/** How many tweets of each followed author a timeline draws on, and how long a timeline is. */
export const PER_AUTHOR = 20;
export const TIMELINE_LENGTH = 50;

const newestFirst = (a: TimelineEntry, b: TimelineEntry) => b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * A per-user timeline kept up to date from two changelogs, as a materialized view:
 *
 * 1. tweets grouped by author, newest first (`tweets-by-author`; all of them, so that a
 *    delete lets an older tweet move up);
 * 2. follows joined with those by foreign key (the followee): one row per follow edge with
 *    the followee's newest PER_AUTHOR tweets, updated when the author tweets or deletes, or
 *    the edge goes;
 * 3. the edges grouped by follower: the followees' lists per follower (`timeline-sources`);
 * 4. merged newest first into the queryable `timelines` store.
 *
 * Deletes and unfollows flow through as tombstones and subtractions, so a timeline never
 * keeps a deleted tweet or an unfollowed author.
 */
export function timelineTopology(topics: TimelineTopics = { tweets: "tweets", follows: "follows" }): Topology {
  const b = new StreamsBuilder();
  const entry = Serdes.json<TimelineEntry>();
  const entries = Serdes.json<TimelineEntry[]>();
  const tweets = b.table(topics.tweets, Consumed.with(Serdes.string(), Serdes.json<Tweet>()), Materialized.as("tweets"));
  const byAuthor = tweets
    .groupBy((id, t) => [t.author, { id, ...t }] as const, Grouped.with(Serdes.string(), entry).withName("tweets-by-author"))
    .aggregate(
      (): TimelineEntry[] => [],
      (author, e, list) => [...list.filter((x) => x.id !== e.id), e].sort(newestFirst),
      (author, e, list) => list.filter((x) => x.id !== e.id),
      Materialized.as<string, TimelineEntry[]>("tweets-by-author").withValueSerde(entries),
    );
  const follows = b.table(topics.follows, Consumed.with(Serdes.string(), Serdes.json<Follow>()), Materialized.as("follows"));
  const edges = follows.join(
    byAuthor,
    (f) => f.followee,
    (f, list) => ({ follower: f.follower, followee: f.followee, tweets: list.slice(0, PER_AUTHOR) }),
    TableJoined.as("follow-tweets"),
  );
  type Sources = Record<string, TimelineEntry[]>;
  const sources = edges
    .groupBy((edge, v) => [v.follower, v] as const, Grouped.with(Serdes.string(), Serdes.json<{ follower: string; followee: string; tweets: TimelineEntry[] }>()).withName("edges-by-follower"))
    .aggregate(
      (): Sources => ({}),
      (user, v, agg) => ({ ...agg, [v.followee]: v.tweets }),
      (user, v, agg) => {
        const { [v.followee]: _gone, ...rest } = agg;
        return rest;
      },
      Materialized.as<string, Sources>("timeline-sources").withValueSerde(Serdes.json<Sources>()),
    );
  sources.mapValues(
    (agg) => Object.values(agg).flat().sort(newestFirst).slice(0, TIMELINE_LENGTH),
    Materialized.as<string, TimelineEntry[]>(TIMELINE_STORE).withValueSerde(entries),
  );
  return b.build();
}
