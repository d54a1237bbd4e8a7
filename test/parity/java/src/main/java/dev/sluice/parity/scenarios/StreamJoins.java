package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.JoinWindows;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.KeyValueMapper;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.StreamJoined;
import org.apache.kafka.streams.kstream.ValueJoiner;

/** Twins of test/parity/scenarios/stream-joins.ts. */
public final class StreamJoins {
    enum Kind { INNER, LEFT, OUTER }

    public static void register(Registry r) {
        add(r, "stream-stream-inner-nograce", Kind.INNER, () -> JoinWindows.ofTimeDifferenceWithNoGrace(ms(200)));
        add(r, "stream-stream-inner-grace", Kind.INNER, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(300)));
        add(r, "stream-stream-left-nograce", Kind.LEFT, () -> JoinWindows.ofTimeDifferenceWithNoGrace(ms(200)));
        add(r, "stream-stream-left-grace", Kind.LEFT, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(300)));
        add(r, "stream-stream-outer-nograce", Kind.OUTER, () -> JoinWindows.ofTimeDifferenceWithNoGrace(ms(200)));
        add(r, "stream-stream-outer-grace", Kind.OUTER, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(300)));
        add(r, "stream-stream-inner-asymmetric", Kind.INNER, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(100)).before(ms(100)).after(ms(300)));
        add(r, "stream-stream-outer-headers", Kind.OUTER, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(100)));
        add(r, "stream-stream-left-asymmetric", Kind.LEFT, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(100)).before(ms(0)).after(ms(250)));
        add(r, "stream-stream-left-task-idling", Kind.LEFT, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(100)));
        add(r, "stream-stream-outer-long", Kind.OUTER, () -> JoinWindows.ofTimeDifferenceAndGrace(ms(150), ms(200)));

        r.add("stream-stream-self-join", b -> {
            KStream<String, String> stream = b.stream("left", STRINGS);
            stream.join(stream, (l, rv) -> l + "+" + rv, JoinWindows.ofTimeDifferenceAndGrace(ms(150), ms(100)),
                    StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String()))
                .to("out", TO_STRINGS);
        });

        r.add("select-key-then-stream-stream-join", b -> {
            KeyValueMapper<String, String, String> rekey = (k, v) -> v == null ? k : k + (v.length() % 2);
            KStream<String, String> left = b.stream("left", STRINGS).selectKey(rekey);
            KStream<String, String> right = b.stream("right", STRINGS).selectKey(rekey);
            left.join(right, (l, rv) -> l + "+" + rv, JoinWindows.ofTimeDifferenceAndGrace(ms(200), ms(100)),
                    StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String()))
                .to("out", TO_STRINGS);
        });

        r.add("select-key-then-stream-table-join", b -> {
            KTable<String, String> table = b.table("right", STRINGS);
            b.stream("left", STRINGS)
                .selectKey((k, v) -> v == null ? k : v.split(":")[0])
                .leftJoin(table, (l, t) -> l + "+" + t, Joined.with(Serdes.String(), Serdes.String(), Serdes.String()))
                .to("out", TO_STRINGS);
        });
    }

    private static void add(Registry r, String name, Kind kind, Supplier<JoinWindows> windows) {
        r.add(name, b -> join(b, kind, windows.get()));
    }

    static void join(StreamsBuilder b, Kind kind, JoinWindows windows) {
        KStream<String, String> left = b.stream("left", STRINGS);
        KStream<String, String> right = b.stream("right", STRINGS);
        StreamJoined<String, String, String> serdes = StreamJoined.with(Serdes.String(), Serdes.String(), Serdes.String());
        ValueJoiner<String, String, String> joiner = (l, rv) -> l + "+" + rv;
        KStream<String, String> joined = switch (kind) {
            case INNER -> left.join(right, joiner, windows, serdes);
            case LEFT -> left.leftJoin(right, joiner, windows, serdes);
            case OUTER -> left.outerJoin(right, joiner, windows, serdes);
        };
        joined.to("out", TO_STRINGS);
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
