package dev.sluice.parity.scenarios;

import static dev.sluice.parity.scenarios.Common.*;

import dev.sluice.parity.Registry;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Predicate;
import org.apache.kafka.streams.kstream.ValueMapper;

/** Twins of test/parity/scenarios/tables.ts. */
public final class Tables {
    private static final Predicate<String, String> ODD = (k, v) -> Long.parseLong(v) % 2 == 1;
    private static final ValueMapper<String, String> TRIPLED = v -> String.valueOf(Long.parseLong(v) * 3);

    public static void register(Registry r) {
        r.add("table-source-to-stream", b -> source(b, true).toStream().to("out", TO_STRINGS));
        r.add("table-source-materialized-caching-disabled", b -> source(b, false).toStream().to("out", TO_STRINGS));
        r.add("table-filter-not-materialized", b -> source(b, true).filter(ODD).toStream().to("out", TO_STRINGS));
        r.add("table-filter-materialized", b -> source(b, true).filter(ODD, stringStore("filtered")).toStream().to("out", TO_STRINGS));
        r.add("table-filter-materialized-caching-disabled", b -> source(b, false)
            .filter(ODD, stringStore("filtered").withCachingDisabled()).toStream().to("out", TO_STRINGS));
        r.add("table-map-values-not-materialized", b -> source(b, true).mapValues(TRIPLED).toStream().to("out", TO_STRINGS));
        r.add("table-map-values-materialized", b -> source(b, true).filter(ODD)
            .mapValues(TRIPLED, stringStore("tripled")).toStream().to("out", TO_STRINGS));
        r.add("table-group-by-count", b -> source(b, true)
            .groupBy((k, v) -> KeyValue.pair(v, k), GROUPED_STRINGS)
            .count().toStream().to("out", TO_LONGS));
        r.add("table-group-by-reduce-same-key", b -> source(b, true)
            .groupBy((k, v) -> KeyValue.pair(k.substring(0, 1), v), GROUPED_STRINGS)
            .reduce(Common::sum, (agg, v) -> String.valueOf(Long.parseLong(agg) - Long.parseLong(v)), stringStore("sums"))
            .toStream().to("out", TO_STRINGS));
        r.add("table-group-by-aggregate-same-key", Tables::prefixTrail);
        r.add("table-group-by-aggregate-caching-disabled", b -> source(b, true)
            .groupBy((k, v) -> KeyValue.pair(Long.parseLong(v) % 2 == 0 ? "even" : "odd", k), GROUPED_STRINGS)
            .aggregate(() -> "", (k, v, agg) -> agg + "+" + v, (k, v, agg) -> agg + "-" + v, stringStore("trail").withCachingDisabled())
            .toStream().to("out", TO_STRINGS));
        r.add("table-group-by-count-cache-off", b -> source(b, true)
            .groupBy((k, v) -> KeyValue.pair(k.substring(0, 1), v), GROUPED_STRINGS)
            .count(longStore("counts")).toStream().to("out", TO_LONGS));
        r.add("stream-to-table", b -> b.stream("in", STRINGS).toTable().toStream().to("out", TO_STRINGS));
        r.add("stream-to-table-materialized-filter", b -> b.stream("in", STRINGS).toTable(stringStore("as-table"))
            .filter(ODD).toStream().to("out", TO_STRINGS));
        r.add("table-group-by-aggregate-headers", Tables::prefixTrail);
        r.add("table-filter-map-values-headers", b -> source(b, true).filter(ODD).mapValues(TRIPLED).toStream().to("out", TO_STRINGS));
        r.add("table-filter-then-group-by-count", b -> source(b, true).filter(ODD)
            .groupBy((k, v) -> KeyValue.pair(v, k), GROUPED_STRINGS)
            .count().toStream().to("out", TO_LONGS));
        r.add("table-map-values-then-group-by-reduce", b -> source(b, true).mapValues(TRIPLED)
            .groupBy((k, v) -> KeyValue.pair(k.substring(0, 1), v), GROUPED_STRINGS)
            .reduce(Common::sum, (agg, v) -> String.valueOf(Long.parseLong(agg) - Long.parseLong(v)), stringStore("sums"))
            .toStream().to("out", TO_STRINGS));
        r.add("table-group-by-null-group-key", b -> source(b, true)
            .groupBy((k, v) -> KeyValue.pair("4".equals(v) ? null : k.substring(0, 1), v), GROUPED_STRINGS)
            .count().toStream().to("out", TO_LONGS));
    }

    /** groupBy(key prefix).aggregate with adder and subtractor leaving a trail: "+3-3+4". */
    static void prefixTrail(StreamsBuilder b) {
        source(b, true)
            .groupBy((k, v) -> KeyValue.pair(k.substring(0, 1), v), GROUPED_STRINGS)
            .aggregate(() -> "", (k, v, agg) -> agg + "+" + v, (k, v, agg) -> agg + "-" + v, stringStore("trail"))
            .toStream().to("out", TO_STRINGS);
    }

    private static KTable<String, String> source(StreamsBuilder b, boolean cached) {
        return cached ? b.table("in", STRINGS) : b.table("in", STRINGS, stringStore("source").withCachingDisabled());
    }
}
