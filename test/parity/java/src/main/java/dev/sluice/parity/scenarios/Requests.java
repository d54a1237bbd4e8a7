package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import dev.sluice.parity.scenarios.Windows.Emit;
import dev.sluice.parity.scenarios.Windows.Op;
import java.time.Duration;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.SessionWindows;
import org.apache.kafka.streams.kstream.SlidingWindows;
import org.apache.kafka.streams.kstream.TimeWindows;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.ValueJoiner;
import org.apache.kafka.streams.kstream.ValueMapper;
import org.apache.kafka.streams.state.KeyValueStore;

/** Twins of test/parity/scenarios/requests.ts (the inputs are written there). */
public final class Requests {
    public static void register(Registry r) {
        r.add("stream-table-inner-idling-1000", b -> {
            KTable<String, String> users = b.table("users", STRINGS);
            b.stream("clicks", STRINGS)
                .join(users, (c, u) -> c + "|" + u, Joined.with(Serdes.String(), Serdes.String(), Serdes.String()))
                .to("out", TO_STRINGS);
        });

        r.add("table-table-inner-uncached-sources", b -> tableTable(b, true));
        r.add("table-table-left-uncached-sources", b -> tableTable(b, false));

        r.add("foreign-key-inner-newer-foreign-row", b -> {
            Function<String, String> foreignKey = o -> o.split("\\|")[0];
            b.table("orders", STRINGS)
                .join(b.table("users", STRINGS), foreignKey, (o, u) -> o + "+" + u)
                .toStream().to("out", TO_STRINGS);
        });

        r.add("table-group-by-null-value-reduce-uncached", b -> b.table("in", STRINGS)
            .groupBy((k, v) -> KeyValue.pair(k.substring(0, 1), "-".equals(v) ? null : v), GROUPED_STRINGS)
            .reduce(Common::sum, (agg, v) -> String.valueOf(Long.parseLong(agg) - Long.parseLong(v)), stringStore("sums").withCachingDisabled())
            .toStream().to("out", TO_STRINGS));

        r.add("count-out-of-order-uncached", b -> b.stream("in", STRINGS).groupByKey()
            .count(longStore("counts").withCachingDisabled()).toStream().to("out", TO_LONGS));

        r.add("table-group-by-count-out-of-order-cache-off", b -> b.table("in", STRINGS)
            .groupBy((k, v) -> KeyValue.pair(v, k), GROUPED_STRINGS)
            .count().toStream().to("out", TO_LONGS));

        r.add("global-table-written-by-topology", b -> {
            KStream<String, String> moves = b.stream("moves", STRINGS);
            moves.to("directory", TO_STRINGS);
            GlobalKTable<String, String> directory = b.globalTable("directory", STRINGS,
                Materialized.<String, String, KeyValueStore<Bytes, byte[]>>as("dir").withKeySerde(Serdes.String()).withValueSerde(Serdes.String()));
            moves.join(directory, (k, v) -> k, (now, before) -> before + "->" + now).to("out", TO_STRINGS);
        });

        windows(r);

        r.add("processing-error-continue-after-cache", b -> b.stream("in", STRINGS)
            .groupByKey().count().toStream()
            .mapValues(n -> {
                if (n == 2L) throw new IllegalStateException("two is refused");
                return "count " + n;
            })
            .to("out", TO_STRINGS));
        r.add("processing-error-continue-in-branch", b -> b.stream("in", STRINGS)
            .split()
            .branch((k, v) -> Long.parseLong(v) % 2 == 1, Branched.withConsumer(s -> s.mapValues(refuse("3")).to("left", TO_STRINGS)))
            .defaultBranch(Branched.withConsumer(s -> s.to("right", TO_STRINGS))));
        r.add("processing-error-continue-sibling", b -> {
            KStream<String, String> stream = b.stream("in", STRINGS);
            stream.mapValues(refuse("2")).to("left", TO_STRINGS);
            stream.mapValues(v -> "R" + v).to("right", TO_STRINGS);
        });
    }

    /** A mapper that throws on one value, for the processing-error scenarios. */
    private static ValueMapper<String, String> refuse(String bad) {
        return v -> {
            if (bad.equals(v)) throw new IllegalStateException(bad + " is refused");
            return "L" + v;
        };
    }

    private static void windows(Registry r) {
        r.add("filter-drops-far-record-before-tumbling", b -> Windows.timeWindowed(b, TimeWindows.ofSizeWithNoGrace(ms(100)), 100, Emit.UPDATE, Op.COUNT, true, "drop"));
        r.add("session-count-null-values", b -> Windows.sessionWindowed(b, SessionWindows.ofInactivityGapWithNoGrace(ms(10)), Emit.UPDATE, Op.COUNT, true, null));
        r.add("session-gap-10-small", b -> Windows.sessionWindowed(b, SessionWindows.ofInactivityGapWithNoGrace(ms(10)), Emit.UPDATE, Op.COUNT, false, null));
        r.add("hopping-result-timestamp", b -> Windows.timeWindowed(b, TimeWindows.ofSizeAndGrace(ms(10), ms(20)).advanceBy(ms(5)), 10, Emit.UPDATE, Op.CONCAT, true, null));
        r.add("sliding-small-update", b -> Windows.slidingWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(ms(10), ms(20)), 10, Emit.UPDATE, Op.COUNT));
        r.add("sliding-small-close", b -> Windows.slidingWindowed(b, SlidingWindows.ofTimeDifferenceAndGrace(ms(10), ms(20)), 10, Emit.CLOSE, Op.COUNT));
        for (StreamJoins.Kind kind : new StreamJoins.Kind[] {StreamJoins.Kind.LEFT, StreamJoins.Kind.OUTER, StreamJoins.Kind.INNER}) {
            r.add("stream-stream-" + kind.name().toLowerCase() + "-small", b -> StreamJoins.join(b, kind, JoinWindows.ofTimeDifferenceAndGrace(ms(10), ms(5))));
        }
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    private static void tableTable(StreamsBuilder b, boolean inner) {
        KTable<String, String> left = b.table("left", STRINGS, stringStore("left-store").withCachingDisabled());
        KTable<String, String> right = b.table("right", STRINGS, stringStore("right-store").withCachingDisabled());
        ValueJoiner<String, String, String> joiner = (l, rv) -> l + "+" + rv;
        (inner ? left.join(right, joiner) : left.leftJoin(right, joiner)).toStream().to("out", TO_STRINGS);
    }
}
