/**
 * Type tests for windowing, checked by `tsc` (no runtime): windowed aggregations key their
 * tables by Windowed<K>, sessions need a merger, and the emit and suppress options fit.
 */
import {
  BufferConfig,
  Consumed,
  EmitStrategy,
  Materialized,
  Serdes,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
  TimestampExtractors,
  type KTable,
  type SessionWindowedKStream,
  type TimeWindowedKStream,
  type Windowed,
} from "../../lib/index.ts";

type Expect<T extends true> = T;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

interface Click {
  user: string;
  at: number;
}

const builder = new StreamsBuilder();
const clicks = builder
  .stream("clicks", Consumed.with(Serdes.string(), Serdes.json<Click>()).withTimestampExtractor(TimestampExtractors.fromField((c: Click) => c.at)))
  .filter((k, v): v is Click => v !== null);
const grouped = clicks.groupByKey();

const hopping = grouped.windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000).advanceBy(10_000));
type _hopping = Expect<Equal<typeof hopping, TimeWindowedKStream<string, Click>>>;
const sliding = grouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5_000, 1_000));
type _sliding = Expect<Equal<typeof sliding, TimeWindowedKStream<string, Click>>>;
const sessions = grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(30_000));
type _sessions = Expect<Equal<typeof sessions, SessionWindowedKStream<string, Click>>>;

const counts = hopping.emitStrategy(EmitStrategy.onWindowClose()).withLateRecordsTopic("late-clicks").count();
type _counts = Expect<Equal<typeof counts, KTable<Windowed<string>, bigint>>>;
const final = counts.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()));
type _final = Expect<Equal<typeof final, KTable<Windowed<string>, bigint>>>;

const totals = sessions.aggregate(
  () => 0,
  (user, click, total) => total + click.at,
  (user, a, b) => a + b,
  Materialized.with(Serdes.string(), Serdes.json<number>()),
);
type _totals = Expect<Equal<typeof totals, KTable<Windowed<string>, number>>>;

// @ts-expect-error session aggregation needs a merger for bridged sessions
sessions.aggregate(() => 0, (user, click, total: number) => total + 1, Materialized.with(Serdes.string(), Serdes.json<number>()));
// @ts-expect-error a reducer keeps the value type
sliding.reduce((a: Click, b: Click) => a.at + b.at);
