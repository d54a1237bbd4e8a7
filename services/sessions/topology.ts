import {
  BufferConfig,
  Consumed,
  Grouped,
  Materialized,
  Named,
  Produced,
  Serdes,
  SessionWindows,
  StreamsBuilder,
  Suppressed,
  TimestampExtractors,
  type Topology,
} from "../../lib/index.ts";

/** A page view on the `page-views` topic, keyed by user id; `at` is its event time (ms). */
export interface PageView {
  userId: string;
  page: string;
  at: number;
}

/** One final session: what leaves the service on the `sessions` topic, keyed by user id. */
export interface Session {
  userId: string;
  startMs: number;
  endMs: number;
  durationMs: number;
  pageCount: number;
  /** The pages in event-time order (arrival order does not matter). */
  path: string[];
}

export interface SessionsConfig {
  topics: { pageViews: string; sessions: string };
  /** A user's views less than this far apart (ms) are one session. */
  inactivityGapMs: number;
  /** How long (ms, in stream time) a session waits for stragglers after it would close. */
  graceMs: number;
}

const MINUTE = 60_000;

export function defaultSessionsConfig(topics: Partial<SessionsConfig["topics"]> = {}): SessionsConfig {
  return { topics: { pageViews: "page-views", sessions: "sessions", ...topics }, inactivityGapMs: 30 * MINUTE, graceMs: 30 * MINUTE };
}

/** The session store's name (a windowed store of the sessions still open). */
export const SESSION_STORE = "user-sessions";

type View = { at: number; page: string };
const byTime = (a: View, b: View) => a.at - b.at || (a.page < b.page ? -1 : a.page > b.page ? 1 : 0);

/**
 * Sessionization: page views per user cut into sessions of activity (no gap of
 * `inactivityGapMs` or more inside one), in event time (the view's `at`). A straggler that
 * falls between two sessions merges them. Only final sessions leave, once closed
 * (`suppress(untilWindowCloses)`): each session once, with its page count, duration and
 * path. Views later than the grace period are dropped and counted.
 *
 * The aggregate keeps a session's views sorted by time, so the path is the same whatever
 * order the views arrived and merged in.
 */
export function sessionsTopology(config: SessionsConfig = defaultSessionsConfig()): Topology {
  const b = new StreamsBuilder();
  const views = Serdes.json<View[]>();
  b.stream(
    config.topics.pageViews,
    Consumed.with(Serdes.string(), Serdes.json<PageView>()).withTimestampExtractor(TimestampExtractors.fromField((v: PageView) => v.at, "record-timestamp")),
  )
    .filter((userId, view): userId is string => userId !== null && view !== null, Named.as("valid-views"))
    .mapValues((view): View => ({ at: view!.at, page: view!.page }), Named.as("view"))
    .groupByKey(Grouped.with(Serdes.string(), Serdes.json<View>()))
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(config.inactivityGapMs, config.graceMs))
    .aggregate(
      (): View[] => [],
      (_, view, list) => [...list, view].sort(byTime),
      (_, left, right) => [...left, ...right].sort(byTime),
      Named.as("sessionize"),
      Materialized.as<string, View[]>(SESSION_STORE).withValueSerde(views),
    )
    .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName("final-sessions"))
    .toStream(Named.as("closed-sessions"))
    .filter((_, list) => list !== null, Named.as("not-merged-away"))
    .map(
      (w, list): readonly [string, Session] => [
        w.key,
        {
          userId: w.key,
          startMs: w.window.startMs,
          endMs: w.window.endMs,
          durationMs: w.window.endMs - w.window.startMs,
          pageCount: list!.length,
          path: list!.map((v) => v.page),
        },
      ],
      Named.as("summarize"),
    )
    .to(config.topics.sessions, Produced.with(Serdes.string(), Serdes.json<Session>()));
  return b.build();
}
