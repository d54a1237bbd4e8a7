package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.EmitStrategy;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.SessionWindowedKStream;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.Suppressed;
import org.apache.kafka.streams.kstream.TimeWindowedKStream;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.Windowed;
import org.apache.kafka.streams.kstream.WindowedSerdes;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.WindowStore;

/** Twins of test/parity/scenarios/windows.ts. */
public final class Windows {
    enum Emit { UPDATE, CLOSE, SUPPRESS }
    enum Op { COUNT, SUM, CONCAT }

    static final long SIZE = 1000;

    public static void register(Registry r) {
        time(r, "tumbling-count-nograce-update", () -> TimeWindows.ofSizeWithNoGrace(ms(SIZE)), SIZE, Emit.UPDATE, Op.COUNT);
        time(r, "tumbling-count-grace-update", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(400)), SIZE, Emit.UPDATE, Op.COUNT);
        time(r, "tumbling-count-grace-suppress", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(400)), SIZE, Emit.SUPPRESS, Op.COUNT);
        time(r, "tumbling-count-nograce-suppress", () -> TimeWindows.ofSizeWithNoGrace(ms(SIZE)), SIZE, Emit.SUPPRESS, Op.COUNT);
        time(r, "tumbling-count-nograce-close", () -> TimeWindows.ofSizeWithNoGrace(ms(SIZE)), SIZE, Emit.CLOSE, Op.COUNT);
        time(r, "tumbling-count-grace-close", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(400)), SIZE, Emit.CLOSE, Op.COUNT);
        time(r, "hopping-count-nograce-update", () -> TimeWindows.ofSizeWithNoGrace(ms(SIZE)).advanceBy(ms(300)), SIZE, Emit.UPDATE, Op.COUNT);
        time(r, "hopping-sum-grace-update", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)).advanceBy(ms(300)), SIZE, Emit.UPDATE, Op.SUM);
        time(r, "hopping-count-grace-suppress", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)).advanceBy(ms(250)), SIZE, Emit.SUPPRESS, Op.COUNT);
        time(r, "hopping-concat-grace-close", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)).advanceBy(ms(300)), SIZE, Emit.CLOSE, Op.CONCAT);
        sliding(r, "sliding-count-nograce-update", () -> SlidingWindows.ofTimeDifferenceWithNoGrace(ms(500)), Emit.UPDATE, Op.COUNT);
        sliding(r, "sliding-count-grace-update", () -> SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(300)), Emit.UPDATE, Op.COUNT);
        sliding(r, "sliding-concat-grace-suppress", () -> SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(300)), Emit.SUPPRESS, Op.CONCAT);
        sliding(r, "sliding-count-grace-close", () -> SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(300)), Emit.CLOSE, Op.COUNT);
        session(r, "session-count-nograce-update-uncached", () -> SessionWindows.ofInactivityGapWithNoGrace(ms(300)), Emit.UPDATE, Op.COUNT, false, null);
        session(r, "session-count-grace-update", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(200)), Emit.UPDATE, Op.COUNT, true, null);
        session(r, "session-sum-grace-suppress-uncached", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(200)), Emit.SUPPRESS, Op.SUM, false, null);
        session(r, "session-concat-grace-update-six-keys", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(200)), Emit.UPDATE, Op.CONCAT, true, null);
        session(r, "session-concat-grace-close", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(200)), Emit.CLOSE, Op.CONCAT, true, null);
        r.add("tumbling-count-caching-disabled", b -> timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)), SIZE, Emit.UPDATE, Op.COUNT, false, null));
        session(r, "session-count-caching-disabled", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(100)), Emit.UPDATE, Op.COUNT, false, null);
        r.add("windowed-count-null-keys-and-values", b -> timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)), SIZE, Emit.UPDATE, Op.COUNT, true, null));
        r.add("filter-before-tumbling-update", b -> timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)), SIZE, Emit.UPDATE, Op.COUNT, true, "drop"));
        r.add("filter-before-tumbling-close", b -> timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)), SIZE, Emit.CLOSE, Op.COUNT, true, "drop"));
        r.add("filter-before-tumbling-suppress", b -> timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)), SIZE, Emit.SUPPRESS, Op.COUNT, true, "drop"));
        time(r, "tumbling-count-update-headers", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)), SIZE, Emit.UPDATE, Op.COUNT);
        time(r, "tumbling-count-close-headers", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)), SIZE, Emit.CLOSE, Op.COUNT);
        time(r, "tumbling-sum-suppress-headers", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)), SIZE, Emit.SUPPRESS, Op.SUM);
        sliding(r, "sliding-count-update-headers", () -> SlidingWindows.ofTimeDifferenceAndGrace(ms(500), ms(300)), Emit.UPDATE, Op.COUNT);
        time(r, "hopping-count-update-headers", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)).advanceBy(ms(300)), SIZE, Emit.UPDATE, Op.COUNT);
        session(r, "session-count-update-headers", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(200)), Emit.UPDATE, Op.COUNT, true, null);
        r.add("fan-out-tumbling-count-cached", b -> fanOutCount(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)), SIZE));
        r.add("group-by-then-tumbling-suppress", b -> b.stream("in", STRINGS)
            .groupBy((k, v) -> k.substring(0, 1), GROUPED_STRINGS)
            .windowedBy(TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)))
            .count()
            .suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
            .toStream()
            .to("out", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, SIZE), Serdes.Long())));
        r.add("merge-then-tumbling-close", b -> b.stream("in", STRINGS)
            .merge(b.stream("in2", STRINGS))
            .groupByKey(GROUPED_STRINGS)
            .windowedBy(TimeWindows.ofSizeAndGrace(ms(SIZE), ms(200)))
            .emitStrategy(EmitStrategy.onWindowClose())
            .count()
            .toStream()
            .to("out", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, SIZE), Serdes.Long())));
        session(r, "session-concat-update-long-uncached", () -> SessionWindows.ofInactivityGapAndGrace(ms(200), ms(300)), Emit.UPDATE, Op.CONCAT, false, null);
        r.add("sliding-concat-update-long", b -> slidingWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(ms(400), ms(250)), 400, Emit.UPDATE, Op.CONCAT));
        time(r, "hopping-count-suppress-long", () -> TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)).advanceBy(ms(400)), SIZE, Emit.SUPPRESS, Op.COUNT);
        // A documented difference (differences.ts): the caches size their entries differently.
        r.add("difference-fan-out-hopping-count-small-cache", b -> fanOutCount(b, TimeWindows.ofSizeAndGrace(ms(SIZE), ms(300)).advanceBy(ms(250)), SIZE));
        session(r, "filter-before-session-close", () -> SessionWindows.ofInactivityGapAndGrace(ms(300), ms(100)), Emit.CLOSE, Op.COUNT, true, "drop");
    }

    private static void time(Registry r, String name, Supplier<TimeWindows> windows, long size, Emit emit, Op op) {
        r.add(name, b -> timeWindowed(b, windows.get(), size, emit, op, true, null));
    }

    private static void sliding(Registry r, String name, Supplier<SlidingWindows> windows, Emit emit, Op op) {
        r.add(name, b -> slidingWindowed(b, windows.get(), 500, emit, op));
    }

    static void slidingWindowed(StreamsBuilder b, SlidingWindows windows, long size, Emit emit, Op op) {
        finishTime(source(b, null).groupByKey(GROUPED_STRINGS).windowedBy(windows), size, emit, op, true);
    }

    private static void session(Registry r, String name, Supplier<SessionWindows> windows, Emit emit, Op op, boolean caching, String filterOut) {
        r.add(name, b -> sessionWindowed(b, windows.get(), emit, op, caching, filterOut));
    }

    static void sessionWindowed(StreamsBuilder b, SessionWindows windows, Emit emit, Op op, boolean caching, String filterOut) {
        SessionWindowedKStream<String, String> windowed = source(b, filterOut).groupByKey(GROUPED_STRINGS).windowedBy(windows);
        if (emit == Emit.CLOSE) windowed = windowed.emitStrategy(EmitStrategy.onWindowClose());
        Serde<Windowed<String>> keySerde = WindowedSerdes.sessionWindowedSerdeFrom(String.class);
        if (op == Op.COUNT) {
            Materialized<String, Long, SessionStore<Bytes, byte[]>> store = Materialized.as("counts");
            KTable<Windowed<String>, Long> table = caching ? windowed.count() : windowed.count(store.withCachingDisabled());
            suppressIf(table, emit).toStream().to("out", Produced.with(keySerde, Serdes.Long()));
            return;
        }
        Materialized<String, String, SessionStore<Bytes, byte[]>> cached = Materialized.with(Serdes.String(), Serdes.String());
        Materialized<String, String, SessionStore<Bytes, byte[]>> store = caching ? cached : cached.withCachingDisabled();
        KTable<Windowed<String>, String> table = op == Op.SUM
            ? windowed.reduce(Common::sum, store)
            : windowed.aggregate(() -> "", (k, v, agg) -> agg + v, (k, left, right) -> left + "|" + right, store);
        suppressIf(table, emit).toStream().to("out", Produced.with(keySerde, Serdes.String()));
    }

    /** Each input record counted three times into its windows (windows.ts: fanOutCount). */
    static void fanOutCount(StreamsBuilder b, TimeWindows windows, long size) {
        b.stream("in", STRINGS)
            .flatMapValues(v -> List.of(v, v, v))
            .groupByKey()
            .windowedBy(windows)
            .count()
            .toStream()
            .to("out", Produced.with(WindowedSerdes.timeWindowedSerdeFrom(String.class, size), Serdes.Long()));
    }

    static void timeWindowed(StreamsBuilder b, TimeWindows windows, long size, Emit emit, Op op, boolean caching, String filterOut) {
        finishTime(source(b, filterOut).groupByKey(GROUPED_STRINGS).windowedBy(windows), size, emit, op, caching);
    }

    private static KStream<String, String> source(StreamsBuilder b, String filterOut) {
        KStream<String, String> stream = b.stream("in", STRINGS);
        return filterOut == null ? stream : stream.filter((k, v) -> !filterOut.equals(v));
    }

    private static void finishTime(TimeWindowedKStream<String, String> windowed, long size, Emit emit, Op op, boolean caching) {
        if (emit == Emit.CLOSE) windowed = windowed.emitStrategy(EmitStrategy.onWindowClose());
        Serde<Windowed<String>> keySerde = WindowedSerdes.timeWindowedSerdeFrom(String.class, size);
        if (op == Op.COUNT) {
            Materialized<String, Long, WindowStore<Bytes, byte[]>> store = Materialized.as("counts");
            KTable<Windowed<String>, Long> table = caching ? windowed.count() : windowed.count(store.withCachingDisabled());
            suppressIf(table, emit).toStream().to("out", Produced.with(keySerde, Serdes.Long()));
            return;
        }
        Materialized<String, String, WindowStore<Bytes, byte[]>> store = Materialized.with(Serdes.String(), Serdes.String());
        KTable<Windowed<String>, String> table = op == Op.SUM
            ? windowed.reduce(Common::sum, store)
            : windowed.aggregate(() -> "", (k, v, agg) -> agg + v, store);
        suppressIf(table, emit).toStream().to("out", Produced.with(keySerde, Serdes.String()));
    }

    private static <V> KTable<Windowed<String>, V> suppressIf(KTable<Windowed<String>, V> table, Emit emit) {
        return emit == Emit.SUPPRESS ? table.suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded())) : table;
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
