package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import org.apache.kafka.streams.KeyValue;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.GlobalKTable;
import org.apache.kafka.streams.kstream.Joined;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.KeyValueMapper;
import org.apache.kafka.streams.kstream.ValueJoiner;

/** Twins of test/parity/scenarios/table-joins.ts. */
public final class TableJoins {
    enum Kind { INNER, LEFT, OUTER }

    private static final ValueJoiner<String, String, String> JOINER = (l, r) -> l + "+" + r;
    private static final Joined<String, String, String> JOINED = Joined.with(Serdes.String(), Serdes.String(), Serdes.String());

    public static void register(Registry r) {
        r.add("stream-table-inner", b -> streamTable(b, Kind.INNER));
        r.add("stream-table-left", b -> streamTable(b, Kind.LEFT));
        r.add("stream-global-inner", b -> streamGlobal(b, Kind.INNER));
        r.add("stream-global-left", b -> streamGlobal(b, Kind.LEFT));
        r.add("table-table-inner", b -> tableTable(b, Kind.INNER));
        r.add("table-table-left", b -> tableTable(b, Kind.LEFT));
        r.add("table-table-outer", b -> tableTable(b, Kind.OUTER));
        r.add("foreign-key-inner", b -> foreignKeyJoin(b, Kind.INNER));
        r.add("foreign-key-left", b -> foreignKeyJoin(b, Kind.LEFT));
        r.add("stream-table-left-headers", b -> streamTable(b, Kind.LEFT));
        r.add("table-table-outer-headers", b -> tableTable(b, Kind.OUTER));
        r.add("foreign-key-left-headers", b -> foreignKeyJoin(b, Kind.LEFT));
        r.add("foreign-key-left-materialized", b -> foreignKeyJoin(b, Kind.LEFT, true));
        r.add("foreign-key-inner-repeated-values", b -> foreignKeyJoin(b, Kind.INNER));
        r.add("table-table-outer-long", b -> tableTable(b, Kind.OUTER));

        r.add("table-table-join-then-group-by-count", b -> b.table("left", STRINGS)
            .leftJoin(b.table("right", STRINGS), (l, rv) -> rv == null ? "solo" : "pair")
            .groupBy((k, v) -> KeyValue.pair(v, k), GROUPED_STRINGS)
            .count().toStream().to("out", TO_LONGS));

        r.add("foreign-key-then-group-by-count", b -> {
            Function<String, String> foreignKey = TableJoins::foreignKey;
            b.table("orders", STRINGS)
                .join(b.table("users", STRINGS), foreignKey, (o, u) -> u)
                .groupBy((k, v) -> KeyValue.pair(v, k), GROUPED_STRINGS)
                .count().toStream().to("out", TO_LONGS);
        });

        r.add("stream-join-aggregated-table", b -> {
            KTable<String, String> totals = b.stream("payments", STRINGS).groupByKey(GROUPED_STRINGS).reduce(Common::sum, stringStore("totals"));
            b.stream("orders", STRINGS).leftJoin(totals, JOINER, JOINED).to("out", TO_STRINGS);
        });
    }

    /** "u2|7" names user u2; "-|7" no user. */
    private static String foreignKey(String order) {
        String user = order.split("\\|")[0];
        return user.equals("-") ? null : user;
    }

    private static void streamTable(StreamsBuilder b, Kind kind) {
        KTable<String, String> users = b.table("users", STRINGS);
        KStream<String, String> orders = b.stream("orders", STRINGS);
        (kind == Kind.INNER ? orders.join(users, JOINER, JOINED) : orders.leftJoin(users, JOINER, JOINED)).to("out", TO_STRINGS);
    }

    private static void streamGlobal(StreamsBuilder b, Kind kind) {
        GlobalKTable<String, String> users = b.globalTable("users", STRINGS);
        KStream<String, String> orders = b.stream("orders", STRINGS);
        KeyValueMapper<String, String, String> mapper = (k, v) -> v == null ? null : v.split(":")[0];
        (kind == Kind.INNER ? orders.join(users, mapper, JOINER) : orders.leftJoin(users, mapper, JOINER)).to("out", TO_STRINGS);
    }

    static void tableTable(StreamsBuilder b, Kind kind) {
        KTable<String, String> left = b.table("left", STRINGS);
        KTable<String, String> right = b.table("right", STRINGS);
        KTable<String, String> result = switch (kind) {
            case INNER -> left.join(right, JOINER);
            case LEFT -> left.leftJoin(right, JOINER);
            case OUTER -> left.outerJoin(right, JOINER);
        };
        result.toStream().to("out", TO_STRINGS);
    }

    static void foreignKeyJoin(StreamsBuilder b, Kind kind) {
        foreignKeyJoin(b, kind, false);
    }

    /** materialized: the join result goes into a caching store of its own. */
    private static void foreignKeyJoin(StreamsBuilder b, Kind kind, boolean materialized) {
        KTable<String, String> orders = b.table("orders", STRINGS);
        KTable<String, String> users = b.table("users", STRINGS);
        Function<String, String> foreignKey = TableJoins::foreignKey;
        KTable<String, String> result = materialized
            ? (kind == Kind.INNER ? orders.join(users, foreignKey, JOINER, stringStore("joined")) : orders.leftJoin(users, foreignKey, JOINER, stringStore("joined")))
            : (kind == Kind.INNER ? orders.join(users, foreignKey, JOINER) : orders.leftJoin(users, foreignKey, JOINER));
        result.toStream().to("out", TO_STRINGS);
    }
}
